// `engram context AGENT [QUERY...]`: the block to inject — slots, pinned facts, recalled facts —
// packed to a token budget. The block goes to stdout as it is, so it can be piped into a prompt;
// what was cut and the count go to stderr.
import type { Command } from 'commander';
import { contextJson } from '../../../shared/json/shapes.ts';
import { CONTEXT_MODES } from '../../../shared/context-modes.ts';
import type { ContextOptions } from '../../../shared/model.ts';
import { out, positiveInt, printJson, repeatable, usage, withClient, type Cli } from '../context.ts';

export function registerContextCommand({ program, globals }: Cli): void {
  program
    .command('context')
    .description('the context to inject: the slots that apply, pinned facts, then the facts recalled for the query, packed to a token budget')
    .argument('<agent>', 'agent id (namespace)')
    .argument('[query...]', 'what the context is for (none: slots and pinned facts only)')
    .option('--mode <mode>', `${CONTEXT_MODES.join(' | ')}: a built-in's retrieval and a budget of 1800 / 3500 / 8000 / 14000 tokens (default balanced)`)
    .option('--recipe <name>', 'a retrieval recipe instead of a mode (its token_budget too)')
    .option('--budget <tokens>', "override the mode's or recipe's token budget", positiveInt('--budget'))
    .option('--project <id>', "the project's slots and the global ones")
    .option('--slot <name>', 'only this slot; repeat for several', repeatable)
    .option('-k, --top-k <n>', 'recalled facts offered to the packer (default budget / 100, at least 8)', positiveInt('--top-k'))
    .option('--json', 'print JSON')
    .action(async (agent: string, words: string[], o, cmd: Command) => {
      const opts = globals(cmd);
      if (o.mode !== undefined && !(CONTEXT_MODES as readonly string[]).includes(o.mode)) usage(`--mode must be one of ${CONTEXT_MODES.join(', ')}, got "${o.mode}"`, '--mode');
      if (o.mode !== undefined && o.recipe !== undefined) usage('--mode and --recipe cannot be combined (a recipe carries its own budget)', '--recipe');
      const query = words.join(' ');
      const options: ContextOptions = {
        ...(o.mode !== undefined ? { mode: o.mode } : {}),
        ...(o.recipe !== undefined ? { recipe: o.recipe } : {}),
        ...(o.budget !== undefined ? { tokenBudget: o.budget } : {}),
        ...(o.project !== undefined ? { projectId: o.project } : {}),
        ...(o.slot !== undefined ? { slotNames: o.slot } : {}),
        ...(o.topK !== undefined ? { topK: o.topK } : {}),
      };
      const c = await withClient(opts, (client) => client.assembleContext(agent, query, options));
      if (opts.json) return printJson(contextJson(agent, query, c));
      if (c.block) out(c.block.replace(/\n$/, ''));
      process.stderr.write(`${c.tokens} of ${c.tokenBudget} tokens (${c.tokenizer}), ${c.items.length} items, recipe ${c.recipe.id}${c.mode ? `, mode ${c.mode}` : ''}\n`);
      for (const cut of c.cut) process.stderr.write(`cut ${cut.kind} ${cut.id} (${cut.tokens} tokens): ${cut.reason}\n`);
    });
}
