import { describe, test, expect } from 'vitest';
import { TOKENIZER_ID, isStopword, letterRuns, stem, termFrequencies, terms, words } from '../../daemon/index/tokenizer.ts';

describe('words', () => {
  test('accented and non-Latin words are single words', () => {
    expect(words('Café naïve Москва 東京')).toEqual(['café', 'naïve', 'москва', '東京']);
  });

  test('lowercases and NFKC-normalises, so compatibility forms match', () => {
    // "ﬁ" ligature, full-width letters, decomposed é (e + U+0301)
    expect(words('ﬁle ＡＢＣ Cafe\u0301')).toEqual(['file', 'abc', 'café']);
  });

  test('punctuation, hyphens and apostrophes separate words', () => {
    expect(words('gpt-4o, v1.2; don\u2019t stop: Engram\'s!')).toEqual(['gpt', '4o', 'v1', '2', 'don', 't', 'stop', 'engram', 's']);
  });

  test('keeps stopwords and does not stem (the embedder needs raw words)', () => {
    expect(words('The runners are running')).toEqual(['the', 'runners', 'are', 'running']);
  });

  test('empty or separator-only text has no words', () => {
    expect(words('')).toEqual([]);
    expect(words(' -- ... !! ')).toEqual([]);
  });
});

describe('words of text written without spaces, and pictographs', () => {
  test('Chinese and Japanese are split into dictionary words, not kept as one run', () => {
    expect(words('我喜欢喝绿茶')).toEqual(['我', '喜欢', '喝', '绿茶']);
    expect(words('今日は寿司を食べました')).toEqual(expect.arrayContaining(['今日', '寿司']));
    expect(words('ภาษาไทยง่าย')).toEqual(['ภาษา', 'ไทย', 'ง่าย']);
  });

  test('a word inside a sentence is a term of it', () => {
    expect(terms('我喜欢喝绿茶')).toContain(terms('绿茶')[0]);
    expect(terms('今日は寿司を食べました')).toContain(terms('寿司')[0]);
  });

  test('Latin words glued to Chinese are their own words, and are still stemmed', () => {
    expect(words('Tokyo東京tower')).toEqual(['tokyo', '東京', 'tower']);
    expect(terms('我喜欢running')).toEqual(['我', '喜欢', 'run']);
  });

  test('an emoji is a word of its own, without variation selector or skin tone', () => {
    expect(words('pizza night 🍕')).toEqual(['pizza', 'night', '🍕']);
    expect(words('love ❤️ it')).toEqual(['love', '❤', 'it']);
    expect(words('👍🏽👍')).toEqual(['👍', '👍']);
    expect(terms('🍕')).toEqual(['🍕']);
  });

  test('text with no unspaced script and no pictograph keeps the plain letter runs', () => {
    for (const text of ['don\u2019t pay €5 for “quoted” text — ok?', 'Встреча в Москве', 'Café naïve ＡＢＣ ﬁle', 'gpt-4o v1.2']) {
      expect(words(text)).toEqual(letterRuns(text));
    }
  });

  test('pictographs beside Latin words do not change how those words split', () => {
    expect(words("🍕 don't stop")).toEqual(['🍕', ...letterRuns("don't stop")]);
  });
});

describe('stem', () => {
  test('inflections of a word share a stem', () => {
    expect(stem('running')).toBe(stem('runs'));
    expect(stem('running')).toBe('run');
  });

  test('words with digits and non-Latin words are unchanged', () => {
    expect(stem('2024')).toBe('2024');
    expect(stem('h264')).toBe('h264');
    expect(stem('x3ys')).toBe('x3ys'); // Porter2 would mangle the 3
    expect(stem('москвы')).toBe('москвы');
    expect(stem('東京')).toBe('東京');
  });

  test('accented Latin words are safe to stem', () => {
    expect(stem('café')).toBe('café');
    expect(stem('cafés')).toBe('café');
  });

  test('is stable across repeated calls (memoised)', () => {
    expect(stem('generously')).toBe('generous');
    expect(stem('generously')).toBe('generous');
  });
});

describe('isStopword', () => {
  test('common function words are stopwords, content words are not', () => {
    for (const w of ['a', 'the', 'and', 'of', 'i', 'you', 'what', 'when', 'where', 'who', 'how']) {
      expect(isStopword(w)).toBe(true);
    }
    for (const w of ['coffee', 'berlin', 'won', '2024']) expect(isStopword(w)).toBe(false);
  });
});

describe('terms', () => {
  test('drops stopwords, stems, keeps digits and order and duplicates', () => {
    expect(terms('The user was running 5 km and runs 10 km daily')).toEqual(['user', 'run', '5', 'km', 'run', '10', 'km', 'daili']);
  });

  test('a query matches a document phrased differently', () => {
    const doc = new Set(terms('Alice prefers running in the mornings'));
    for (const term of terms('When does Alice run? Morning?')) expect(doc.has(term)).toBe(true);
  });

  test('contractions and possessives reduce to the content word', () => {
    expect(terms("Engram's users don't forget")).toEqual(['engram', 'user', 'forget']);
  });

  test('non-Latin text is indexed, not dropped', () => {
    expect(terms('Я живу в Москве')).toEqual(['я', 'живу', 'в', 'москве']);
  });
});

describe('termFrequencies', () => {
  test('counts terms; length is the number of terms', () => {
    const { tf, length } = termFrequencies('Run, run, run! The runner runs.');
    expect(tf).toEqual(new Map([['run', 4], ['runner', 1]]));
    expect(length).toBe(5);
  });

  test('stopword-only text has length 0', () => {
    expect(termFrequencies('it is what it is')).toEqual({ tf: new Map(), length: 0 });
  });
});

test('tokenizer id names the pipeline, not the ICU of the Node running it (an update must not re-index every store)', () => {
  expect(TOKENIZER_ID).toBe('unicode-porter2-v3');
});
