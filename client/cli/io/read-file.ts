// Reading a file a person named on the command line ("-" is stdin). A file that cannot be read
// is reported in one line saying why and what did not happen, without a stack: still a file
// error (code, syscall), so the exit code is 1, not a usage error. Text that is not UTF-8 is a
// usage error (exit 2): it is refused, never stored with replacement characters.
import { readFileSync } from 'node:fs';
import { usage } from '../context.ts';

/** `nothing`: what did not happen because of it ("nothing was imported"). */
export function readNamedFile(file: string, nothing: string, name = file): Buffer {
  try {
    return readFileSync(file === '-' ? 0 : file);
  } catch (error) {
    const { code, syscall } = error as NodeJS.ErrnoException;
    if (typeof syscall !== 'string') throw error;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (error as Error).message;
    throw Object.assign(new Error(`cannot read ${name}: ${why}; ${nothing}`), { code, syscall });
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes as UTF-8 text (a byte-order mark dropped); null when they are not UTF-8. */
export function utf8(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/** Bytes read from what `name` says ("--state-file a.json", "<text...>: stdin", first in the
 *  error) as UTF-8 text; `field` is the flag or argument a --json error names. */
export function utf8Text(bytes: Uint8Array, name: string, nothing: string, field: string): string {
  const text = utf8(bytes);
  if (text === null) usage(`${name} is not valid UTF-8 (convert it to UTF-8); ${nothing}`, field);
  return text;
}

/** A named file's text (see utf8Text). */
export const readNamedText = (file: string, nothing: string, name: string, field: string): string => utf8Text(readNamedFile(file, nothing, name), name, nothing, field);

/** A text argument, or all of stdin when it is "-" (one trailing newline dropped). `name` is the
 *  argument or flag as its usage line shows it ("<text...>", "--text"), `field` as --json names it. */
export function textArgument(value: string, name: string, field = name): string {
  if (value !== '-') return value;
  const text = readNamedText('-', 'nothing was sent', `${name}: stdin`, field).replace(/\r?\n$/, '');
  if (text.trim() === '') usage(`${name}: stdin was empty`, field);
  return text;
}
