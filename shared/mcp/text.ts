// The text content of tool results. MCP asks that text say the same as structuredContent, for
// hosts that show the model only text; wording may change, the structured payload is the contract.
import type { WeakMatch } from './backend.ts';
import type { BatchPayload, CheckpointResumePayload, ReceiptJson, SearchRetrieval, SearchPayload } from './payloads.ts';
import type { AppliedRecipeJson, EvidenceJson } from '../schemas/json-shapes.ts';
import { counted } from '../counted.ts';

const q = JSON.stringify;

/** The weak-match vocabulary block (the payload's `feedback`). */
export function feedbackText(f: WeakMatch, agentId: string): string {
  const lines = [`Weak match: only ${f.knownTerms} of ${f.queryTerms} query terms occur in this memory.`];
  if (f.unknownTerms.length) lines.push(`Unknown terms: ${f.unknownTerms.join(', ')}.`);
  if (f.nearbyTerms.length) {
    lines.push(`Nearby stored terms: ${f.nearbyTerms.join(', ')}.`);
    lines.push(
      `Search once more with those words; if ${q(f.unknownTerms[0] ?? '')} means one of them, record it with memory_alias ` +
        `(agent_id ${q(agentId)}, term ${q(f.unknownTerms[0] ?? '')}, equivalents [${q(f.nearbyTerms[0])}]).`,
    );
  } else {
    lines.push('Try other words, or record a synonym with memory_alias once you know the stored wording.');
  }
  return lines.join('\n');
}

export function retrievalText(r: SearchRetrieval): string {
  const filter = r.min_confidence ? `min_confidence ${r.min_confidence}` : 'no confidence filter';
  const kg = r.kg ? `; graph hints: ${r.kg}` : '';
  return `Ranking policy ${r.policy}: ${filter}, confidence_weight ${r.confidence_weight}; final score = base x (1 + weight x c)${kg}.`;
}

function receiptText(r: ReceiptJson, i: number): string {
  const lines = [`${i + 1}. ${r.text}`];
  lines.push(
    `   score ${r.weight.toFixed(6)} (fused ${r.ranks.fused_score.toFixed(6)} = vector #${r.ranks.vector_rank} / keyword #${r.ranks.keyword_rank} / recency #${r.ranks.recency_rank}${r.ranks.decay_rank ? ` / decay #${r.ranks.decay_rank}` : ''}${r.ranks.graph_rank ? ` / graph #${r.ranks.graph_rank}` : ''}, k ${r.ranks.k}) · age ${r.age_days.toFixed(1)} d`,
  );
  const p = r.provenance;
  lines.push(`   fact_id ${p.fact_id} · written ${p.written_at ?? 'unknown'} · confidence ${p.confidence || '(none)'}${p.pinned ? ' · pinned' : ''}`);
  if (r.ranking) {
    const k = r.ranking;
    lines.push(`   final score ${k.final_score} = base ${k.base_score} x factor ${k.factor} (effective confidence ${k.effective_confidence}, weight ${k.confidence_weight}, policy ${k.policy})`);
  }
  return lines.join('\n');
}

/** `matched`: per fact, whether a query signal matched it (undefined: the daemon did not say). */
export function searchText(p: SearchPayload, matched?: boolean[]): string {
  const parts: string[] = [];
  const who = `agent ${q(p.agent_id)}`;
  const label = (i: number) => (matched && !matched[i] ? ' (filler: no query signal matched it)' : '');
  const listed = p.explained
    ? p.explained.map((r, i) => receiptText(r, i) + label(i)).join('\n')
    : (p.facts ?? []).map((f, i) => `${i + 1}. ${f}${label(i)}${evidenceText(p.evidence?.[i])}`).join('\n');
  const hits = matched?.filter(Boolean).length;
  if (p.count === 0) parts.push(`No memories found for ${who} matching ${q(p.query)}.`);
  else if (hits === 0) parts.push(`Nothing in the memory of ${who} matched ${q(p.query)}. The ${p.count} facts below only fill top_k; do not treat them as answers:\n\n${listed}`);
  else if (hits !== undefined && hits < p.count) parts.push(`Found ${counted(p.count, 'memory', 'memories')} for ${who}: ${hits} matched the query, the rest only fill top_k${p.explained ? ' (with receipts)' : ''}:\n\n${listed}`);
  else parts.push(`Found ${counted(p.count, 'relevant memory', 'relevant memories')} for ${who}${p.explained ? ' (with receipts)' : ''}:\n\n${listed}`);
  if (p.kg_hints?.length) parts.push(`Related (knowledge graph; no confidence receipts):\n${p.kg_hints.map((h) => `- ${h.label} (${h.relation})`).join('\n')}`);
  if (p.feedback) parts.push(p.feedback);
  if (p.retrieval) parts.push(retrievalText(p.retrieval));
  if (p.recipe) parts.push(recipeText(p.recipe));
  return parts.join('\n\n');
}

const evidenceText = (list: EvidenceJson[] | undefined): string =>
  (list ?? []).map((e) => `\n   evidence (${e.kind}) ${e.ref}${e.text ? `: ${e.text}` : ''}${e.retired ? ' [retired]' : ''}`).join('');

/** "Recipe deep@2: 80 keyword and 80 vector candidates, graph depth 2, reranker term-coverage-v1." */
export const recipeText = (r: AppliedRecipeJson): string =>
  `Recipe ${r.id}: ${r.lexical_top_k} keyword and ${r.vector_top_k} vector candidates, graph depth ${r.graph_depth}, reranker ${r.reranker || 'off'}${r.verified_only ? ', verified facts only' : r.prefer_verified ? ', verified facts preferred' : ''}${r.include_evidence ? ', with evidence' : ''}.`;

export function batchText(p: BatchPayload): string {
  const parts = [
    p.count === 0
      ? `No memories found for agent ${q(p.agent_id)} for any of ${p.per_query.length} queries.`
      : `Merged: ${p.count} distinct memories for agent ${q(p.agent_id)}:\n${p.merged.map((f, i) => `${i + 1}. ${f}`).join('\n')}`,
  ];
  for (const r of p.per_query) {
    if (r.error) parts.push(`Query ${q(r.query)} failed: ${r.error}`);
    else parts.push(`Query ${q(r.query)}: ${r.facts?.length ? `\n${r.facts.map((f, i) => `${i + 1}. ${f}`).join('\n')}` : 'no memories found.'}`);
  }
  if (p.retrieval) parts.push(retrievalText(p.retrieval));
  return parts.join('\n\n');
}

export function resumeText(p: CheckpointResumePayload): string {
  if ('found' in p) return `No checkpoint saved for agent ${q(p.agent_id)} yet.`;
  const lines = [`Checkpoint ${q(p.id)} created ${p.created_at}.`];
  if (p.state) lines.push(`State:\n${JSON.stringify(p.state, null, 2)}`);
  if (p.message_count !== undefined) lines.push(`Messages: ${p.message_count}`);
  return lines.join('\n');
}
