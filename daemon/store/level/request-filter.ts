// The request-id filter survives a clean stop: it is saved beside the store after closing it,
// with the store's fingerprint, and trusted at the next open only if the store's files are still
// exactly as they were left. Anything else rebuilds it from the requests table.
import { readFileSync, rmSync } from 'node:fs';
import { writeFileAtomically } from '../../files/atomic-file.ts';
import { BloomFilter } from './bloom.ts';

const MAGIC = 'engram-request-filter-1';

export function saveRequestFilter(path: string, filter: BloomFilter, fingerprint: string): void {
  const header = Buffer.from(`${JSON.stringify({ magic: MAGIC, fingerprint })}\n`);
  const words = filter.words;
  writeFileAtomically(path, [header, new Uint8Array(words.buffer, words.byteOffset, words.byteLength)]);
}

/** The saved filter if it describes exactly this store content; removed either way, so it is
 *  never trusted twice. */
export function takeRequestFilter(path: string, fingerprint: string): BloomFilter | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return null;
  }
  rmSync(path, { force: true });
  try {
    const end = bytes.indexOf(0x0a);
    const header = JSON.parse(bytes.subarray(0, end).toString('utf8')) as { magic?: string; fingerprint?: string };
    if (header.magic !== MAGIC || header.fingerprint !== fingerprint || !fingerprint) return null;
    const body = bytes.subarray(end + 1);
    const words = new Uint32Array(body.byteLength / 4);
    new Uint8Array(words.buffer).set(body);
    return new BloomFilter(words);
  } catch {
    return null;
  }
}
