// Message analysis, table-driven: for each message, whether it is worth saving and whether it
// asks for something remembered — explicit requests, durable facts, recall questions, neither,
// and near-misses that must not trigger on a substring ("remembered", "notebook", "recalled").
import { beforeAll, describe, expect, test } from 'vitest';
import { analyzeForRecall, analyzeMessage } from '../../daemon/analysis/analyze.ts';
import { loadNlp } from '../../daemon/analysis/nlp.ts';

// The daemon loads its tagger before the first analysis; so does this file.
beforeAll(async () => {
  await loadNlp();
});

type Row = [message: string, save: boolean, search: boolean];

const TABLE: Row[] = [
  // Explicit requests to remember.
  ['Remember: I prefer TypeScript over JavaScript for all new projects', true, false],
  ['Remember that my sister is allergic to peanuts', true, false],
  ["Don't forget the standup moved to 10am", true, false],
  ['Dont forget: the office is closed on Monday', true, false],
  ['Please keep in mind that I am vegetarian', true, false],
  ['Make a note: the staging server is called hopper', true, false],
  ['Note that invoices go to finance@acme.com', true, false],
  ['For future reference, the wifi password is heron42', true, false],
  ['This is critical: never forget that prod deploys need two approvals', true, false],
  ['Save this: my passport expires in March 2027', true, false],
  ['Remember this — we ship on the first Tuesday of each month', true, false],
  // Durable facts without an explicit request (medium confidence: ask first).
  ['I prefer dark mode in all my apps', true, false],
  ['We decided to use PostgreSQL for the billing service', true, false],
  ['From now on, write commit messages in English', true, false],
  ['My name is Priya and I live in Lisbon', true, false],
  ['I always take the train to work', true, false],
  ['The deadline is December 15th', true, false],
  ['Always use JWT tokens for authentication in all new APIs', true, false],
  ['I never drink coffee after 4pm', true, false],
  // Recall questions.
  ['What did I say about TypeScript?', false, true],
  ['What did I say about my API preferences?', false, true],
  ['Do you remember what I said about Kubernetes?', false, true],
  ['Did I mention where the spare keys are?', false, true],
  ['Have I told you about my new job?', false, true],
  ['Remind me what the wifi password is', false, true],
  ["What's my dentist's name?", false, true],
  ['What did we decide about the logo?', false, true],
  ['When did I last renew the domain?', false, true],
  ['What do you know about Project Falcon?', false, true],
  ['What is my favorite color?', false, true],
  ['Where did I park the car?', false, true],
  ['Can you recall the budget we agreed on?', false, true],
  // Neither.
  ['hello there', false, false],
  ['Thanks, that worked!', false, false],
  ['Can you write a haiku about the sea?', false, false],
  ['The weather is nice today', false, false],
  ['How do I reverse a list in Python?', false, false],
  ['Translate "good morning" into French', false, false],
  // Near-misses: the phrase is inside another word, or only looks like one.
  ['I remembered to buy milk', false, false],
  ['She keeps a notebook of recipes', false, false],
  ['The app recalled my last order automatically', false, false],
  ['Unforgettable concert last night', false, false],
  ['Noted, moving on', false, false],
  ['Remembering names is hard for me', false, false],
];

describe('analyze_message and analyze_for_recall decide as a user would', () => {
  test('the table holds at least 40 messages', () => expect(TABLE.length).toBeGreaterThanOrEqual(40));
  test.each(TABLE)('%s → save %s, search %s', (message, save, search) => {
    expect(analyzeMessage(message).shouldSave, 'save').toBe(save);
    expect(analyzeForRecall(message).shouldSearch, 'search').toBe(search);
  });
});

describe('the advice', () => {
  test("confidence bands: an explicit request is high, a durable fact medium, chit-chat low", () => {
    expect(analyzeMessage('Remember: I prefer TypeScript').confidence).toBeGreaterThan(0.7);
    const medium = analyzeMessage('I prefer dark mode').confidence;
    expect(medium).toBeGreaterThanOrEqual(0.4);
    expect(medium).toBeLessThanOrEqual(0.7);
    expect(analyzeMessage('hello there').confidence).toBeLessThan(0.4);
  });

  test('entities, tags, strength and reasoning', () => {
    const a = analyzeMessage('Remember: I prefer TypeScript over JavaScript for all new projects');
    expect(a.suggestedEntities).toEqual(expect.arrayContaining(['typescript', 'javascript']));
    expect(a.suggestedTags).toEqual(['preference']);
    expect(a.suggestedStrength).toBeGreaterThanOrEqual(1.5);
    expect(a.reasoning).toBe("Detected: ['remember', 'i prefer'] importance_marker: True entities_found: 3");
    expect(analyzeMessage('This is critical: never forget the prod DB password rotates').suggestedStrength).toBeGreaterThanOrEqual(1.8);
    expect(analyzeMessage('We decided to use PostgreSQL').suggestedTags).toEqual(['decision']);
    expect(analyzeMessage('The weather is nice').suggestedStrength).toBe(1);
  });

  test('the suggested query is the subject of the question', () => {
    expect(analyzeForRecall('What did I say about TypeScript?').suggestedQuery).toBe('TypeScript');
    expect(analyzeForRecall('What did I say about my API preferences?').suggestedQuery).toBe('API preferences');
    expect(analyzeForRecall('Do you remember what I said about Kubernetes?').suggestedQuery).toBe('Kubernetes');
    const r = analyzeForRecall('What did I say about TypeScript?');
    expect(r).toMatchObject({ confidence: 0.9, suggestedEntities: ['typescript'], reasoning: "Detected: ['what did i say about'] entities_found: 1 question: True" });
  });
});
