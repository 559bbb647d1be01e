import { describe, expect, test } from 'vitest';
import { KeyedLocks } from '../../daemon/write/locks.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('keyed locks', () => {
  test('writers of one key run one at a time, in the order they asked', async () => {
    const locks = new KeyedLocks();
    const log: string[] = [];
    const work = (name: string) => async () => {
      log.push(`${name} in`);
      await tick();
      log.push(`${name} out`);
    };
    await Promise.all([locks.with(['a'], work('1')), locks.with(['a', 'b'], work('2')), locks.with(['b'], work('3'))]);
    expect(log).toEqual(['1 in', '1 out', '2 in', '2 out', '3 in', '3 out']);
  });

  test('a writer that asked for several keys runs before a later one, whatever the keys sort as', async () => {
    const locks = new KeyedLocks();
    const order: string[] = [];
    // The first writer's keys sort after the second's first key: it must still go first on "m".
    const first = locks.with(['z', 'y', 'm'], async () => void order.push('first'));
    const second = locks.with(['a', 'm'], async () => void order.push('second'));
    await Promise.all([first, second]);
    expect(order).toEqual(['first', 'second']);
  });

  test('writers asking for the same keys in opposite orders never wait on each other', async () => {
    const locks = new KeyedLocks();
    const done: number[] = [];
    const writers = Array.from({ length: 50 }, (_, i) =>
      locks.with(i % 2 ? ['a', 'b', 'c'] : ['c', 'b', 'a'], async () => {
        await tick();
        done.push(i);
      }),
    );
    await Promise.all(writers);
    expect(done).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  test('keys independent of each other do not wait; a key is free again once its writers are done, even after a failure', async () => {
    const locks = new KeyedLocks();
    let release!: () => void;
    const holding = locks.with(['a'], () => new Promise<void>((resolve) => (release = resolve)));
    let other = false;
    await locks.with(['b'], async () => void (other = true));
    expect(other).toBe(true);
    release();
    await holding;
    await expect(locks.with(['a'], async () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(await locks.with(['a', 'a'], async () => 'again')).toBe('again');
  });
});
