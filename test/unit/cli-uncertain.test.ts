// An uncertain write as the CLI reports it: what to run to settle it, not the library's call.
import { describe, expect, test } from 'vitest';
import { UncertainWriteError } from '../../client/errors.ts';
import { uncertainInCliWords } from '../../client/cli/uncertain.ts';

describe('an uncertain write in the CLI\'s words', () => {
  test('names the engram write-status command and the request id, not the library call', () => {
    const error = new UncertainWriteError(['req-7'], 'put', new Error('deadline exceeded'), 'writeStatus');
    expect(error.message).toContain('writeStatus(requestId)');
    const said = uncertainInCliWords(error);
    expect(said).toBe('outcome unknown: the daemon may or may not have stored it (deadline exceeded), and it was not sent again. "engram write-status req-7" tells whether it was; if not, running the same command again is safe.');
  });

  test('a daemon without write-status, or a batch, keeps the library\'s advice (it has no command to name)', () => {
    const older = new UncertainWriteError(['req-8'], 'put', new Error('connection dropped'), 'resend');
    expect(uncertainInCliWords(older)).toBe(older.message);
    const batch = new UncertainWriteError(['a', 'b'], 'putBatch', new Error('connection dropped'));
    expect(uncertainInCliWords(batch)).toBe(batch.message);
  });
});
