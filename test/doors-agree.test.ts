// One write and one recall through every front door (the library, the CLI, REST, MCP over stdio
// and over HTTP), against one real daemon: each stores the same fields, answers an identical
// second write as a duplicate of the first, returns the same facts in the same order with the
// same matched/filler flags, and forgets and deletes alike.
import { describe, expect, test } from 'vitest';
import { useDoors } from './fixtures/doors.ts';
import type { McpSession } from './fixtures/mcp.ts';

/** The write every door sends, in the snake_case the JSON doors speak. */
const WRITE = {
  text: 'Alice prefers green tea in the morning',
  occurred_at: '2024-05-08T07:30:00.000Z',
  tags: ['preferences', 'drinks'],
  entities: ['Alice'],
  source: 'onboarding chat',
  context: 'asked about the office kitchen',
  meta: { channel: 'slack', turn: 3 },
  confidence: 'verified',
} as const;
const FILLERS = ['The build server is called hopper', 'Deploys happen on Tuesdays'];

interface Door {
  /** Stores a fact; says its id and whether it was already remembered. */
  write(agent: string, w: typeof WRITE | { text: string }): Promise<{ id: string; duplicate: boolean }>;
  /** Fact texts best first, with whether the query matched each. */
  recall(agent: string, query: string, topK: number): Promise<{ text: string; matched: boolean }[]>;
  forget(agent: string, id: string): Promise<void>;
  delete(agent: string, id: string): Promise<void>;
}

const doors = useDoors();

const library: Door = {
  async write(agent, w) {
    const options = 'tags' in w ? { occurredAt: Date.parse(w.occurred_at), tags: [...w.tags], entities: [...w.entities], source: w.source, context: w.context, meta: { ...w.meta }, confidence: w.confidence } : {};
    const { fact, duplicate } = await doors.client.put(agent, w.text, options);
    return { id: fact.id, duplicate };
  },
  async recall(agent, query, topK) {
    const { facts, matches } = await doors.client.recall(agent, query, { topK });
    return facts.map((f, i) => ({ text: f.text, matched: matches![i]!.matched }));
  },
  forget: async (agent, id) => void (await doors.client.forget(agent, id)),
  delete: async (agent, id) => void (await doors.client.delete(agent, id)),
};

const cli = (args: string[]) => doors.cli(args);

const cliDoor: Door = {
  async write(agent, w) {
    const flags = 'tags' in w
      ? ['--occurred-at', w.occurred_at, ...w.tags.flatMap((t) => ['--tag', t]), ...w.entities.flatMap((e) => ['--entity', e]), '--source', w.source, '--context', w.context, '--meta', JSON.stringify(w.meta), '--confidence', w.confidence]
      : [];
    const out = await cli(['remember', agent, w.text, ...flags]);
    return { id: out.fact.id, duplicate: out.duplicate };
  },
  async recall(agent, query, topK) {
    const out = await cli(['recall', agent, query, '-k', String(topK)]);
    return out.facts.map((f: { text: string }, i: number) => ({ text: f.text, matched: out.matches[i].matched }));
  },
  forget: async (agent, id) => void (await cli(['forget', agent, id])),
  delete: async (agent, id) => void (await cli(['delete', agent, id])),
};

const rest = (method: string, path: string, body?: unknown) => doors.rest(method, path, body);

const restDoor: Door = {
  async write(agent, w) {
    const out = await rest('POST', '/v1/facts', { agent_id: agent, ...w });
    return { id: out.fact.id, duplicate: out.duplicate };
  },
  async recall(agent, query, topK) {
    const out = await rest('GET', `/v1/recall?${new URLSearchParams({ agent_id: agent, query, top_k: String(topK) })}`);
    return out.facts.map((f: { text: string }, i: number) => ({ text: f.text, matched: out.matches[i].matched }));
  },
  forget: async (agent, id) => void (await rest('POST', `/v1/facts/${id}/forget`, { agent_id: agent })),
  delete: async (agent, id) => void (await rest('DELETE', `/v1/facts/${id}?agent_id=${encodeURIComponent(agent)}`)),
};

const mcpDoor = (session: () => McpSession): Door => ({
  async write(agent, w) {
    const out = await session().ok('memory_add', { agent_id: agent, ...w });
    return { id: out.fact_id as string, duplicate: out.duplicate as boolean };
  },
  async recall(agent, query, topK) {
    const out = await session().ok('memory_search', { agent_id: agent, query, top_k: topK, explain: true });
    return (out.explained as { text: string; matched: boolean }[]).map((r) => ({ text: r.text, matched: r.matched }));
  },
  forget: async (agent, id) => void (await session().ok('memory_forget', { agent_id: agent, fact_id: id })),
  delete: async (agent, id) => void (await session().ok('memory_delete', { agent_id: agent, fact_id: id })),
});

const DOORS: [string, Door][] = [
  ['library', library],
  ['cli', cliDoor],
  ['rest', restDoor],
  ['mcp stdio', mcpDoor(() => doors.stdio)],
  ['mcp http', mcpDoor(() => doors.http)],
];

/** The stored fields a write decides, read back through the library. */
async function storedFields(agent: string, id: string) {
  const f = await doors.client.get(agent, id);
  return { text: f.text, occurredAt: f.occurredAt, tags: f.tags, entities: f.entities, source: f.source, context: f.context, meta: f.meta, confidence: f.confidence, kind: f.kind };
}

const outcomes = new Map<string, unknown>();

describe.each(DOORS)('through %s', (name, door) => {
  const agent = `doors-${name.replace(' ', '-')}`;

  test('write, duplicate write, recall, forget and delete', async () => {
    const { id, duplicate } = await door.write(agent, WRITE);
    expect(duplicate).toBe(false);
    for (const text of FILLERS) await door.write(agent, { text });
    const again = await door.write(agent, WRITE);
    expect(again).toEqual({ id, duplicate: true });
    const stored = await storedFields(agent, id);
    const recalled = await door.recall(agent, 'green tea', 3);
    await door.forget(agent, id);
    const forgotten = (await doors.client.get(agent, id)).supersededBy;
    const afterForget = await door.recall(agent, 'green tea', 3);
    await door.delete(agent, id);
    await expect(doors.client.get(agent, id)).rejects.toMatchObject({ kind: 'not_found' });
    outcomes.set(name, { stored, recalled, forgotten, afterForget, count: (await doors.client.stats(agent)).factCount });
  });
});

test('every door stored the same fields and gave the same answers', () => {
  expect([...outcomes.keys()]).toEqual(DOORS.map(([name]) => name));
  const reference = outcomes.get('library') as { stored: unknown; recalled: { text: string; matched: boolean }[] };
  expect(reference.stored).toEqual({
    text: WRITE.text,
    occurredAt: Date.parse(WRITE.occurred_at),
    tags: ['preferences', 'drinks'],
    entities: ['Alice'],
    source: 'onboarding chat',
    context: 'asked about the office kitchen',
    meta: { channel: 'slack', turn: 3 },
    confidence: 'verified',
    kind: 'fact',
  });
  expect(reference.recalled[0]).toEqual({ text: WRITE.text, matched: true });
  expect(reference.recalled.slice(1).map((r) => r.matched)).toEqual([false, false]);
  for (const [name, outcome] of outcomes) expect(outcome, name).toEqual(outcomes.get('library'));
});

/** A batch whose middle fact has a value a rule refuses (an empty tag), through every door that
 *  takes a batch: each stores the other two and refuses that one in its own slot, naming the
 *  field as the door's caller sent it (items[1]… or facts[1]…) and saying the same of it. */
const BATCH = [
  { text: 'The canteen opens at noon', tags: ['food'] },
  { text: 'An empty tag labels nothing', tags: ['food', ''] },
  { text: 'The canteen closes at three', tags: ['food'] },
];

/** One per fact: stored, or the refusal with the door's own item prefix taken off. */
type Slot = { stored: true } | { refused: string };
const slotOf = (prefix: RegExp) => (error: string | undefined): Slot => {
  if (error === undefined) return { stored: true };
  expect(error).toMatch(prefix);
  return { refused: error.replace(prefix, '') };
};

const mcpBatch = (session: () => McpSession) => async (agent: string) => {
  const out = await session().ok<{ results: { error?: string }[] }>('memory_add_batch', { agent_id: agent, facts: BATCH });
  return out.results.map((r) => slotOf(/^facts\[\d\]\./)(r.error));
};

const BATCH_DOORS: [string, (agent: string) => Promise<Slot[]>][] = [
  ['library', async (agent) => (await doors.client.putBatch(BATCH.map((f) => ({ agentId: agent, ...f })))).map((r) => slotOf(/^items\[\d\]\./)(r.error?.message))],
  ['rest', async (agent) => {
    const out = await rest('POST', '/v1/facts/batch', { items: BATCH.map((f) => ({ agent_id: agent, ...f })) });
    return out.results.map((r: { error?: { message: string; field: string } }) => {
      if (r.error) expect(r.error.field).toBe('items[1].tags[1]');
      return slotOf(/^items\[\d\]\./)(r.error?.message);
    });
  }],
  ['mcp stdio', mcpBatch(() => doors.stdio)],
  ['mcp http', mcpBatch(() => doors.http)],
];

test.each(BATCH_DOORS)('a batch through %s stores the good facts and refuses the one with an empty tag in its own slot, as every other door does', async (name, send) => {
  const agent = `doors-batch-${name.replace(' ', '-')}`;
  expect(await send(agent)).toEqual([{ stored: true }, { refused: 'tags[1]: must not be empty' }, { stored: true }]);
  expect((await doors.client.list(agent)).facts.map((f) => f.text).sort()).toEqual(['The canteen closes at three', 'The canteen opens at noon']);
});
