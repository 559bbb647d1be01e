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

export interface StoppableWork {
  /** Aborted (with an Interrupted reason) by the first signal once writing has started. */
  signal: AbortSignal;
  /** Marks that writing has started: from then on the first signal lets it finish what is in flight. */
  writing(): void;
  dispose(): void;
}

/** Before `writing()`, a signal exits at once (nothing was written: there is nothing to report but
 *  the stop, which `beforeWriting` may say, as --json does on stdout). After it, the first signal
 *  aborts `signal`: the work finishes what is in flight, so what it then reports is what was stored,
 *  and stops; a second exits at once, with `atOnce` said on stderr. */
export function stopOnInterrupt(notice: string, atOnce: string, beforeWriting?: (signal: NodeJS.Signals) => void): StoppableWork {
  const controller = new AbortController();
  let writing = false;
  const watching = onInterrupt((signal) => {
    if (!writing) {
      beforeWriting?.(signal);
      process.stderr.write(`\nengram: interrupted before anything was written\n`);
      process.exit(exitCodeOf(signal));
    }
    if (!controller.signal.aborted) {
      process.stderr.write(`\nengram: ${notice} (interrupt again to stop at once)\n`);
      controller.abort(new Interrupted(signal));
      return;
    }
    process.stderr.write(`\nengram: stopped at once; ${atOnce}\n`);
    process.exit(exitCodeOf(signal));
  });
  return { signal: controller.signal, writing: () => (writing = true), dispose: watching.dispose };
}
