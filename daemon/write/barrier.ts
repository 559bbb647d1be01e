// The write barrier: every mutation runs inside `shared`; a job that must see the store hold
// still (a rebuild of derived rows, switching the embedder of record) runs inside `exclusive`,
// which waits for the writes in flight and holds new ones back until it is done. New shared
// work queues behind a waiting exclusive job, so a steady stream of writes cannot starve it.
export class WriteBarrier {
  private active = 0;
  private exclusiveHeld = false;
  private readonly waitingExclusive: (() => void)[] = [];
  private readonly waitingShared: (() => void)[] = [];
  private idle: (() => void) | null = null;

  async shared<T>(work: () => Promise<T>): Promise<T> {
    if (this.exclusiveHeld || this.waitingExclusive.length > 0) await new Promise<void>((resolve) => this.waitingShared.push(resolve));
    this.active++;
    try {
      return await work();
    } finally {
      if (--this.active === 0) this.idle?.();
    }
  }

  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.hold();
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** Takes the barrier exclusively until the returned release is called (for generators, which
   *  cannot run inside a callback). */
  async hold(): Promise<() => void> {
    if (this.exclusiveHeld || this.waitingExclusive.length > 0) await new Promise<void>((resolve) => this.waitingExclusive.push(resolve));
    this.exclusiveHeld = true;
    if (this.active > 0) await new Promise<void>((resolve) => (this.idle = resolve));
    this.idle = null;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release();
    };
  }

  private release(): void {
    const next = this.waitingExclusive.shift();
    if (next) {
      next(); // stays held: the next exclusive job takes over
      return;
    }
    this.exclusiveHeld = false;
    for (const resume of this.waitingShared.splice(0)) resume();
  }
}
