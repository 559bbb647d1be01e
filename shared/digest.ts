// One-shot digests of strings (UTF-8). crypto.hash (Node 20.12 and later) hashes without building
// a Hash stream object: about three times cheaper for the short texts a write digests several of
// per fact. Node 20 releases before it take the stream path; both give the same digest.
import * as crypto from 'node:crypto';

type Algorithm = 'sha1' | 'sha256';
type Encoding = 'hex' | 'base64' | 'base64url';

const oneShot = (crypto as Partial<Pick<typeof crypto, 'hash'>>).hash;

export function digestOf(algorithm: Algorithm, data: string, encoding: Encoding): string {
  return oneShot ? oneShot(algorithm, data, encoding) : crypto.createHash(algorithm).update(data).digest(encoding);
}
