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

/** Where a stop that exits at once left the work. */
export type StoppedAt = 'before anything was written' | 'at once, with writes in flight';

/** Before `writing()`, a signal exits at once (nothing was written: there is nothing to report but
 *  the stop). After it, the first signal aborts `signal`: the work finishes what is in flight, so
 *  what it then reports is what was stored, and stops; a second exits at once, with `atOnce` said
 *  on stderr. `exiting` may say either stop where it must be said too (--json, on stdout). */
export function stopOnInterrupt(notice: string, atOnce: string, exiting?: (signal: NodeJS.Signals, where: StoppedAt) => void): StoppableWork {
  const controller = new AbortController();
  let writing = false;
  const watching = onInterrupt((signal) => {
    if (!writing) {
      exiting?.(signal, 'before anything was written');
      process.stderr.write(`\nengram: interrupted before anything was written\n`);
      process.exit(exitCodeOf(signal));
    }
    if (!controller.signal.aborted) {
      process.stderr.write(`\nengram: ${notice} (interrupt again to stop at once)\n`);
      controller.abort(new Interrupted(signal));
      return;
    }
    exiting?.(signal, 'at once, with writes in flight');
    process.stderr.write(`\nengram: stopped at once; ${atOnce}\n`);
    process.exit(exitCodeOf(signal));
  });
  return { signal: controller.signal, writing: () => (writing = true), dispose: watching.dispose };
}
