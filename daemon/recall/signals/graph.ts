// Graph: the facts linked to the query's entities. An entity the namespace knows (a label some
// live fact names) that the query mentions — as a word or a phrase of up to three words — ranks
// the facts naming it, rarer entities weighing more (idf); the live facts those facts relate to,
// either way, follow at half that weight (one hop, so "who did the person Ana met work for"
// reaches a fact that names neither; a recipe's graph_depth sets how many hops, each halving
// again). Weight 0 by default.
import { entityKey } from '../../index/graph.ts';
import type { NamespaceIndex } from '../../index/namespace.ts';
import type { MatchSignal, NamespaceQuery } from '../signal.ts';

const MAX_PHRASE = 3;
const HOP = 0.5;
/** An entity named by more than this share of the namespace's facts (a speaker's name in a chat
 *  log) says nothing about which fact is meant: it is skipped, as stopwords are. */
const COMMON_ENTITY_SHARE = 0.02;
/** ...but in a small namespace an entity naming a handful of facts still discriminates. */
const MIN_COMMON = 10;

/** The query's words and phrases (up to three words), as entity keys. */
function phrases(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}.+#'-]*/gu) ?? [];
  const out = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    for (let n = 1; n <= MAX_PHRASE && i + n <= words.length; n++) out.add(entityKey(words.slice(i, i + n).join(' ').replace(/['.]+$/u, '')));
  }
  return [...out];
}

function scores(ns: NamespaceIndex, text: string, eligible: (doc: number) => boolean, hops: number): Map<number, number> {
  const total = ns.size;
  const direct = new Map<number, number>();
  for (const phrase of phrases(text)) {
    const naming = ns.graph.naming(phrase);
    if (naming.size === 0 || naming.size > Math.max(MIN_COMMON, total * COMMON_ENTITY_SHARE)) continue;
    const idf = Math.log(1 + total / naming.size);
    for (const doc of naming) if (eligible(doc)) direct.set(doc, (direct.get(doc) ?? 0) + idf);
  }
  // Breadth first: each hop reaches the facts related to the last hop's, at half its score; a
  // fact keeps the score of the shortest way to it.
  const out = new Map(direct);
  let frontier = direct;
  for (let hop = 0; hop < hops && frontier.size > 0; hop++) {
    const next = new Map<number, number>();
    for (const [doc, score] of frontier) {
      const info = ns.doc(doc);
      const neighbours = [...info.relations.map((r) => ns.docOf(r.targetId)), ...ns.graph.linksTo(info.factId).keys()];
      for (const other of neighbours) {
        if (other === undefined || out.has(other) || !eligible(other)) continue;
        next.set(other, Math.max(next.get(other) ?? 0, score * HOP));
      }
    }
    for (const [doc, score] of next) out.set(doc, score);
    frontier = next;
  }
  return out;
}

export const graphSignal = {
  name: 'graph',
  kind: 'match',
  applies: (query: Pick<NamespaceQuery, 'terms' | 'vector'>) => query.terms.length > 0,
  async rank({ ns, query, filter, hops }) {
    const eligible = filter ? (doc: number) => filter(ns.doc(doc)) : () => true;
    const rows = [...scores(ns, query.text, eligible, hops)].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    const ranks = new Map(rows.map(([doc], i) => [doc, i + 1]));
    return { ranks, matched: new Set(ranks.keys()), searched: ns.graph.entityCount };
  },
} as const satisfies MatchSignal;
