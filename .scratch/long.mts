import { terms } from '../daemon/index/tokenizer.ts';
import { loadWordVectorEmbedder } from '../daemon/embed/word-vectors.ts';
let t = Date.now(); terms('a'.repeat(32768)); console.log('terms a*32768', Date.now() - t, 'ms');
t = Date.now(); terms('é'.repeat(16384)); console.log('terms é*16384', Date.now() - t, 'ms');
const e = await loadWordVectorEmbedder(); t = Date.now(); await e.embed(['a'.repeat(32768)]); console.log('embed', Date.now() - t, 'ms');
