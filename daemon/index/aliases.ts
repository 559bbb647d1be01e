// Aliases: "term = equivalents" records that widen a query's keyword terms in one namespace.
// A single-token pair expands both ways ("k8s" ↔ "kubernetes"); a multi-token equivalent
// expands forward only ("pto" → "paid time off", never the reverse), so a common phrase does not
// drag an abbreviation into every query. Alias records are never embedded, never counted in
// document frequencies and never returned; retiring one stops its expansion.
import { terms } from './tokenizer.ts';

export interface Rule {
  aliasId: string;
  /** Every one of these terms must be in the query ... */
  when: string[];
  /** ... to add these. */
  add: string[];
}

export class AliasTable {
  private rules: Rule[] = [];

  get size(): number {
    return this.rules.length;
  }

  /** The rules as plain data (a snapshot); fromState restores them exactly. */
  toState(): Rule[] {
    return this.rules;
  }

  static fromState(rules: Rule[]): AliasTable {
    if (!Array.isArray(rules)) throw new Error('alias state: not a list of rules');
    const table = new AliasTable();
    table.rules = rules;
    return table;
  }

  /** The id of a stored alias that expands exactly as `term = equivalents` would, if any. */
  idSaying(term: string, equivalents: readonly string[]): string | undefined {
    const probe = new AliasTable();
    probe.add('', term, equivalents);
    const wanted = ruleKey(probe.rules);
    const byId = new Map<string, Rule[]>();
    for (const rule of this.rules) byId.set(rule.aliasId, [...(byId.get(rule.aliasId) ?? []), rule]);
    for (const [aliasId, rules] of byId) if (ruleKey(rules) === wanted) return aliasId;
    return undefined;
  }

  add(aliasId: string, term: string, equivalents: readonly string[]): void {
    const from = terms(term);
    if (from.length === 0) return;
    for (const equivalent of equivalents) {
      const to = terms(equivalent);
      if (to.length === 0) continue;
      this.rules.push({ aliasId, when: from, add: to });
      if (from.length === 1 && to.length === 1) this.rules.push({ aliasId, when: to, add: from });
    }
  }

  remove(aliasId: string): void {
    this.rules = this.rules.filter((r) => r.aliasId !== aliasId);
  }

  /** Terms to add to a query, sorted, excluding the ones it already has. One pass: expansions
   *  do not chain, so the effective query is predictable from the stored aliases. */
  expand(queryTerms: readonly string[]): string[] {
    const have = new Set(queryTerms);
    const added = new Set<string>();
    for (const rule of this.rules) {
      if (!rule.when.every((t) => have.has(t))) continue;
      for (const t of rule.add) if (!have.has(t)) added.add(t);
    }
    return [...added].sort();
  }
}

/** A set of rules as one comparable string (order-free). */
const ruleKey = (rules: readonly Rule[]): string =>
  rules
    .map((r) => `${r.when.join(' ')}>${r.add.join(' ')}`)
    .sort()
    .join('|');

/** How an alias record keeps its parts: in meta, so the text stays human-readable. */
export interface AliasMeta {
  alias_term: string;
  alias_equivalents: string[];
}

export const aliasText = (term: string, equivalents: readonly string[]): string => `${term} = ${equivalents.join(', ')}`;

export function parseAliasMeta(meta: string): AliasMeta | null {
  try {
    const parsed = JSON.parse(meta) as Partial<AliasMeta>;
    if (typeof parsed.alias_term === 'string' && Array.isArray(parsed.alias_equivalents)) return parsed as AliasMeta;
  } catch {
    /* not an alias record written by this version */
  }
  return null;
}
