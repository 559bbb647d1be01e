// An uncertain write in the CLI's words. The library's advice names its own call
// (writeStatus(requestId)); a CLI user settles it with a command.
import type { UncertainWriteError } from '../errors.ts';

export function uncertainInCliWords(error: UncertainWriteError): string {
  // Only a daemon with write-status can say; a batch (import) says its own resume advice.
  if (error.finish !== 'writeStatus' || error.requestIds.length !== 1) return error.message;
  const cause = (error.cause as Error | undefined)?.message ?? String(error.cause);
  return (
    `outcome unknown: the daemon may or may not have stored it (${cause}), and it was not sent again. ` +
    `"engram write-status ${error.requestId}" tells whether it was; if not, running the same command again is safe.`
  );
}
