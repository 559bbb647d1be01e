// The fact cache recall reads chosen facts from: bounded, least recently used out first, and a
// read that raced a write never puts back the older record.
import { describe, expect, test } from 'vitest';
import { FactCache } from '../../daemon/store/level/fact-cache.ts';
import { decodeFact } from '../../daemon/store/record.ts';

const fact = (id: string, text = `fact ${id}`) => decodeFact({ id, agentId: 'a', text });

describe('FactCache', () => {
  test('holds at most its capacity, dropping the least recently used', () => {
    const cache = new FactCache(3);
    for (const id of ['1', '2', '3']) cache.written(id, fact(id));
    expect(cache.get('1')?.id).toBe('1'); // 1 is now the most recently used
    cache.written('4', fact('4'));
    expect(cache.size).toBe(3);
    expect(cache.get('2')).toBeUndefined();
    expect(['1', '3', '4'].map((id) => cache.get(id)?.id)).toEqual(['1', '3', '4']);
  });

  test('stays bounded through many more writes than it holds', () => {
    const cache = new FactCache(100);
    for (let i = 0; i < 10_000; i++) cache.written(String(i), fact(String(i)));
    expect(cache.size).toBe(100);
    expect(cache.get('9999')?.id).toBe('9999');
    expect(cache.get('9899')).toBeUndefined();
  });

  test('a write replaces the cached record; an erasure removes it', () => {
    const cache = new FactCache(10);
    cache.written('1', fact('1', 'old'));
    cache.written('1', fact('1', 'new'));
    expect(cache.get('1')?.text).toBe('new');
    cache.written('1', undefined);
    expect(cache.get('1')).toBeUndefined();
  });

  test('a read that a write overtook does not fill the cache', () => {
    const cache = new FactCache(10);
    const token = cache.readToken();
    cache.written('2', fact('2', 'written meanwhile'));
    cache.fillAfterRead('1', fact('1', 'read before the write'), token);
    expect(cache.get('1')).toBeUndefined();
    const fresh = cache.readToken();
    cache.fillAfterRead('1', fact('1', 'read after'), fresh);
    expect(cache.get('1')?.text).toBe('read after');
  });
});
