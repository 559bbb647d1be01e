// The input rules (shared/validate.ts), as enforced BY THE DAEMON. The client library checks the
// same rules early, so these tests bypass it: raw protocol requests over the unix socket, and for
// invalid UTF-8 raw bytes. Every rejection must be INVALID_ARGUMENT (or the documented status),
// name the offending field, and leave the store exactly as it was.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { createServiceClient, RpcError, type ClientOf } from '../shared/grpc/bridge.ts';
import { MemoryService, PutRequestSchema, PutResponseSchema } from '../shared/gen/engram/v1/memory_pb.ts';
import type { Fact } from '../shared/gen/engram/v1/fact_pb.ts';
import { removeDir, startDaemon, type DaemonProcess } from './fixtures/daemon.ts';
import { expectStatus, rejectionOf } from './fixtures/errors.ts';

let daemon: DaemonProcess;
let raw: grpc.Client;
let memory: ClientOf<typeof MemoryService>;

beforeAll(async () => {
  daemon = await startDaemon({ embedder: 'none' });
  raw = new grpc.Client(daemon.discovery.address, grpc.credentials.createInsecure());
  memory = createServiceClient(MemoryService, raw);
});

afterAll(async () => {
  raw?.close();
  await daemon?.stop();
  if (daemon) removeDir(daemon.dataDir);
});

// A well-formed fact id that no fact has (26 characters of Crockford base32).
const UNKNOWN_ID = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
const PUT_PATH = '/engram.v1.MemoryService/Put';

/** The call fails with INVALID_ARGUMENT and the error names `field` (metadata and message). */
async function expectInvalid(call: Promise<unknown>, field: string): Promise<RpcError> {
  const error = await expectStatus(call, grpc.status.INVALID_ARGUMENT, field);
  expect(error.kind).toBe('invalid_argument');
  return error;
}

/** What the whole store holds: compared before and after a rejected call. */
async function snapshot() {
  const s = await memory.stats({});
  return {
    facts: s.factCount,
    live: s.liveCount,
    retired: s.retiredCount,
    textBytes: s.textBytes,
    agents: (await memory.listAgents({})).agentIds,
  };
}

/** Runs `work` and asserts the store is unchanged afterwards. */
async function expectNothingWritten(work: () => Promise<unknown>): Promise<void> {
  const before = await snapshot();
  await work();
  expect(await snapshot()).toEqual(before);
}

async function put(agentId: string, text: string, requestId = ''): Promise<Fact> {
  const res = await memory.put({ agentId, text, requestId });
  return res.fact!;
}

async function listIds(agentId: string): Promise<string[]> {
  return (await memory.list({ agentId, pageSize: 1000 })).facts.map((f) => f.id);
}

describe('agent_id', () => {
  test('empty is rejected by every method that takes one, and nothing is written', async () => {
    await expectNothingWritten(async () => {
      await expectInvalid(memory.put({ agentId: '', text: 'a fact' }), 'agent_id');
      await expectInvalid(memory.recall({ agentId: '', query: 'fact' }), 'agent_id');
      await expectInvalid(memory.recallAll({ agentId: '', query: 'fact' }), 'agent_id');
      await expectInvalid(memory.recallExplain({ agentId: '', query: 'fact' }), 'agent_id');
      await expectInvalid(memory.get({ agentId: '', factId: UNKNOWN_ID }), 'agent_id');
      await expectInvalid(memory.delete({ agentId: '', factId: UNKNOWN_ID }), 'agent_id');
      await expectInvalid(memory.list({ agentId: '' }), 'agent_id');
      await expectInvalid(memory.stats({ agentId: '' }), 'agent_id');
    });
  });

  test('all-whitespace is rejected', async () => {
    await expectNothingWritten(async () => {
      const error = await expectInvalid(memory.put({ agentId: ' \t\n ', text: 'a fact' }), 'agent_id');
      expect(error.message).toMatch(/whitespace/);
    });
  });

  test('exactly 256 UTF-8 bytes of multibyte characters is accepted', async () => {
    const agentId = '€'.repeat(85) + 'a'; // 86 characters, 256 bytes
    expect(Buffer.byteLength(agentId)).toBe(256);
    const fact = await put(agentId, 'at the agent id limit');
    expect(fact.agentId).toBe(agentId);
    expect(await listIds(agentId)).toEqual([fact.id]);
  });

  test('257 UTF-8 bytes is rejected even though it is only 87 characters', async () => {
    const agentId = '€'.repeat(85) + 'ab';
    expect(Buffer.byteLength(agentId)).toBe(257);
    await expectNothingWritten(async () => {
      const error = await expectInvalid(memory.put({ agentId, text: 'over the agent id limit' }), 'agent_id');
      expect(error.message).toMatch(/256/);
    });
  });

  test('containing NUL is rejected', async () => {
    await expectNothingWritten(async () => {
      const error = await expectInvalid(memory.put({ agentId: 'nul\u0000agent', text: 'a fact' }), 'agent_id');
      expect(error.message).toMatch(/NUL/);
    });
  });

  test('is never trimmed: " trim-ns " and "trim-ns" are distinct namespaces', async () => {
    const padded = await put(' trim-ns ', 'written to the padded namespace');
    const bare = await put('trim-ns', 'written to the bare namespace');
    expect(padded.agentId).toBe(' trim-ns ');
    expect(bare.agentId).toBe('trim-ns');
    expect(await listIds(' trim-ns ')).toEqual([padded.id]);
    expect(await listIds('trim-ns')).toEqual([bare.id]);
    const recalled = await memory.recall({ agentId: 'trim-ns', query: 'namespace' });
    expect(recalled.facts.map((f) => f.id)).toEqual([bare.id]);
    const cross = await rejectionOf(memory.get({ agentId: 'trim-ns', factId: padded.id }), RpcError);
    expect(cross.grpcCode).toBe(grpc.status.NOT_FOUND);
    const agents = (await memory.listAgents({})).agentIds;
    expect(agents).toContain(' trim-ns ');
    expect(agents).toContain('trim-ns');
  });

  test('__shared__ is the shared namespace: PutShared writes there and Recall("__shared__") finds it', async () => {
    const { fact, replayed } = await memory.putShared({ text: 'The shared office printer is on floor three' });
    expect(replayed).toBe(false);
    expect(fact!.agentId).toBe('__shared__');
    const recalled = await memory.recall({ agentId: '__shared__', query: 'office printer' });
    expect(recalled.facts.map((f) => f.id)).toContain(fact!.id);
    const shared = await memory.recallShared({ query: 'office printer' });
    expect(shared.facts.map((f) => f.id)).toContain(fact!.id);
  });
});

describe('text', () => {
  test('empty is rejected', async () => {
    await expectNothingWritten(() => expectInvalid(memory.put({ agentId: 'text-empty', text: '' }), 'text'));
    await expectNothingWritten(() => expectInvalid(memory.putShared({ text: '' }), 'text'));
  });

  test('whitespace-only is rejected', async () => {
    await expectNothingWritten(() => expectInvalid(memory.put({ agentId: 'text-blank', text: ' \n\t ' }), 'text'));
  });

  // Multibyte words: the limit counts UTF-8 bytes (19661 characters here), not characters.
  // (Words, not one 16384-letter run: see the report on the stemmer's cost for very long words.)
  const AT_LIMIT = 'éé '.repeat(6553) + 'éa';

  test('exactly 32768 UTF-8 bytes is accepted and stored intact', async () => {
    const text = AT_LIMIT;
    expect(Buffer.byteLength(text)).toBe(32768);
    const fact = await put('text-limit', text);
    const stored = await memory.get({ agentId: 'text-limit', factId: fact.id });
    expect(stored.fact!.text).toBe(text);
  });

  test('32769 UTF-8 bytes is rejected', async () => {
    const text = AT_LIMIT + 'a';
    expect(Buffer.byteLength(text)).toBe(32769);
    await expectNothingWritten(async () => {
      const error = await expectInvalid(memory.put({ agentId: 'text-over', text }), 'text');
      expect(error.message).toMatch(/32768/);
    });
  });

  describe('invalid UTF-8 on the wire', () => {
    /** A valid PutRequest whose text bytes "XX" are replaced by 0xC3 0x28 (a broken 2-byte sequence). */
    function putWithInvalidUtf8(agentId: string): Buffer {
      const bytes = Buffer.from(toBinary(PutRequestSchema, create(PutRequestSchema, { agentId, text: 'broken XX text' })));
      const at = bytes.indexOf('XX');
      expect(at).toBeGreaterThan(0);
      bytes[at] = 0xc3;
      bytes[at + 1] = 0x28;
      return bytes;
    }

    function sendRaw(bytes: Buffer): Promise<grpc.ServiceError | Buffer> {
      return new Promise((resolve) =>
        raw.makeUnaryRequest(PUT_PATH, (b: Buffer) => b, (b: Buffer) => b, bytes, new grpc.Metadata(), {}, (error, response) =>
          resolve(error ?? response!),
        ),
      );
    }

    test('the splice really produces invalid UTF-8 (the same bytes with "XX" restored are accepted)', async () => {
      const good = Buffer.from(toBinary(PutRequestSchema, create(PutRequestSchema, { agentId: 'utf8-control', text: 'broken XX text' })));
      const response = await sendRaw(good);
      expect(Buffer.isBuffer(response)).toBe(true);
      expect(fromBinary(PutResponseSchema, response as Buffer).fact!.text).toBe('broken XX text');
    });

    test('is INVALID_ARGUMENT (not INTERNAL) and writes nothing', async () => {
      await expectNothingWritten(async () => {
        const result = await sendRaw(putWithInvalidUtf8('utf8-bad'));
        expect(Buffer.isBuffer(result), 'the daemon accepted invalid UTF-8').toBe(false);
        const error = result as grpc.ServiceError;
        expect(error.code, error.details).toBe(grpc.status.INVALID_ARGUMENT);
      });
      expect(await listIds('utf8-bad')).toEqual([]);
    });

    test('the error names the text field', async () => {
      const result = await sendRaw(putWithInvalidUtf8('utf8-field'));
      expect(Buffer.isBuffer(result)).toBe(false);
      const error = new RpcError(result as grpc.ServiceError);
      expect(error.grpcCode).toBe(grpc.status.INVALID_ARGUMENT);
      expect(error.field, `message was: ${error.message}`).toBe('text');
      expect(error.message).toMatch(/\btext\b/);
    });
  });
});

describe('top_k', () => {
  const agentId = 'topk-agent';

  beforeAll(async () => {
    for (let i = 0; i < 10; i++) await put(agentId, `distinct fact number ${i} about topic${i}`);
  });

  test.each([0, -1, 1001])('%i is rejected by Recall, RecallAll, RecallExplain and RecallShared', async (topK) => {
    await expectNothingWritten(async () => {
      // Started one at a time: an early-started call could reject before anything listens.
      for (const call of [
        () => memory.recall({ agentId, query: 'fact', topK }),
        () => memory.recallAll({ agentId, query: 'fact', topK }),
        () => memory.recallExplain({ agentId, query: 'fact', topK }),
        () => memory.recallShared({ query: 'fact', topK }),
      ]) {
        const error = await expectInvalid(call(), 'top_k');
        expect(error.message).toMatch(/1000/);
      }
    });
  });

  test('1 returns exactly one fact', async () => {
    expect((await memory.recall({ agentId, query: 'fact', topK: 1 })).facts).toHaveLength(1);
  });

  test('1000 is accepted and returns every eligible fact', async () => {
    expect((await memory.recall({ agentId, query: 'fact', topK: 1000 })).facts).toHaveLength(10);
    expect((await memory.recallExplain({ agentId, query: 'fact', topK: 1000 })).receipts).toHaveLength(10);
  });

  test('absent means 8 when at least 8 distinct facts match', async () => {
    const res = await memory.recall({ agentId, query: 'fact' });
    expect(res.facts).toHaveLength(8);
    expect(new Set(res.facts.map((f) => f.id)).size).toBe(8);
    expect((await memory.recallExplain({ agentId, query: 'fact' })).receipts).toHaveLength(8);
  });
});

describe('fact_id', () => {
  test.each(['not-an-id', '01ARZ3NDEKTSV4RRFFQ69G5FA', '01ARZ3NDEKTSV4RRFFQ69G5FAU', ''])(
    'malformed %j is INVALID_ARGUMENT on Get and Delete, and nothing is deleted',
    async (factId) => {
      const kept = await put('factid-malformed', `kept while trying ${JSON.stringify(factId)}`);
      await expectNothingWritten(async () => {
        await expectInvalid(memory.get({ agentId: 'factid-malformed', factId }), 'fact_id');
        await expectInvalid(memory.delete({ agentId: 'factid-malformed', factId }), 'fact_id');
      });
      expect(await listIds('factid-malformed')).toContain(kept.id);
    },
  );

  test('a well-formed but unknown id is NOT_FOUND on Get, Delete and UpdateFact, naming the field that holds it', async () => {
    const agentId = 'factid-unknown';
    const kept = await put(agentId, 'the only fact here');
    await expectNothingWritten(async () => {
      // Each call starts when it is awaited: a call started early could reject before anything
      // listens for it (an unhandled rejection).
      for (const [field, call] of [
        ['fact_id', () => memory.get({ agentId, factId: UNKNOWN_ID })],
        ['fact_id', () => memory.delete({ agentId, factId: UNKNOWN_ID })],
        ['fact.id', () => memory.updateFact({ agentId, fact: { id: UNKNOWN_ID, text: 'replacement text' } })],
      ] as const) {
        const error = await rejectionOf(call(), RpcError);
        expect(error.grpcCode, error.message).toBe(grpc.status.NOT_FOUND);
        expect(error.kind).toBe('not_found');
        // The field travels in the status's metadata, and the message opens with it.
        expect([error.field, error.message]).toEqual([field, `${field}: no fact ${UNKNOWN_ID} in namespace "${agentId}"`]);
      }
    });
    expect(await listIds(agentId)).toEqual([kept.id]);
  });

  test('UpdateFact with a malformed fact.id is INVALID_ARGUMENT naming fact.id', async () => {
    await expectNothingWritten(() => expectInvalid(memory.updateFact({ agentId: 'factid-update', fact: { id: 'nope', text: 'x' } }), 'fact.id'));
  });
});

describe('request_id', () => {
  test('over 128 bytes is rejected; exactly 128 is accepted', async () => {
    await expectNothingWritten(async () => {
      await expectInvalid(memory.put({ agentId: 'reqid-long', text: 'a fact', requestId: 'r'.repeat(129) }), 'request_id');
      // Bytes, not characters: 65 two-byte characters are 130 bytes.
      await expectInvalid(memory.put({ agentId: 'reqid-long', text: 'a fact', requestId: 'é'.repeat(65) }), 'request_id');
    });
    const ok = await memory.put({ agentId: 'reqid-long', text: 'a fact', requestId: 'r'.repeat(128) });
    expect(ok.replayed).toBe(false);
    expect(await listIds('reqid-long')).toEqual([ok.fact!.id]);
  });

  test('over 128 bytes is rejected on Delete and UpdateFact too, with no effect', async () => {
    const fact = await put('reqid-mutate', 'must survive');
    await expectNothingWritten(async () => {
      await expectInvalid(memory.delete({ agentId: 'reqid-mutate', factId: fact.id, requestId: 'r'.repeat(129) }), 'request_id');
      await expectInvalid(
        memory.updateFact({ agentId: 'reqid-mutate', requestId: 'r'.repeat(129), fact: { ...fact, text: 'changed' } }),
        'request_id',
      );
    });
    expect((await memory.get({ agentId: 'reqid-mutate', factId: fact.id })).fact!.text).toBe('must survive');
  });

  test('a repeated request_id on Put returns the same fact with replayed: true, stored once', async () => {
    const agentId = 'reqid-replay';
    const first = await memory.put({ agentId, text: 'written once', requestId: 'req-1' });
    const again = await memory.put({ agentId, text: 'written once', requestId: 'req-1' });
    expect(first.replayed).toBe(false);
    expect(again.replayed).toBe(true);
    expect(again.fact!.id).toBe(first.fact!.id);
    expect(await listIds(agentId)).toEqual([first.fact!.id]);
    expect((await memory.stats({ agentId })).factCount).toBe(1n);
  });
});

describe('write fields', () => {
  test.each(['[1]', 'nope', 'null', '42', '"text"'])('meta_json %j (not a JSON object) is rejected', async (metaJson) => {
    const agentId = 'meta-bad';
    await expectNothingWritten(async () => {
      // The daemon names the field without its "fields." prefix (UpdateFact says "fact.meta_json");
      // unambiguous in a PutRequest, so a user still finds it.
      const error = await expectInvalid(memory.put({ agentId, text: 'a fact', fields: { metaJson } }), 'meta_json');
      expect(error.message).toMatch(/JSON object/);
    });
  });

  test('meta_json that is an object is accepted and stored', async () => {
    const fact = (await memory.put({ agentId: 'meta-ok', text: 'a fact', fields: { metaJson: '{"ticket":7}' } })).fact!;
    expect(fact.metaJson).toBe('{"ticket":7}');
  });

  test('a tag that is empty (or only whitespace) is rejected', async () => {
    await expectNothingWritten(async () => {
      for (const tags of [['ok', ''], ['  ']]) {
        // The index points at the offending entry.
        await expectInvalid(memory.put({ agentId: 'tags-bad', text: 'a fact', fields: { tags } }), `tags[${tags.length - 1}]`);
      }
    });
  });
});

describe('UpdateFact', () => {
  async function getFact(agentId: string, factId: string): Promise<Fact> {
    return (await memory.get({ agentId, factId })).fact!;
  }

  test('cannot revive a retired fact: FAILED_PRECONDITION and the fact stays retired', async () => {
    const agentId = 'update-revive';
    const fact = await put(agentId, 'the deploy key lives in the vault');
    const retired = (await memory.updateFact({ agentId, fact: { ...fact, supersededBy: 'agent' } })).fact!;
    expect(retired.supersededBy).toBe('agent');

    const before = await snapshot();
    const error = await rejectionOf(memory.updateFact({ agentId, fact: { ...retired, supersededBy: '' } }), RpcError);
    expect(error.grpcCode, error.message).toBe(grpc.status.FAILED_PRECONDITION);
    expect(error.kind).toBe('failed_precondition');
    expect(error.field).toBe('fact.superseded_by');
    expect(await snapshot()).toEqual(before);

    expect((await getFact(agentId, fact.id)).supersededBy).toBe('agent');
    expect((await memory.recall({ agentId, query: 'deploy key vault' })).facts).toEqual([]);
  });

  test('an unknown confidence label is INVALID_ARGUMENT naming fact.confidence; the fact is unchanged', async () => {
    const agentId = 'update-confidence';
    const fact = await put(agentId, 'the cache TTL is ten minutes');
    for (const confidence of ['certain', 'Verified', ' verified']) {
      await expectNothingWritten(() =>
        expectInvalid(memory.updateFact({ agentId, fact: { ...fact, text: 'changed text', confidence } }), 'fact.confidence'),
      );
    }
    const stored = await getFact(agentId, fact.id);
    expect(stored.confidence).toBe('');
    expect(stored.text).toBe('the cache TTL is ten minutes');
    // The exact labels are accepted.
    const verified = (await memory.updateFact({ agentId, fact: { ...fact, confidence: 'verified' } })).fact!;
    expect(verified.confidence).toBe('verified');
  });

  test('empty fact.text is rejected with the field fact.text', async () => {
    const agentId = 'update-text';
    const fact = await put(agentId, 'original text');
    await expectNothingWritten(() => expectInvalid(memory.updateFact({ agentId, fact: { ...fact, text: '' } }), 'fact.text'));
    expect((await getFact(agentId, fact.id)).text).toBe('original text');
  });
});

describe('List paging', () => {
  test('page_size 1001 is rejected; 1000 is accepted', async () => {
    await put('list-paging', 'one fact');
    await expectNothingWritten(async () => {
      await expectInvalid(memory.list({ agentId: 'list-paging', pageSize: 1001 }), 'page_size');
      await expectInvalid(memory.list({ agentId: 'list-paging', pageSize: -1 }), 'page_size');
    });
    expect((await memory.list({ agentId: 'list-paging', pageSize: 1000 })).facts).toHaveLength(1);
  });

  test('a garbage page_token is rejected as not a page token, plain or ordered (a caller never sees page tokens called fact ids)', async () => {
    await expectNothingWritten(async () => {
      for (const pageToken of ['garbage', 'x'.repeat(26), '../../etc']) {
        for (const newestFirst of [false, true]) {
          const error = await expectInvalid(memory.list({ agentId: 'list-paging', pageToken, newestFirst }), 'page_token');
          expect(error.message).toMatch(/is not a page token \(pass the next_page_token of the previous page\)/);
        }
      }
    });
  });
});
