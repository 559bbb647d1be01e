// The bench scripts' flags: a value a script cannot use is one line naming the flag (exit 2)
// before any daemon starts, not a stack trace from the daemon it would have started.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { ROOT } from './fixtures/daemon.ts';

const run = promisify(execFile);

/** `npm run <script> -- <args>`, as a developer runs it (without npm's own output). */
async function bench(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', file), ...args], { cwd: ROOT });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('bench flags', () => {
  test.each([
    ['bench:scale', 'scale.ts', ['--embedder', 'ollama', '--sizes', '1000'], '--embedder takes local or none, got "ollama"'],
    ['bench:import', 'import.ts', ['--embedder', 'ollama'], '--embedder takes local or none, got "ollama"'],
    ['bench:quality', 'quality.ts', ['--embedder', 'ollama'], '--embedder takes local or none, got "ollama"'],
    ['bench', 'run.ts', ['--embedders', 'local,ollama'], '--embedders takes local or none, got "ollama"'],
  ])('%s refuses an embedder it cannot run, naming the flag (exit 2)', async (script, file, args, message) => {
    const result = await bench(file, args);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toBe(`${script}: ${message} (see --help)\n`);
  });
});
