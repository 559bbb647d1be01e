// Request bodies, the same for every HTTP door: at most BODY_LIMIT bytes, refused with 413 as
// soon as it is known to be too big (from Content-Length, or while streaming a chunked body), so
// nothing beyond the limit is ever held. After the answer the rest is dropped as it arrives, and
// a client that keeps sending is cut off (discardRest).
import type { IncomingMessage } from 'node:http';
import { ErrorKind } from '../../shared/errors.ts';
import { parseJsonObject } from '../../shared/validate.ts';
import { badRequest, HttpError } from './errors.ts';

export const BODY_LIMIT = 1024 * 1024;

// Fatal: invalid bytes are an error rather than silently becoming U+FFFD in a stored fact.
const UTF8 = new TextDecoder('utf-8', { fatal: true });

export const tooLarge = (): HttpError =>
  new HttpError(413, ErrorKind.ResourceExhausted, `body: exceeds the limit of ${BODY_LIMIT} bytes (1 MiB)`, 'body');

/** Whether a request declares a body over the limit (refused before any handler runs). */
export const declaresTooMuch = (req: IncomingMessage): boolean => Number(req.headers['content-length'] ?? 0) > BODY_LIMIT;

/** The body as text: valid UTF-8 or a 400 naming "body". Read straight from the socket with
 *  the limit applied while it streams (so a refused rest can be dropped as it arrives). */
export async function bodyText(req: IncomingMessage): Promise<string> {
  const bytes = await readLimited(req, BODY_LIMIT);
  try {
    return UTF8.decode(bytes);
  } catch (error) {
    if (error instanceof TypeError) throw badRequest('body', 'is not valid UTF-8');
    throw error;
  }
}

function readLimited(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Stop collecting: the answer is a 413 at once, and the rest is dropped (discardRest).
        cleanup();
        req.pause();
        chunks.length = 0;
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    if (req.readableEnded) return resolve(Buffer.alloc(0));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** The body as a JSON object, or a 400 naming "body". */
export async function jsonObjectBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const text = await bodyText(req);
  if (text.trim() === '') throw badRequest('body', 'a JSON object is required');
  const parsed = parseJsonObject(text);
  if ('syntax' in parsed) throw badRequest('body', 'is not valid JSON');
  if ('got' in parsed) throw badRequest('body', 'must be a JSON object');
  return parsed.object;
}

/** After an early answer (413, 401, 404...), bytes of the body the client is still sending. */
const DRAIN_CAP_BYTES = 8 * 1024 * 1024;
const DRAIN_MS = 5_000;

/** Called once the answer is sent while the request body is still arriving. Hanging up at once
 *  would be simplest, but clients that are still uploading (fetch/undici, most HTTP libraries)
 *  then report EPIPE or ECONNRESET instead of the 413 they were sent; measured on loopback with
 *  fetch, 10-18 of 40 streamed 2 MiB uploads lost their answer that way. So the rest is read and
 *  dropped chunk by chunk (never held), up to a cap in bytes and time, and only a client that
 *  keeps sending beyond that has its connection cut. */
export function discardRest(req: IncomingMessage): void {
  let discarded = 0;
  const cut = () => req.socket.destroy();
  const timer = setTimeout(cut, DRAIN_MS).unref();
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DRAIN_CAP_BYTES) {
      clearTimeout(timer);
      cut();
    }
  });
  req.once('end', () => clearTimeout(timer));
  req.once('close', () => clearTimeout(timer));
  req.resume();
}
