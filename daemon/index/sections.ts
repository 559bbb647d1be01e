// A file of typed sections read back in the order they were written: JSON values and typed
// arrays. Arrays are stored raw (native byte order) and 8-byte aligned, so reading one is a view
// into the file's buffer, not a parse — what lets a million-fact index load in a second or two.
// The file is a cache of derived data: a reader that finds anything unexpected (a checksum that
// does not match included) throws, and the caller rebuilds from LevelDB instead.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { writeFileAtomically } from '../files/atomic-file.ts';

const MAGIC = Buffer.from('ENGSECT1');
const HEADER_BYTES = 16; // kind u32, reserved u32, byte length f64

enum Kind {
  Json = 1,
  Int32 = 2,
  Float64 = 3,
}

type ArrayKind = Exclude<Kind, Kind.Json>;
const ARRAYS = {
  [Kind.Int32]: Int32Array,
  [Kind.Float64]: Float64Array,
} as const;

const padding = (n: number): number => (8 - (n % 8)) % 8;

export class SectionWriter {
  private readonly parts: Uint8Array[] = [MAGIC];

  json(value: unknown): void {
    this.section(Kind.Json, Buffer.from(JSON.stringify(value), 'utf8'));
  }

  int32(array: Int32Array): void {
    this.section(Kind.Int32, bytesOf(array));
  }

  float64(array: Float64Array): void {
    this.section(Kind.Float64, bytesOf(array));
  }

  /** Writes the file whole (never torn); returns its SHA-256, for a reader to check it against. */
  writeFile(path: string): string {
    const hash = createHash('sha256');
    for (const part of this.parts) hash.update(part);
    writeFileAtomically(path, this.parts);
    return hash.digest('hex');
  }

  private section(kind: Kind, payload: Uint8Array): void {
    const header = Buffer.alloc(HEADER_BYTES);
    header.writeUInt32LE(kind, 0);
    header.writeDoubleLE(payload.byteLength, 8);
    this.parts.push(header, payload, Buffer.alloc(padding(payload.byteLength)));
  }
}

export class SectionReader {
  private readonly buffer: Buffer;
  private at = MAGIC.length;

  /** `sha256`: what the writer returned; a file that does not match is refused. */
  constructor(path: string, sha256: string) {
    const data = readFileSync(path);
    if (createHash('sha256').update(data).digest('hex') !== sha256) throw new Error(`${path}: checksum mismatch`);
    // Typed-array views need an aligned start; a large read normally has one already.
    this.buffer = data.byteOffset % 8 === 0 ? data : Buffer.from(data);
    if (this.buffer.length < MAGIC.length || !this.buffer.subarray(0, MAGIC.length).equals(MAGIC)) {
      throw new Error(`${path}: not a section file`);
    }
  }

  json<T>(): T {
    const payload = this.next(Kind.Json);
    return JSON.parse(payload.toString('utf8')) as T;
  }

  int32(): Int32Array {
    return this.array(Kind.Int32);
  }

  float64(): Float64Array {
    return this.array(Kind.Float64);
  }

  private array<K extends ArrayKind>(kind: K): InstanceType<(typeof ARRAYS)[K]> {
    const payload = this.next(kind);
    const type = ARRAYS[kind];
    if (payload.byteLength % type.BYTES_PER_ELEMENT !== 0) throw new Error('section file: bad array length');
    return new type(payload.buffer as ArrayBuffer, payload.byteOffset, payload.byteLength / type.BYTES_PER_ELEMENT) as InstanceType<(typeof ARRAYS)[K]>;
  }

  private next(kind: Kind): Buffer {
    if (this.at + HEADER_BYTES > this.buffer.length) throw new Error('section file: truncated');
    const found = this.buffer.readUInt32LE(this.at);
    const length = this.buffer.readDoubleLE(this.at + 8);
    const start = this.at + HEADER_BYTES;
    if (found !== kind) throw new Error(`section file: expected section kind ${kind}, found ${found}`);
    if (!Number.isInteger(length) || length < 0 || start + length > this.buffer.length) throw new Error('section file: truncated');
    this.at = start + length + padding(length);
    return this.buffer.subarray(start, start + length);
  }
}

function bytesOf(array: Int32Array | Float64Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}
