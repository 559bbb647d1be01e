// Storage maintenance through the library, the CLI and REST against one real daemon: statistics
// table by table with hints, and a compaction that keeps every fact and reports the bytes.
import { describe, expect, test } from 'vitest';
import { useDoors } from './fixtures/doors.ts';

const doors = useDoors();

describe('engram maintenance', () => {
  test('stats count each table and hint at collection when many facts are retired; compact keeps every fact', async () => {
    const { client } = doors;
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await client.put('maint', `maintenance note ${i}`)).fact.id);
    for (const id of ids.slice(0, 4)) await client.forget('maint', id);
    for (const id of ids.slice(4, 6)) await client.delete('maint', id);

    const stats = await client.storageStats();
    expect(stats).toMatchObject({ factCount: 8, retiredCount: 4 });
    const table = Object.fromEntries(stats.tables.map((t) => [t.name, t]));
    expect(table.facts!.entries).toBe(8);
    expect(table.postings!.entries).toBe(4); // only live facts keep keyword rows
    expect(stats.hints.join('\n')).toMatch(/4 of 8 facts are retired \(50 %\)/);
    expect(stats.storeBytes).toBeGreaterThan(0);

    const cli = await doors.cli(['maintenance', 'stats']);
    expect(cli).toMatchObject({ fact_count: 8, retired_count: 4, hints: stats.hints });
    const rest = await doors.rest('GET', '/v1/maintenance/stats');
    expect(rest).toMatchObject({ fact_count: 8, retired_count: 4 });
    expect(rest.tables.map((t: { name: string }) => t.name)).toEqual(stats.tables.map((t) => t.name));

    const compacted = await client.compact();
    expect(compacted.bytesBefore).toBeGreaterThan(0);
    expect(compacted.bytesAfter).toBeGreaterThan(0);
    expect(await doors.cli(['maintenance', 'compact'])).toMatchObject({ bytes_before: expect.any(Number), bytes_after: expect.any(Number) });
    expect(await doors.rest('POST', '/v1/maintenance/compact', {})).toMatchObject({ bytes_after: expect.any(Number) });
    expect((await client.list('maint')).facts.map((f) => f.id)).toEqual([...ids.slice(0, 4), ...ids.slice(6)]);
    expect((await client.recall('maint', 'maintenance note 9', { topK: 1 })).facts[0]!.id).toBe(ids[9]);
  });
});
