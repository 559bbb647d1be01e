// Retrieval recipes from the command line: `engram recipes list|get|save|history`.
import type { Command } from 'commander';
import { recipeJson } from '../../../shared/json/shapes.ts';
import type { Recipe, RecipeFields } from '../../../shared/model.ts';
import { out, printJson, usage, withClient, type Cli } from '../context.ts';

const line = (r: Recipe): string =>
  `${r.id.padEnd(24)} vector ${r.vectorTopK} lexical ${r.lexicalTopK} graph ${r.graphDepth} reranker ${r.reranker ? 'on' : 'off'} budget ${r.tokenBudget}${r.preferVerified ? ' prefer_verified' : ''}${r.verifiedOnly ? ' verified_only' : ''}${r.includeEvidence ? ' include_evidence' : ''}`;

const whole = (flag: string) => (value: string): number => {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim())) usage(`${flag} must be a whole number, got "${value}"`);
  return n;
};
const onOff = (flag: string) => (value: string): boolean => {
  if (value !== 'on' && value !== 'off') usage(`${flag} must be on or off, got "${value}"`);
  return value === 'on';
};

export function registerRecipeCommands({ program, globals }: Cli): void {
  const group = program.command('recipes').description('retrieval recipes: named, versioned parameter sets (six built in)');

  group
    .command('list')
    .description('saved recipes (latest versions), then the built-ins not overridden')
    .option('--json', 'print JSON')
    .action(async (_o, cmd: Command) => {
      const opts = globals(cmd);
      const recipes = await withClient(opts, (c) => c.listRecipes());
      if (opts.json) return printJson({ count: recipes.length, recipes: recipes.map(recipeJson) });
      for (const r of recipes) out(line(r));
    });

  group
    .command('get')
    .description('what a recipe name means now')
    .argument('<name>', 'the recipe')
    .option('--json', 'print JSON')
    .action(async (name: string, _o, cmd: Command) => {
      const opts = globals(cmd);
      const r = await withClient(opts, (c) => c.getRecipe(name));
      if (opts.json) printJson({ recipe: recipeJson(r) });
      else out(line(r));
    });

  group
    .command('save')
    .description('save a new version: the given settings over the latest version, else over the built-in of that name')
    .argument('<name>', 'the recipe')
    .option('--vector-top-k <n>', 'vector candidates', whole('--vector-top-k'))
    .option('--lexical-top-k <n>', 'keyword candidates', whole('--lexical-top-k'))
    .option('--graph-depth <n>', 'knowledge-graph depth, 0 to 3', whole('--graph-depth'))
    .option('--reranker <on|off>', 'the second ranking stage', onOff('--reranker'))
    .option('--token-budget <n>', 'the context budget in tokens', whole('--token-budget'))
    .option('--prefer-verified <on|off>', 'rank verified facts higher', onOff('--prefer-verified'))
    .option('--verified-only <on|off>', 'drop anything not verified', onOff('--verified-only'))
    .option('--include-evidence <on|off>', 'attach the supporting records', onOff('--include-evidence'))
    .option('--json', 'print JSON')
    .action(async (name: string, o: Partial<RecipeFields>, cmd: Command) => {
      const opts = globals(cmd);
      const { json: _json, ...fields } = o as Partial<RecipeFields> & { json?: boolean };
      const r = await withClient(opts, (c) => c.saveRecipe(name, fields));
      if (opts.json) printJson({ recipe: recipeJson(r) });
      else out(`saved ${line(r)}`);
    });

  group
    .command('history')
    .description('every saved version of a recipe, oldest first')
    .argument('<name>', 'the recipe')
    .option('--json', 'print JSON')
    .action(async (name: string, _o, cmd: Command) => {
      const opts = globals(cmd);
      const versions = await withClient(opts, (c) => c.recipeHistory(name));
      if (opts.json) return printJson({ count: versions.length, recipes: versions.map(recipeJson) });
      for (const r of versions) out(line(r));
    });
}
