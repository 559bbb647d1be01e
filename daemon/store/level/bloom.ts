// A Bloom filter of the request ids the store has committed. Almost every write carries a new
// request id; the filter answers "certainly new" from memory, so only a likely repeat pays for
// the LevelDB lookup. False positives just cost that lookup; there are no false negatives.

const BITS = 1 << 24; // 2 MiB: ~1% false positives at 1.7M ids, degrading gracefully beyond
const HASHES = 7;

export class BloomFilter {
  /** `bits`: a filter's bits as saved by a snapshot (anything of the wrong size is refused). */
  constructor(private readonly bits: Uint32Array<ArrayBufferLike> = new Uint32Array(BITS / 32)) {
    if (bits.length !== BITS / 32) throw new Error(`Bloom filter: expected ${BITS / 32} words, got ${bits.length}`);
  }

  /** The bits, for a snapshot. */
  get words(): Uint32Array {
    return this.bits;
  }

  add(key: string): void {
    const [h1, h2] = hashes(key);
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + i * h2) >>> 0;
      this.bits[(bit % BITS) >>> 5]! |= 1 << (bit & 31);
    }
  }

  mightContain(key: string): boolean {
    const [h1, h2] = hashes(key);
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + i * h2) >>> 0;
      if ((this.bits[(bit % BITS) >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

/** Two independent 32-bit hashes (FNV-1a with two offset bases) for double hashing. */
function hashes(key: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return [a >>> 0, (b | 1) >>> 0];
}
