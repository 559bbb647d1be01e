// The offline extractor, table-driven: which sentences of a message it proposes as durable facts,
// and as what kind; questions and chit-chat propose nothing.
import { beforeAll, describe, expect, test } from 'vitest';
import { loadNlp } from '../../daemon/analysis/nlp.ts';
import { extractByRules } from '../../daemon/extract/rules.ts';

// The daemon loads its tagger before the first extraction; so does this file.
beforeAll(async () => {
  await loadNlp();
});

const kinds = (text: string) => extractByRules([{ text }]).map((f) => [f.kind, f.text]);

describe('extractByRules', () => {
  test.each([
    ['I prefer tea over coffee.', 'preference'],
    ['My favourite editor is Helix.', 'preference'],
    ['I never eat mushrooms.', 'preference'],
    ['We decided to ship the beta on Friday.', 'decision'],
    ["From now on, let's use pnpm for every package.", 'decision'],
    ["I'll send the quarterly report tomorrow.", 'commitment'],
    ['I promise to review the design doc.', 'commitment'],
    ['Actually, the meeting moved to Thursday.', 'correction'],
    ['The dentist appointment is on March 3rd.', 'date'],
    ['The deadline is December 15th.', 'date'],
  ])('%s → %s', (text, kind) => {
    expect(kinds(text)).toEqual([[kind, text]]);
  });

  test.each([['What time is the meeting?'], ['Thanks, that worked!'], ['Nice weather today.'], ['Do you prefer tea?'], ['ok']])('%s → nothing', (text) => {
    expect(kinds(text)).toEqual([]);
  });

  test('a message of several sentences gives one proposal per durable sentence, in order; a speaker owns their facts', () => {
    const facts = extractByRules([{ speaker: 'Alice', text: 'Hi! I prefer window seats. What about you? We decided to fly on May 2nd.' }]);
    expect(facts.map((f) => f.text)).toEqual(['Alice: I prefer window seats.', 'Alice: We decided to fly on May 2nd.']);
    expect(facts[1]).toMatchObject({ kind: 'decision', speaker: 'Alice' });
  });
});
