// Reading a file a person named on the command line ("-" is stdin). A file that cannot be read
// is reported in one line saying why and what did not happen, without a stack: still a file
// error (code, syscall), so the exit code is 1, not a usage error.
import { readFileSync } from 'node:fs';

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
