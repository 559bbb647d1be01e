// The pure pieces of `engram import`/`export`: event-time parsing, import-line checks and their
// derived request ids, and YAML quoting of the markdown export (a property test over any string).
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { parseEventTime } from '../../client/cli/io/times.ts';
import { parseImportLine } from '../../client/cli/io/records.ts';
import { wikilinkTarget, yamlQuote } from '../../shared/markdown/notes.ts';
import { DEFAULT_LIMITS } from '../../shared/validate.ts';

describe('parseEventTime', () => {
  test.each([
    ['2024-05-08', Date.UTC(2024, 4, 8)],
    ['2024-05-08T13:56:00Z', Date.UTC(2024, 4, 8, 13, 56)],
    ['2024-05-08T13:56Z', Date.UTC(2024, 4, 8, 13, 56)],
    ['2024-05-08T13:56:00', Date.UTC(2024, 4, 8, 13, 56)], // no offset: UTC, whatever the machine's zone
    ['2024-05-08 13:56:00.123456Z', Date.UTC(2024, 4, 8, 13, 56, 0, 123)],
    ['2024-05-08T13:56:00+02:00', Date.UTC(2024, 4, 8, 11, 56)],
    ['2024-05-08T13:56:00-0530', Date.UTC(2024, 4, 8, 19, 26)],
    ['0099-01-01', -59042995200000], // not mapped to 1999
    [1715126400000, 1715126400000],
    [0, 0],
    [null, undefined],
    [undefined, undefined],
  ])('%s', (value, expected) => {
    expect(parseEventTime(value, 'occurred_at')).toBe(expected);
  });

  test('LoCoMo dates only when asked', () => {
    expect(parseEventTime('1:56 pm on 8 May, 2023', 'x', { locomo: true })).toBe(Date.UTC(2023, 4, 8, 13, 56));
    expect(parseEventTime('12:05 am on 1 January, 2024', 'x', { locomo: true })).toBe(Date.UTC(2024, 0, 1, 0, 5));
    expect(() => parseEventTime('1:56 pm on 8 May, 2023', 'x')).toThrow(/x: expected ISO 8601/);
  });

  test.each([
    ['2024-02-30', /no such date/],
    ['2023-02-29', /no such date/],
    ['2024-13-01', /no such date/],
    ['2024-05-08T24:00:00Z', /no such date/],
    ['May 8, 2024', /expected ISO 8601/],
    ['yesterday', /expected ISO 8601/],
    [1.5, /whole number/],
    [true, /must be an ISO 8601 string or epoch milliseconds/],
    [[2024], /got an array/],
    [8.64e15 + 1, /year 9999|whole number/],
  ])('refuses %s', (value, message) => {
    expect(() => parseEventTime(value, 'occurred_at')).toThrow(message);
  });
});

describe('parseImportLine', () => {
  const parse = (line: unknown, agent = 'a') => parseImportLine(agent, typeof line === 'string' ? line : JSON.stringify(line), DEFAULT_LIMITS);

  test('the request id depends on the agent and the content, not on key order, lifecycle state or bookkeeping', () => {
    const base = parse({ text: 't', tags: ['x'], meta: { a: 1, b: 2 }, occurred_at: '2024-05-08' });
    expect(base.requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(parse({ meta: { b: 2, a: 1 }, occurred_at: Date.UTC(2024, 4, 8), tags: ['x'], text: 't' }).requestId).toBe(base.requestId);
    expect(parse({ text: 't', tags: ['x'], meta: { a: 1, b: 2 }, occurred_at: '2024-05-08', pinned: true, access_count: 9, created_at: 'whenever' }).requestId).toBe(base.requestId);
    expect(parse({ text: 't', tags: ['x'], meta: { a: 1, b: 2 }, occurred_at: '2024-05-08' }, 'b').requestId).not.toBe(base.requestId);
    expect(parse({ text: 't', tags: ['y'], meta: { a: 1, b: 2 }, occurred_at: '2024-05-08' }).requestId).not.toBe(base.requestId);
    expect(parse({ text: 't', tags: ['x'], meta: { a: 1, b: 2 }, occurred_at: '2024-05-08', id: 'src-1' }).requestId).not.toBe(base.requestId);
  });

  test("restoring, what a line carries of the daemon's record is read, and is no part of its request id (a re-run, or a later export of the facts used since, stores nothing twice)", () => {
    const line = { text: 't', tags: ['x'] };
    const used = { ...line, use_count: 4, review_count: 1, cross_domain_count: 0, last_used_at: '2024-06-01T00:00:00Z', kind: 'summary', replaces: ['01M8RSZZ6VPMS0AHKF5A1FJPGT'] };
    const restoring = parseImportLine('a', JSON.stringify(used), DEFAULT_LIMITS, true);
    expect(restoring.restore).toEqual({ useCount: 4, reviewCount: 1, crossDomainCount: 0, lastUsedAt: Date.UTC(2024, 5, 1), kind: 'summary', replaces: ['01M8RSZZ6VPMS0AHKF5A1FJPGT'] });
    expect(restoring.requestId).toBe(parse(line).requestId);
    expect(parse(used)).not.toHaveProperty('restore');
    // use_count 0 is a daemon's from before decay-v1: nothing to restore of it.
    expect(parseImportLine('a', JSON.stringify({ ...line, use_count: 0 }), DEFAULT_LIMITS, true).restore).toBeUndefined();
  });

  test('an empty meta, null fields and a summary read as their defaults', () => {
    expect(parse({ text: 't', meta: {}, tags: null, source: null, confidence: '', kind: 'summary', occurred_at: null })).toMatchObject({
      text: 't',
      kind: 'fact',
      metaJson: '',
      tags: [],
      source: '',
      confidence: '',
      pinned: false,
      supersededBy: '',
    });
  });

  test('an alias line carries its term and equivalents', () => {
    const r = parse({ text: 'k8s = kubernetes', kind: 'alias', meta: { alias_term: 'k8s', alias_equivalents: ['kubernetes'] } });
    expect(r.alias).toEqual({ term: 'k8s', equivalents: ['kubernetes'] });
    expect(() => parse({ text: 'k8s', kind: 'alias' })).toThrow(/alias_term/);
  });

  test.each([
    ['{', /not JSON/],
    ['42', /must be a JSON object, got number/],
    [{ text: '' }, /text: must not be empty/],
    [{ text: 7 }, /text: must be a string/],
    [{ text: 't', kind: 'memo' }, /kind: must be "fact" or "alias"/],
    [{ text: 't', pinned: 'yes' }, /pinned: must be true or false/],
    [{ text: 't', superseded_by: 'someone' }, /superseded_by/],
    [{ text: 't', source: ['a'] }, /source: must be a string/],
    [{ text: 't', tags: 'a,b' }, /tags: must be a list of strings/],
    [{ text: 't', entities: [1] }, /entities\[0\]: must be a string/],
    [{ text: 't', extra: 1, more: 2 }, /unknown fields "extra", "more"/],
    [{ text: 'x'.repeat(DEFAULT_LIMITS.maxTextBytes + 1) }, /text: is \d+ bytes/],
  ])('refuses %s', (line, message) => {
    expect(() => parse(line)).toThrow(message);
  });
});

describe('yamlQuote', () => {
  // A YAML 1.2 double-quoted scalar holds only printable characters; everything else is escaped.
  const printable = /^[\t\u0020-\u007e\u0085\u00a0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]*$/u;

  test('any string: one line, only printable characters, decodes back to itself', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) })), (s) => {
        const q = yamlQuote(s);
        expect(q.startsWith('"') && q.endsWith('"')).toBe(true);
        expect(q).not.toMatch(/[\n\r\u2028\u2029\u0085]/);
        expect(q).toMatch(printable);
        expect(JSON.parse(q)).toBe(s);
      }),
      { numRuns: 500 },
    );
  });

  test('characters YAML cares about are escaped or harmless inside quotes', () => {
    expect(yamlQuote('a "b" \\ c')).toBe('"a \\"b\\" \\\\ c"');
    expect(yamlQuote('line\nbreak\ttab')).toBe('"line\\nbreak\\ttab"');
    expect(yamlQuote('DEL\u007f NEL\u0085 LS\u2028 BOM\ufeff')).toBe('"DEL\\u007f NEL\\u0085 LS\\u2028 BOM\\ufeff"');
    expect(yamlQuote('- [x]: {y} # z & *a !t |>')).toBe('"- [x]: {y} # z & *a !t |>"');
  });

  test('wikilink targets drop the characters Obsidian reserves', () => {
    expect(wikilinkTarget('AC/DC [live] | #1 ^x')).toBe('AC DC live 1 x');
    expect(wikilinkTarget('Green Tea')).toBe('Green Tea');
  });
});
