// compromise, the English tagger behind entity extraction, is large: loading it cost every daemon
// about 0.7 s of CPU at start-up, though only entity extraction at write (--kg), save and recall
// advice and rule-based extraction use it. It is loaded once, by the first of those (a --kg
// daemon at start-up, since its writes extract synchronously).
import type nlpModule from 'compromise';

type Nlp = typeof nlpModule;

let loading: Promise<Nlp> | undefined;
let loaded: Nlp | undefined;

/** Loads compromise (once); await it before calling `nlp`. */
export function loadNlp(): Promise<Nlp> {
  loading ??= import('compromise').then((module) => (loaded = module.default));
  return loading;
}

/** compromise, once `loadNlp` has resolved. */
export function nlp(): Nlp {
  if (!loaded) throw new Error('internal: compromise used before loadNlp() resolved');
  return loaded;
}
