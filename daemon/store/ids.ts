// Time-ordered, monotonic fact ids (ULID layout: 48-bit milliseconds + 80 random bits, Crockford
// base32). Within one millisecond, and whenever the clock steps back, the previous id is
// incremented instead, so ids sort in creation order and never repeat in this store.
import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TIME_CHARS = 10;
const RANDOM_CHARS = 16;

function encodeTime(ms: number): string {
  let out = '';
  for (let i = 0; i < TIME_CHARS; i++) {
    out = ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

// Random bytes are drawn 4 KiB at a time: one randomBytes call per id cost ~9 µs (5 % of a small
// write's work in the daemon).
const pool = Buffer.alloc(RANDOM_CHARS * 256);
let poolAt = pool.length;

function randomPart(): string {
  if (poolAt + RANDOM_CHARS > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  let out = '';
  for (let i = poolAt; i < poolAt + RANDOM_CHARS; i++) out += ALPHABET[pool[i]! & 31];
  poolAt += RANDOM_CHARS;
  return out;
}

/** The id that sorts immediately after `id` (base32 increment with carry). */
function increment(id: string): string {
  const chars = id.split('');
  for (let i = chars.length - 1; i >= 0; i--) {
    const next = ALPHABET.indexOf(chars[i]!) + 1;
    if (next < 32) {
      chars[i] = ALPHABET[next]!;
      return chars.join('');
    }
    chars[i] = ALPHABET[0]!;
  }
  throw new Error('fact id space exhausted');
}

export function timeOfId(id: string): number {
  let ms = 0;
  for (let i = 0; i < TIME_CHARS; i++) ms = ms * 32 + ALPHABET.indexOf(id[i]!);
  return ms;
}

export class IdGenerator {
  private last: string;

  /** `floor` is the greatest id the store ever issued, so a restart never goes backwards. */
  constructor(floor = '') {
    this.last = floor;
  }

  next(now: number): { id: string; time: number } {
    const candidate = encodeTime(now) + randomPart();
    this.last = candidate > this.last ? candidate : increment(this.last);
    // created_at is the id's own time, so ordering by created_at and by id always agree.
    return { id: this.last, time: timeOfId(this.last) };
  }

  get greatest(): string {
    return this.last;
  }
}
