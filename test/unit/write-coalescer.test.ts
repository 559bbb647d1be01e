// The client's group commit on its own, with a send the test answers by hand: how many calls a
// namespace has in flight, which puts each batch takes, and that a request id is never in two
// calls at once (its repeat must reach the daemon after the first attempt has answered).
import { describe, expect, test } from 'vitest';
import { WriteCoalescer, type ItemOutcome } from '../../client/write-coalescer.ts';

interface Call {
  namespace: string;
  ids: string[];
  answer(): void;
  fail(error: Error): void;
}

/** A coalescer whose every call waits until the test answers it. */
function handAnswered(callsInFlight?: number) {
  const calls: Call[] = [];
  const coalescer = new WriteCoalescer<string, string>(
    (items, ids) =>
      new Promise<ItemOutcome<string>[]>((resolve, reject) => {
        calls.push({ namespace: items[0]!.split('/')[0]!, ids, answer: () => resolve(items.map((item) => ({ ok: `stored ${item}` }))), fail: reject });
      }),
    (error, requestId) => new Error(`${requestId}: ${(error as Error).message}`),
    callsInFlight,
  );
  const put = (namespace: string, requestId: string) => coalescer.put(namespace, `${namespace}/${requestId}`, requestId, 10, { maxItems: 100, maxBytes: 1_000_000 });
  return { calls, put };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
/** Lets answered calls settle and the batches they set off form. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await nextTurn();
};

describe('the write coalescer', () => {
  test('puts of one turn go as one call; a second call goes while the first is unanswered, a third waits', async () => {
    const { calls, put } = handAnswered(2);
    const first = [put('ns', 'a'), put('ns', 'b')];
    await settle();
    expect(calls.map((c) => c.ids)).toEqual([['a', 'b']]);
    const second = [put('ns', 'c'), put('ns', 'd')];
    await settle();
    expect(calls.map((c) => c.ids)).toEqual([['a', 'b'], ['c', 'd']]);
    const third = [put('ns', 'e'), put('ns', 'f')];
    await settle();
    expect(calls).toHaveLength(2); // two in flight: e and f wait
    calls[1]!.answer();
    expect(await Promise.all(second)).toEqual(['stored ns/c', 'stored ns/d']);
    await settle();
    expect(calls.map((c) => c.ids)).toEqual([['a', 'b'], ['c', 'd'], ['e', 'f']]);
    calls[0]!.answer();
    calls[2]!.answer();
    expect(await Promise.all([...first, ...third])).toEqual(['stored ns/a', 'stored ns/b', 'stored ns/e', 'stored ns/f']);
  });

  test('one call in flight when asked for one', async () => {
    const { calls, put } = handAnswered(1);
    const puts = [put('ns', 'a')];
    await settle();
    puts.push(put('ns', 'b'), put('ns', 'c'));
    await settle();
    expect(calls.map((c) => c.ids)).toEqual([['a']]);
    calls[0]!.answer();
    await settle();
    expect(calls.map((c) => c.ids)).toEqual([['a'], ['b', 'c']]);
    calls[1]!.answer();
    expect(await Promise.all(puts)).toEqual(['stored ns/a', 'stored ns/b', 'stored ns/c']);
  });

  test('a request id in flight is not sent again until its first call has answered', async () => {
    const { calls, put } = handAnswered(2);
    const firstAttempt = put('ns', 'same');
    await settle();
    const later = [put('ns', 'other'), put('ns', 'same'), put('ns', 'after')];
    await settle();
    // 'other' may go beside the first call; the repeat and everything queued behind it wait.
    expect(calls.map((c) => c.ids)).toEqual([['same'], ['other']]);
    calls[1]!.answer();
    await settle();
    expect(calls).toHaveLength(2);
    calls[0]!.answer();
    await firstAttempt;
    await settle();
    expect(calls.map((c) => c.ids)).toEqual([['same'], ['other'], ['same', 'after']]);
    calls[2]!.answer();
    expect(await Promise.all(later)).toEqual(['stored ns/other', 'stored ns/same', 'stored ns/after']);
  });

  test('a failed call fails only its own puts, each with its own error; the call beside it answers', async () => {
    const { calls, put } = handAnswered(2);
    const failing = [put('ns', 'a'), put('ns', 'b')].map((p) => p.catch((e: Error) => e.message));
    await settle();
    const answered = [put('ns', 'c')];
    await settle();
    calls[0]!.fail(new Error('connection reset'));
    calls[1]!.answer();
    expect(await Promise.all(failing)).toEqual(['a: connection reset', 'b: connection reset']);
    expect(await Promise.all(answered)).toEqual(['stored ns/c']);
    // The namespace goes on: the next put is sent.
    const next = put('ns', 'd');
    await settle();
    calls[2]!.answer();
    expect(await next).toBe('stored ns/d');
  });

  test('namespaces do not wait for each other', async () => {
    const { calls, put } = handAnswered(1);
    const puts = [put('one', 'a'), put('two', 'b')];
    await settle();
    expect(calls.map((c) => [c.namespace, c.ids])).toEqual([['one', ['a']], ['two', ['b']]]);
    calls[1]!.answer();
    expect(await puts[1]).toBe('stored two/b');
    calls[0]!.answer();
    expect(await puts[0]).toBe('stored one/a');
  });
});
