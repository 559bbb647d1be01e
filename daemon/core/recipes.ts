// Retrieval recipes: named, stored parameter sets, so "deep" means the same thing to every service
// that asks for it. Six are built in; saving a recipe merges the given fields over its latest
// saved version, else over the built-in of the same name (else over "balanced"), and stores a new
// version (unless the latest one already says the same), so the history of what a name meant
// stays listable.
import { canonicalJson } from '../../shared/canonical-json.ts';
import { fieldNotFound, invalidArgument } from '../../shared/errors.ts';
import type { Recipe, RecipeFields } from '../../shared/model.ts';
import { checkRecipeFields, type RecipeFieldsInput } from '../../shared/recipe-rules.ts';
import * as check from '../../shared/validate.ts';
import type { Json, MemoryStore } from '../store/store.ts';
import { CONTROLS_NAMESPACE, type WritePipeline } from '../write/pipeline.ts';
import type { CallContext } from './context.ts';

export type { Recipe, RecipeFields } from '../../shared/model.ts';

const on = { reranker: true } as const;
const off = { reranker: false } as const;
const prefer = { preferVerified: true, verifiedOnly: false, includeEvidence: false } as const;

/** The seed's table: every recipe prefers verified facts; verified_only makes it a rule;
 *  forensic also brings the evidence. */
export const BUILTIN_RECIPES: Readonly<Record<string, RecipeFields>> = {
  cheap: { vectorTopK: 12, lexicalTopK: 12, graphDepth: 0, ...off, tokenBudget: 2000, ...prefer },
  balanced: { vectorTopK: 32, lexicalTopK: 32, graphDepth: 1, ...on, tokenBudget: 6000, ...prefer },
  deep: { vectorTopK: 80, lexicalTopK: 80, graphDepth: 2, ...on, tokenBudget: 16000, ...prefer },
  forensic: { vectorTopK: 120, lexicalTopK: 120, graphDepth: 3, ...on, tokenBudget: 30000, ...prefer, includeEvidence: true },
  verified_only: { vectorTopK: 48, lexicalTopK: 48, graphDepth: 1, ...on, tokenBudget: 8000, ...prefer, verifiedOnly: true },
  low_latency: { vectorTopK: 8, lexicalTopK: 8, graphDepth: 0, ...off, tokenBudget: 1200, ...prefer },
};

/** What a save answers: the recipe version the name means after it; `changed` false when the
 *  latest version already had these settings (nothing saved); `replayed` when its request id was
 *  used before (the answer is then the first save's). */
export interface RecipeSaved {
  recipe: Recipe;
  changed: boolean;
  replayed: boolean;
}

const versionKey = (name: string, version: number) => `${name}\u0000${version.toString(16).padStart(8, '0')}`;

export interface RecipeInput extends RecipeFieldsInput {
  name: unknown;
}

function checkName(value: unknown, field = 'name'): string {
  if (typeof value !== 'string' || !/^[a-z0-9][a-z0-9_-]{0,63}$/.test(value)) throw invalidArgument(field, 'must be 1-64 characters of a-z, 0-9, _ and -, starting with a letter or digit');
  return value;
}

const unknownRecipe = (name: string) => `no recipe "${name}" (built in: ${Object.keys(BUILTIN_RECIPES).join(', ')})`;

const fieldsOf = ({ vectorTopK, lexicalTopK, graphDepth, reranker, tokenBudget, preferVerified, verifiedOnly, includeEvidence }: RecipeFields): RecipeFields => ({
  vectorTopK,
  lexicalTopK,
  graphDepth,
  reranker,
  tokenBudget,
  preferVerified,
  verifiedOnly,
  includeEvidence,
});

const builtin = (name: string): Recipe => ({ id: `builtin:${name}`, name, version: 0, builtin: true, savedAt: 0, ...BUILTIN_RECIPES[name]! });

export class Recipes {
  constructor(
    private readonly store: MemoryStore,
    private readonly pipeline: WritePipeline,
  ) {}

  /** Saves a new version of the recipe: the given fields over its latest version or built-in.
   *  Settings the latest version already has save nothing: it is answered (changed: false). */
  save(ctx: CallContext, input: RecipeInput): Promise<RecipeSaved> {
    const name = checkName(input.name);
    const fields = checkRecipeFields(input);
    return this.pipeline.run<RecipeSaved>(ctx, {
      agentId: CONTROLS_NAMESPACE,
      requestId: check.requestId(ctx.requestId),
      request: { op: 'recipe', name, fields },
      locks: [`recipe:${name}`],
      plan: async () => {
        const latest = await this.latest(name);
        const base: RecipeFields = latest ? fieldsOf(latest) : (BUILTIN_RECIPES[name] ?? BUILTIN_RECIPES.balanced!);
        const merged = fieldsOf({ ...base, ...fields });
        return () => {
          if (latest && canonicalJson(merged) === canonicalJson(base)) {
            return { changes: [], result: { recipe: latest, changed: false, replayed: false }, record: { op: 'recipe', name, version: latest.version, changed: false } };
          }
          const version = (latest?.version ?? 0) + 1;
          const recipe: Recipe = { ...merged, id: `${name}@${version}`, name, version, builtin: false, savedAt: Date.now() };
          return { changes: [{ type: 'putRecord', table: 'recipes', key: versionKey(name, version), value: recipe as unknown as Json }], result: { recipe, changed: true, replayed: false }, record: { op: 'recipe', name, version, changed: true } };
        };
      },
      replay: async (recorded) => ({ recipe: (await this.versions(String(recorded.name))).find((r) => r.version === recorded.version)!, changed: recorded.changed !== false, replayed: true }),
    });
  }

  /** The saved recipes (each one's latest version), then every built-in not overridden. */
  async list(_ctx: CallContext): Promise<Recipe[]> {
    const latest = new Map<string, Recipe>();
    for await (const [, value] of this.store.scanRecords('recipes')) latest.set((value as unknown as Recipe).name, value as unknown as Recipe);
    const saved = [...latest.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
    return [...saved, ...Object.keys(BUILTIN_RECIPES).filter((name) => !latest.has(name)).map(builtin)];
  }

  /** What a name means now: its latest saved version, else its built-in. */
  async get(_ctx: CallContext, nameInput: unknown): Promise<Recipe> {
    const name = checkName(nameInput);
    const recipe = await this.current(name);
    if (!recipe) throw fieldNotFound('name', unknownRecipe(name));
    return recipe;
  }

  /** The recipe a recall or context call names, `field` being where: an unknown name is the
   *  caller's invalid argument there, not a missing resource. */
  async resolve(nameInput: unknown, field: string): Promise<Recipe> {
    const name = checkName(nameInput, field);
    const recipe = await this.current(name);
    if (!recipe) throw invalidArgument(field, unknownRecipe(name));
    return recipe;
  }

  /** The built-in a mode names, as shipped (a saved recipe of that name does not change a mode). */
  static builtin(name: string): Recipe | undefined {
    return BUILTIN_RECIPES[name] ? builtin(name) : undefined;
  }

  private async current(name: string): Promise<Recipe | undefined> {
    return (await this.latest(name)) ?? (BUILTIN_RECIPES[name] ? builtin(name) : undefined);
  }

  /** Every saved version of a recipe, oldest first (none for a built-in never overridden); a name
   *  that is neither saved nor built in is not found, as get says. */
  async history(_ctx: CallContext, nameInput: unknown): Promise<Recipe[]> {
    const name = checkName(nameInput);
    const versions = await this.versions(name);
    if (versions.length === 0 && !BUILTIN_RECIPES[name]) throw fieldNotFound('name', unknownRecipe(name));
    return versions;
  }

  private async versions(name: string): Promise<Recipe[]> {
    const out: Recipe[] = [];
    for await (const [, value] of this.store.scanRecords('recipes', { prefix: `${name}\u0000` })) out.push(value as unknown as Recipe);
    return out;
  }

  private async latest(name: string): Promise<Recipe | undefined> {
    for await (const [, value] of this.store.scanRecords('recipes', { prefix: `${name}\u0000`, reverse: true, limit: 1 })) return value as unknown as Recipe;
    return undefined;
  }
}
