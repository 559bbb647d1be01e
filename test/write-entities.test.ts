// With entity extraction on (--kg), every write that sets a fact's text names its entities alike:
// a remember, a batch, a revision through every door (the library, the CLI, REST, MCP
// memory_reflect update over stdio and HTTP), a cluster merge and a consolidation summary. A
// revision used to store its replacement with no entities, so the graph lost the current
// version of a fact.
import { describe, expect, test } from 'vitest';
import { useDoors } from './fixtures/doors.ts';
import { removeDir, startDaemon, tempDataDir } from './fixtures/daemon.ts';

const doors = useDoors(['--kg']);
const TEXT = 'Alice moved the standup in Paris to Friday.';

type Named = { entities: string[]; entityTypes: Record<string, string> };
const named = (f: Named): Named => ({ entities: f.entities, entityTypes: f.entityTypes });

/** The entities and their types a remember of `text` stores (with --kg): what every other write
 *  of that text must store. */
async function remembered(text = TEXT, client = doors.client): Promise<Named> {
  return named((await client.put('reference', text, { allowDuplicate: true })).fact);
}

/** Each door revises `id` into TEXT and answers the replacement's id. */
const REVISE: [string, (agent: string, id: string) => Promise<string>][] = [
  ['library', async (agent, id) => (await doors.client.revise(agent, [id], TEXT)).replacement.id],
  ['cli', async (agent, id) => (await doors.cli(['revise', agent, id, '--text', TEXT])).replacement.id],
  ['rest', async (agent, id) => (await doors.rest('POST', '/v1/revisions', { agent_id: agent, target_ids: [id], text: TEXT })).fact.id],
  ['mcp stdio', async (agent, id) => (await doors.stdio.ok<{ fact_id: string }>('memory_reflect', { action: 'update', agent_id: agent, target: id, text: TEXT })).fact_id],
  ['mcp http', async (agent, id) => (await doors.http.ok<{ fact_id: string }>('memory_reflect', { action: 'update', agent_id: agent, target: id, text: TEXT })).fact_id],
];

describe('entities of every write with extraction on', () => {
  test('a revision names the entities a remember of its text does, on every door, and the graph finds it by them', async () => {
    const expected = await remembered();
    expect(expected.entities).toEqual(expect.arrayContaining(['alice', 'paris']));
    for (const [name, revise] of REVISE) {
      const agent = `revise-${name.replace(' ', '-')}`;
      const old = (await doors.client.put(agent, 'The standup is on Monday.')).fact.id;
      const id = await revise(agent, old);
      const replacement = await doors.client.get(agent, id);
      expect(named(replacement), name).toEqual(expected);
      const around = await doors.client.readGraph(agent, { entity: 'paris' });
      expect(around.nodes.map((n) => n.id), name).toContain(id);
    }
  });

  test('entities the caller gives stand on a revision; a batch names them as a remember does', async () => {
    const old = (await doors.client.put('given', 'The standup is on Monday.')).fact.id;
    const { replacement } = await doors.client.revise('given', [old], TEXT, { entities: ['meetings'] });
    expect(replacement.entities).toEqual(['meetings']);
    const [item] = await doors.client.putBatch([{ agentId: 'batch', text: TEXT }]);
    expect(named(await doors.client.get('batch', item!.factId!))).toEqual(await remembered());
  });

  test('the legacy UpdateFact of a new text names its entities; entities a writer chose stand', async () => {
    const derived = (await doors.client.put('legacy-update', 'The standup is on Monday.')).fact;
    const updated = await doors.client.updateFact('legacy-update', { ...derived, text: TEXT });
    expect(named(updated)).toEqual(await remembered());
    expect((await doors.client.readGraph('legacy-update', { entity: 'paris' })).nodes.map((n) => n.id)).toContain(derived.id);

    const chosen = (await doors.client.put('legacy-update', 'The retro is on Monday.', { entities: ['meetings'] })).fact;
    expect((await doors.client.updateFact('legacy-update', { ...chosen, text: TEXT })).entities).toEqual(['meetings']);
  });

  test('a cluster merge keeps the types of its members\' entities', async () => {
    const a = (await doors.client.put('merge', 'Alice runs the standup in Paris.')).fact;
    const b = (await doors.client.put('merge', 'Alice runs the standup in Paris on Fridays.')).fact;
    const [cluster] = (await doors.client.clusterMemories('merge', { threshold: 0.5 })).clusters;
    expect(cluster!.memoryIds).toEqual([a.id, b.id]);
    const { factId } = await doors.client.consolidateMemories('merge', cluster!.id, { mode: 'apply' });
    const merged = await doors.client.get('merge', factId);
    expect(merged.entityTypes).toEqual({ ...a.entityTypes, ...b.entityTypes });
    expect(merged.entityTypes).toMatchObject({ alice: 'person', paris: 'place' });
  });

  test('facts written before extraction was on: their cluster merge and their consolidation summary name the entities of their text', async () => {
    const dataDir = tempDataDir();
    try {
      let daemon = await startDaemon({ dataDir });
      let client = await daemon.client();
      const pair = ['Alice runs the standup in Paris.', 'Alice runs the standup in Paris on Fridays.'];
      for (const text of pair) await client.put('merge', text);
      for (const text of ['Bob waters the plants in Berlin.', 'Carol feeds the cat in Rome.', 'Dave walks the dog in Oslo.']) await client.put('summary', text);
      expect((await client.list('merge')).facts.map((f) => f.entities)).toEqual([[], []]);
      client.close();
      await daemon.stop();

      daemon = await startDaemon({ dataDir, args: ['--kg', '--consolidate-below', '5', '--consolidate-every', '0'] });
      client = await daemon.client();
      const [cluster] = (await client.clusterMemories('merge', { threshold: 0.5 })).clusters;
      const merged = await client.get('merge', (await client.consolidateMemories('merge', cluster!.id, { mode: 'apply' })).factId);
      expect(merged.entities).toEqual(expect.arrayContaining(['alice', 'paris']));
      expect(named(merged)).toEqual(await remembered(merged.text, client));
      const { summary } = await client.consolidate('summary');
      expect(summary!.entities).toEqual(expect.arrayContaining(['bob', 'berlin']));
      expect(named(summary!)).toEqual(await remembered(summary!.text, client));
      client.close();
      await daemon.stop();
    } finally {
      removeDir(dataDir);
    }
  });
});
