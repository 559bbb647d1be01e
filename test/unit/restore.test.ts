// A restore's rule (shared by the daemon and the library) and its weight in a batch's size.
import { describe, expect, test } from 'vitest';
import { checkRestore } from '../../shared/restore.ts';
import { itemBytes } from '../../client/write-coalescer.ts';

const ID = (i: number) => `01M8RSZZ6VPMS0AHKF5A${String(i).padStart(6, '0')}`;
const NOW = Date.UTC(2026, 0, 1);

describe('checkRestore', () => {
  test("a new fact's defaults are no restore at all: kind fact and an empty replaces are left out", () => {
    expect(checkRestore({ kind: 'fact', replaces: [] }, NOW)).toEqual({});
    expect(checkRestore({ useCount: 4, reviewCount: 0, crossDomainCount: 0, lastUsedAt: NOW, kind: 'summary', replaces: [ID(1)] }, NOW)).toEqual({ useCount: 4, reviewCount: 0, crossDomainCount: 0, lastUsedAt: NOW, kind: 'summary', replaces: [ID(1)] });
  });

  test.each([
    [{ useCount: 0 }, 'options.restore.use_count'],
    [{ useCount: 1.5 }, 'options.restore.use_count'],
    [{ crossDomainCount: -1 }, 'options.restore.cross_domain_count'],
    [{ lastUsedAt: NOW + 1 }, 'options.restore.last_used_at_ms'],
    [{ lastUsedAt: 0 }, 'options.restore.last_used_at_ms'],
    [{ kind: 'alias' }, 'options.restore.kind'],
    [{ replaces: ['not-an-id'] }, 'options.restore.replaces[0]'],
    [{ replaces: [ID(1), ID(2), ID(1)] }, 'options.restore.replaces[2]'],
  ])('%o is refused naming %s', (restore, field) => {
    expect(() => checkRestore(restore, NOW)).toThrow(expect.objectContaining({ kind: 'invalid_argument', field }));
  });

  test("a caller names the fields its own way (an import line's keys)", () => {
    expect(() => checkRestore({ lastUsedAt: NOW + 1 }, NOW, (name) => name.replace(/_ms$/, ''))).toThrow(expect.objectContaining({ field: 'last_used_at' }));
  });
});

test("a restore's replaces count toward a batch's size (a summary may name a thousand facts)", () => {
  const replaces = Array.from({ length: 1000 }, (_, i) => ID(i));
  expect(itemBytes({ text: 'a summary', restore: { replaces } }) - itemBytes({ text: 'a summary' })).toBeGreaterThanOrEqual(26 * 1000);
});
