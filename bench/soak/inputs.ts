// Fuzzed values, drawn by fast-check from fixed seeds so a run can be repeated exactly: pools of
// nasty strings, numbers and JSON, mixed with values that look valid (so inputs reach past the
// first check), and messages built from a protobuf descriptor field by field.
import type { DescField, DescMessage } from '@bufbuild/protobuf';
import { ScalarType } from '@bufbuild/protobuf';
import fc from 'fast-check';
import { prng } from '../corpus.ts';

export class Inputs {
  /** Uniform in [0, 1), from the seed. */
  readonly random: () => number;
  private readonly strings: string[];
  private readonly ints: number[];
  private readonly doubles: number[];
  private readonly json: unknown[];

  constructor(seed: number) {
    this.random = prng(seed);
    const sample = <T>(arb: fc.Arbitrary<T>, n: number, salt: number) => fc.sample(arb, { seed: seed + salt, numRuns: n });
    this.strings = [
      ...sample(fc.string({ maxLength: 40 }), 400, 1),
      ...sample(fc.string({ unit: 'binary', maxLength: 60 }), 300, 2),
      ...sample(fc.string({ unit: 'grapheme', maxLength: 30 }), 200, 3),
      '', ' ', '\u0000', '\ud800', '%FF', '../../etc/passwd', '__shared__', 'fuzz', 'fuzz-2', 'read,write', 'balanced', 'verified',
      '01ARZ3NDEKTSV4RRFFQ69G5FAV', '2024-02-30', 'May 8', 'a'.repeat(33_000), 'é'.repeat(17_000), '{"a":1}', '[]', 'null',
    ];
    this.ints = [...sample(fc.integer(), 300, 4), 0, -1, 1, 2 ** 31 - 1, -(2 ** 31), 1000, 1001, 64, 65, 100_000];
    this.doubles = [...sample(fc.double(), 200, 5), NaN, Infinity, -Infinity, -0, 0.5, 1.5, 1e308];
    this.json = [...sample(fc.jsonValue({ maxDepth: 4 }), 400, 6), deep(200), { a: deep(70) }];
  }

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.random() * list.length)]!;
  }

  string(): string {
    return this.random() < 0.3 ? this.pick(['fuzz', 'fuzz-2', 'the harbour crane lifts containers', 'balanced', '__shared__']) : this.pick(this.strings);
  }

  number(): number {
    return this.random() < 0.5 ? this.pick(this.ints) : this.pick(this.doubles);
  }

  /** Any JSON-ish value: a string, a number, a boolean, null, an array or an object. */
  value(): unknown {
    const r = this.random();
    if (r < 0.35) return this.string();
    if (r < 0.55) return this.number();
    if (r < 0.62) return this.random() < 0.5;
    if (r < 0.67) return null;
    if (r < 0.75) return [this.string(), this.number()];
    return this.pick(this.json);
  }

  /** An object with some of `keys` (and now and then a key no schema has). */
  objectOf(keys: readonly string[]): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const key of keys) if (this.random() < 0.6) out[key] = this.value();
    if (this.random() < 0.15) out[this.string()] = this.value();
    return out;
  }

  /** A message init for a protobuf descriptor: each field maybe set, with a value of its type
   *  (mostly) or of another (which the encoder refuses: those become raw bytes instead). */
  message(schema: DescMessage, depth = 0): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const field of schema.fields) {
      if (field.oneof || this.random() < 0.4) continue;
      out[field.localName] = this.fieldValue(field, depth);
    }
    return out;
  }

  /** Random bytes, for a request the decoder itself must refuse. */
  bytes(): Buffer {
    const n = Math.floor(this.random() * 200);
    return Buffer.from(Array.from({ length: n }, () => Math.floor(this.random() * 256)));
  }

  private fieldValue(field: DescField, depth: number): unknown {
    switch (field.fieldKind) {
      case 'scalar':
        return this.scalar(field.scalar);
      case 'enum':
        return this.pick([0, 1, 2, 3, 99, -1]);
      case 'message':
        return depth < 2 ? this.message(field.message, depth + 1) : {};
      case 'list': {
        const n = Math.floor(this.random() * 4);
        if (field.listKind === 'scalar') return Array.from({ length: n }, () => this.scalar(field.scalar));
        if (field.listKind === 'enum') return Array.from({ length: n }, () => this.pick([0, 1, 5]));
        return depth < 2 ? Array.from({ length: n }, () => this.message(field.message, depth + 1)) : [];
      }
      case 'map':
        return {};
    }
  }

  private scalar(type: ScalarType): unknown {
    switch (type) {
      case ScalarType.STRING:
        return this.string();
      case ScalarType.BOOL:
        return this.random() < 0.5;
      case ScalarType.BYTES:
        return new Uint8Array(this.bytes());
      case ScalarType.DOUBLE:
      case ScalarType.FLOAT:
        return this.number();
      case ScalarType.INT64:
      case ScalarType.SINT64:
      case ScalarType.SFIXED64:
        return BigInt(Math.trunc(this.pick(this.ints)));
      case ScalarType.UINT64:
      case ScalarType.FIXED64:
        return BigInt(Math.abs(Math.trunc(this.pick(this.ints))));
      case ScalarType.UINT32:
      case ScalarType.FIXED32:
        return Math.abs(Math.trunc(this.pick(this.ints))) >>> 0;
      default:
        return Math.trunc(this.pick(this.ints)) | 0;
    }
  }
}

/** An array nested `n` deep. */
function deep(n: number): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < n; i++) v = [v];
  return v;
}
