// Fact extraction: from a message or a conversation, the durable facts it states, proposed — and,
// when asked, remembered as `unverified` facts whose source names the extractor. The rules run
// offline by default; a chat model (Ollama, OpenAI-compatible) when the daemon is configured so.
import type { ExtractedFactResult, ExtractResult } from '../../shared/model.ts';
import { invalidArgument } from '../../shared/errors.ts';
import * as check from '../../shared/validate.ts';
import type { Limits } from '../../shared/validate.ts';
import type { Extractor } from '../extract/llm.ts';
import { extractByRules, type Turn } from '../extract/rules.ts';
import { loadNlp } from '../analysis/nlp.ts';
import type { CallContext } from './context.ts';
import type { BatchItemInput, BatchSlot } from './writes.ts';

export type { ExtractResult } from '../../shared/model.ts';

export const MAX_TURNS = 500;

export const rulesExtractor: Extractor = {
  id: 'rules',
  extract: async (turns) => {
    await loadNlp();
    return { facts: extractByRules(turns) };
  },
};

export interface ExtractInput {
  agentId: unknown;
  message?: unknown;
  turns?: unknown;
  remember?: unknown;
}

function checkTurns(input: ExtractInput, limits: Limits): Turn[] {
  if ((input.message === undefined) === (input.turns === undefined)) throw invalidArgument('message', 'give a message or the turns of a conversation (one of them)');
  if (input.message !== undefined) return [{ text: check.factText(input.message, limits, 'message') }];
  if (!Array.isArray(input.turns) || input.turns.length === 0 || input.turns.length > MAX_TURNS) throw invalidArgument('turns', `must be a list of 1 to ${MAX_TURNS} turns`);
  return input.turns.map((t, i) => {
    const turn = t as { speaker?: unknown; text?: unknown } | null;
    if (turn === null || typeof turn !== 'object') throw invalidArgument(`turns[${i}]`, 'must be an object {speaker?, text}');
    const speaker = turn.speaker === undefined || turn.speaker === '' ? undefined : check.source(turn.speaker, `turns[${i}].speaker`);
    return { text: check.factText(turn.text, limits, `turns[${i}].text`), ...(speaker ? { speaker } : {}) };
  });
}

export async function extractFacts(
  ctx: CallContext,
  input: ExtractInput,
  deps: { extractor: Extractor; limits: Limits; putBatch: (ctx: CallContext, input: { items: BatchItemInput[] }) => Promise<BatchSlot[]> },
): Promise<ExtractResult> {
  const agentId = check.agentId(input.agentId);
  const turns = checkTurns(input, deps.limits);
  const remember = input.remember === undefined ? false : check.boolean(input.remember, 'remember');
  const extraction = await deps.extractor.extract(turns);
  if (extraction.rejected !== undefined) return { extractor: deps.extractor.id, facts: [], rejected: extraction.rejected, stored: 0 };
  const facts = extraction.facts.map((f) => ({ text: f.text, kind: f.kind, entities: f.entities }));
  if (!remember || facts.length === 0) return { extractor: deps.extractor.id, facts, stored: 0 };
  const source = `extracted:${deps.extractor.id}`;
  const items = facts.map((f) => ({ agentId, text: f.text, confidence: 'unverified', source, tags: ['extracted', f.kind], entities: f.entities }));
  const slots = await deps.putBatch(ctx, { items });
  const results = facts.map((f, i): ExtractedFactResult => {
    const slot = slots[i]!;
    return slot.error ? { ...f, error: slot.error.message } : { ...f, factId: slot.result.fact.id, duplicate: slot.result.duplicate };
  });
  return { extractor: deps.extractor.id, facts: results, stored: results.filter((r) => r.factId && !r.duplicate).length };
}
