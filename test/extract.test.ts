// Fact extraction against real daemons: the offline rules, and the two chat adapters talking to
// local servers that speak Ollama's /api/chat and OpenAI's /v1/chat/completions wire formats —
// the real adapter code runs; only the model is a stand-in. An answer that does not fit the
// proposal shape is refused whole and nothing is stored.
import { describe, expect, test } from 'vitest';
import { chatServer } from './fixtures/chat-server.ts';
import { useDaemonPool } from './fixtures/daemon.ts';

const pool = useDaemonPool();

describe('fact extraction', () => {
  test('the offline rules propose; remember stores unverified facts whose source names the extractor, once', async () => {
    const daemon = await pool.start({ dataDir: pool.newDir() });
    const client = await daemon.client();
    const message = 'Hi there. I prefer window seats on long flights. We decided to meet on June 4th. Is that ok?';
    const proposed = await client.extract('x', { message });
    expect(proposed).toMatchObject({ extractor: 'rules', stored: 0 });
    expect(proposed.facts.map((f) => [f.kind, f.text])).toEqual([
      ['preference', 'I prefer window seats on long flights.'],
      ['decision', 'We decided to meet on June 4th.'],
    ]);
    expect((await client.list('x')).facts).toEqual([]);

    const stored = await client.extract('x', { message }, { remember: true });
    expect(stored.stored).toBe(2);
    const fact = await client.get('x', stored.facts[0]!.factId!);
    expect(fact).toMatchObject({ text: 'I prefer window seats on long flights.', confidence: 'unverified', source: 'extracted:rules', tags: ['extracted', 'preference'] });
    const again = await client.extract('x', { message }, { remember: true });
    expect(again.stored).toBe(0);
    expect(again.facts.every((f) => f.duplicate)).toBe(true);

    const turns = await client.extract('x', { turns: [{ speaker: 'Ana', text: 'My favourite tea is sencha.' }, { speaker: 'Bo', text: 'Cool.' }] });
    expect(turns.facts.map((f) => f.text)).toEqual(['Ana: My favourite tea is sencha.']);
    // On the wire an empty list is no list: the call names neither a message nor turns.
    await expect(client.extract('x', { turns: [] })).rejects.toMatchObject({ kind: 'invalid_argument', message: expect.stringMatching(/give a message or the turns/) });
  });

  test('ollama: the chat wire format, a valid proposal stored, an invalid one refused whole', async () => {
    const chat = await chatServer('ollama');
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--extractor', 'ollama', '--extract-url', chat.url, '--extract-model', 'llama3.2'] });
    const client = await daemon.client();
    chat.answer = JSON.stringify({ facts: [{ text: 'Priya is allergic to peanuts.', kind: 'preference', entities: ['Priya'] }] });
    const r = await client.extract('o', { turns: [{ speaker: 'Priya', text: "I can't eat peanuts, I'm allergic." }] }, { remember: true });
    expect(r).toMatchObject({ extractor: 'ollama:llama3.2', stored: 1 });
    expect(await client.get('o', r.facts[0]!.factId!)).toMatchObject({ source: 'extracted:ollama:llama3.2', confidence: 'unverified', entities: ['Priya'] });
    const sent = chat.requests.at(-1)!;
    expect(sent.body).toMatchObject({ model: 'llama3.2', stream: false, format: 'json' });
    expect(sent.body.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user']);
    expect(sent.body.messages[1].content).toBe("Priya: I can't eat peanuts, I'm allergic.");

    chat.answer = JSON.stringify({ facts: [{ text: 'ok', kind: 'gossip' }] });
    const refused = await client.extract('o', { message: 'anything' }, { remember: true });
    expect(refused).toMatchObject({ facts: [], stored: 0, rejected: expect.stringMatching(/does not fit/) });
    chat.answer = 'Sure! Here are the facts: ...';
    expect((await client.extract('o', { message: 'anything' }, { remember: true })).rejected).toMatch(/not JSON/);
    expect((await client.list('o')).facts).toHaveLength(1);
  });

  test('openai: the chat completions wire format with the bearer key', async () => {
    const chat = await chatServer('openai');
    const daemon = await pool.start({ dataDir: pool.newDir(), args: ['--extractor', 'openai', '--extract-url', chat.url], env: { OPENAI_API_KEY: 'sk-test-extract' } });
    const client = await daemon.client();
    chat.answer = JSON.stringify({ facts: [{ text: 'The launch moved to May 9th.', kind: 'correction' }] });
    const r = await client.extract('p', { message: 'Actually the launch is May 9th now.' });
    expect(r).toMatchObject({ extractor: 'openai:gpt-4o-mini', stored: 0, facts: [{ text: 'The launch moved to May 9th.', kind: 'correction', entities: [] }] });
    const sent = chat.requests.at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-test-extract');
    expect(sent.body).toMatchObject({ model: 'gpt-4o-mini', response_format: { type: 'json_object' } });
  });

  test('a chat extractor without its model or key refuses to start, naming what to set', async () => {
    await expect(pool.start({ dataDir: pool.newDir(), args: ['--extractor', 'ollama'] })).rejects.toThrow(/--extract-model/);
  });
});
