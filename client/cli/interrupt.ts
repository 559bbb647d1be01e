// Ctrl-C and SIGTERM for commands that must leave things tidy or say what they did before they
// go. Exit codes are the shell's for a signal: 128 + its number.

/** The exit code a process killed by `signal` would have had. */
export const exitCodeOf = (signal: NodeJS.Signals): number => (signal === 'SIGINT' ? 130 : 143);

/** Calls `handler` on Ctrl-C (SIGINT) or SIGTERM, until disposed. */
export function onInterrupt(handler: (signal: NodeJS.Signals) => void): { dispose(): void } {
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    dispose: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}

/** Why a long write stopped early: the user asked it to. */
export class Interrupted extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(signal === 'SIGINT' ? 'interrupted (Ctrl-C)' : `interrupted (${signal})`);
  }

  get exitCode(): number {
    return exitCodeOf(this.signal);
  }
}

/** The first signal aborts `signal` (with an Interrupted reason): the work finishes what is in
 *  flight, so what it then reports is what was stored, and stops. A second signal exits at once,
 *  with `atOnce` said on stderr. */
export function stopOnInterrupt(notice: string, atOnce: string): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const watching = onInterrupt((signal) => {
    if (!controller.signal.aborted) {
      process.stderr.write(`\nengram: ${notice} (press Ctrl-C again to stop at once)\n`);
      controller.abort(new Interrupted(signal));
      return;
    }
    process.stderr.write(`\nengram: stopped at once; ${atOnce}\n`);
    process.exit(exitCodeOf(signal));
  });
  return { signal: controller.signal, dispose: watching.dispose };
}
