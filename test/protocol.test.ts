// Every RPC of protocol v1, end to end: client library → unix socket → real daemon process.
import { describe, expect, test } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { createServiceClient } from '../shared/grpc/bridge.ts';
import { Health, HealthCheckResponse_ServingStatus } from '../shared/gen/grpc/health/v1/health_pb.ts';
import { useDaemon } from './fixtures/daemon.ts';

const env = useDaemon({ embedder: 'local' });

describe('handshake', () => {
  test('Hello advertises protocol, version, instance, sorted capabilities and limits', () => {
    const info = env.client.daemon;
    expect(info.protocol).toBe('engram.v1');
    expect(info.daemonVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(info.instanceId).toBe(env.daemon.discovery.instanceId);
    expect(info.capabilities).toEqual([...info.capabilities].sort());
    expect(info.capabilities).toContain('idempotent-write-v1');
    expect(info.defaultConfidenceWeight).toBeUndefined();
    expect(info.limits).toEqual({ maxTextBytes: 32768, maxTopK: 1000, maxBatch: 64, maxWriteBatch: 1000, maxSlotValueBytes: 16384, maxBatchResults: 16384, maxBatchQueryBytes: 262144 });
    expect(info.embedder).toBe('local:wink-sg-100d-sif-v1');
    expect(info.defaultWeights).toEqual({ vector: 0.2, keyword: 1, recency: 0.5, decay: 0, graph: 0 });
  });

  test('the standard grpc.health.v1 service reports SERVING; an unknown service is NOT_FOUND naming the field', async () => {
    const raw = new grpc.Client(env.daemon.discovery.address, grpc.credentials.createInsecure());
    const health = createServiceClient(Health, raw);
    expect((await health.check({ service: '' })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    expect((await health.check({ service: 'engram.v1.MemoryService' })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    await expect(health.check({ service: 'engram.v1.Nothing' })).rejects.toMatchObject({ kind: 'not_found', field: 'service', message: 'service: unknown service "engram.v1.Nothing"' });
    raw.close();
  });
});

describe('MemoryService round trip', () => {
  test('Put returns the committed fact with every record field', async () => {
    const { fact, replayed } = await env.client.put('rt-put', 'The staging database runs Postgres 16', {
      tags: ['infra', 'db'],
      source: 'runbook',
      context: 'from the March migration notes',
      meta: { ticket: 42 },
      occurredAt: Date.UTC(2024, 2, 1),
    });
    expect(replayed).toBe(false);
    expect(fact.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(fact).toMatchObject({
      agentId: 'rt-put',
      text: 'The staging database runs Postgres 16',
      tags: ['infra', 'db'],
      source: 'runbook',
      context: 'from the March migration notes',
      meta: { ticket: 42 },
      occurredAt: Date.UTC(2024, 2, 1),
      kind: 'fact',
      pinned: false,
      accessCount: 0,
      strength: 1,
      embedder: 'local:wink-sg-100d-sif-v1',
    });
    // Absent values are undefined, not "" or 0.
    expect([fact.confidence, fact.supersededBy, fact.pinnedAt, fact.lastAccessedAt]).toEqual([undefined, undefined, undefined, undefined]);
    expect(Math.abs(fact.createdAt - Date.now())).toBeLessThan(60_000);
    expect(await env.client.get('rt-put', fact.id)).toEqual(fact);
  });

  test('PutShared writes to __shared__, visible to RecallShared', async () => {
    const { fact } = await env.client.putShared('Office wifi password rotates on Mondays');
    expect(fact.agentId).toBe('__shared__');
    const { facts } = await env.client.recallShared('wifi password');
    expect(facts.map((f) => f.id)).toContain(fact.id);
  });

  test('Recall, RecallExplain and RecallAll return ranked facts with retrieval metadata', async () => {
    await env.client.put('rt-recall', 'Mia prefers window seats on long flights');
    await env.client.put('rt-recall', 'The build server is called hopper');
    const recall = await env.client.recall('rt-recall', 'window seat flight');
    expect(recall.facts[0]!.text).toBe('Mia prefers window seats on long flights');
    expect(recall.retrieval).toMatchObject({ signals: ['vector', 'keyword', 'recency'], rrfK: 60, weights: env.client.daemon.defaultWeights });
    const explain = await env.client.recallExplain('rt-recall', 'window seat flight');
    expect(explain.receipts.map((r) => r.fact.id)).toEqual(recall.facts.map((f) => f.id));
    const all = await env.client.recallAll('rt-recall', 'wifi password');
    expect(all.facts.some((f) => f.agentId === '__shared__')).toBe(true);
  });

  test('List pages through a namespace oldest first; ListAgents names every namespace', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await env.client.put('rt-list', `list item number ${i}`)).fact.id);
    const first = await env.client.list('rt-list', { pageSize: 2 });
    expect(first.facts.map((f) => f.id)).toEqual(ids.slice(0, 2));
    expect(first.nextPageToken).not.toBe('');
    const all: string[] = [];
    for await (const fact of env.client.listAll('rt-list', 2)) all.push(fact.id);
    expect(all).toEqual(ids);
    expect(await env.client.listAgents()).toEqual(expect.arrayContaining(['rt-list', 'rt-put', '__shared__']));
  });

  test('Stats counts one namespace or the whole store', async () => {
    await env.client.put('rt-stats', 'alpha fact');
    const { fact } = await env.client.put('rt-stats', 'beta fact');
    await env.client.forget('rt-stats', fact.id);
    const one = await env.client.stats('rt-stats');
    expect(one).toMatchObject({ factCount: 2, liveCount: 1, retiredCount: 1, agentCount: 1 });
    const whole = await env.client.stats();
    expect(whole.factCount).toBeGreaterThan(one.factCount);
    expect(whole.agentCount).toBeGreaterThan(1);
  });

  test('UpdateFact replaces mutable fields and keeps identity; the new text is what recall finds', async () => {
    const { fact } = await env.client.put('rt-update', 'The cat is named Biscuit');
    const updated = await env.client.updateFact('rt-update', { ...fact, text: 'The cat is named Pancake', tags: ['pets'], pinned: true });
    expect(updated).toMatchObject({ id: fact.id, createdAt: fact.createdAt, text: 'The cat is named Pancake', tags: ['pets'], pinned: true });
    expect(updated.pinnedAt).toBeGreaterThan(0);
    expect(updated.updatedAt).toBeGreaterThanOrEqual(fact.updatedAt);
    const found = await env.client.recall('rt-update', 'Pancake');
    expect(found.facts[0]!.id).toBe(fact.id);
    const explain = await env.client.recallExplain('rt-update', 'Biscuit');
    expect(explain.receipts.every((r) => r.ranks.keywordRank === 0)).toBe(true);
  });

  test('Delete removes a fact for good; Get then answers NOT_FOUND', async () => {
    const { fact } = await env.client.put('rt-delete', 'temporary note');
    const deleted = await env.client.delete('rt-delete', fact.id);
    expect(deleted.id).toBe(fact.id);
    await expect(env.client.get('rt-delete', fact.id)).rejects.toMatchObject({ kind: 'not_found' });
    expect((await env.client.list('rt-delete')).facts).toEqual([]);
  });

  test('forget retires a fact: gone from recall, still listed with superseded_by "agent"', async () => {
    const { fact } = await env.client.put('rt-forget', 'The old VPN endpoint is vpn1.example.com');
    await env.client.forget('rt-forget', fact.id);
    expect((await env.client.recall('rt-forget', 'VPN endpoint')).facts).toEqual([]);
    const listed = (await env.client.list('rt-forget')).facts;
    expect(listed).toHaveLength(1);
    expect(listed[0]!.supersededBy).toBe('agent');
  });

  test('recall updates access count and last access on the returned facts', async () => {
    const { fact } = await env.client.put('rt-access', 'Lunch is at noon on Fridays');
    await env.client.recall('rt-access', 'lunch');
    await env.client.recall('rt-access', 'lunch');
    const after = await env.client.get('rt-access', fact.id);
    expect(after.accessCount).toBe(2);
    expect(after.lastAccessedAt).toBeGreaterThanOrEqual(fact.createdAt);
  });
});

describe('AdminService', () => {
  test('Doctor streams progress then a healthy report; --rebuild keeps it healthy', async () => {
    const events = [];
    for await (const event of env.client.doctor()) events.push(event);
    expect(events.some((e) => e.progress)).toBe(true);
    const report = events.at(-1)!.report!;
    expect(report.healthy).toBe(true);
    expect(report.checks.map((c) => c.name)).toEqual(['keyword postings', 'recency', 'vectors', 'in-memory keyword and recency indexes', 'vector index', 'knowledge graph', 'write-ahead log', 'consolidation']);
    let rebuilt;
    for await (const event of env.client.doctor({ rebuild: true })) if (event.report) rebuilt = event.report;
    expect(rebuilt).toMatchObject({ healthy: true, rebuilt: true });
    expect((await env.client.recall('rt-recall', 'window seat flight')).facts[0]!.text).toBe('Mia prefers window seats on long flights');
  });
});
