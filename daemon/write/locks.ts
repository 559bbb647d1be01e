// Per-key locks: read-modify-write mutations of one fact run one after another. A writer queues
// for all its keys at once, synchronously, when it asks: writers get each key in the order they
// asked for it, and none holds one key while queuing for another, so two writers can never wait
// on each other (and a batch whose writes ask in item order runs them in item order).
export class KeyedLocks {
  /** Per key, what the last writer to queue for it resolves when it releases. */
  private readonly tails = new Map<string, Promise<void>>();

  async with<T>(keys: readonly string[], work: () => Promise<T>): Promise<T> {
    const waits: Promise<void>[] = [];
    const releases: (() => void)[] = [];
    for (const key of new Set(keys)) {
      const previous = this.tails.get(key);
      if (previous) waits.push(previous);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      this.tails.set(key, held);
      releases.push(() => {
        release();
        if (this.tails.get(key) === held) this.tails.delete(key);
      });
    }
    try {
      // A writer releases only after it ran, which was after the one before it released.
      if (waits.length > 0) await Promise.all(waits);
      return await work();
    } finally {
      for (const release of releases) release();
    }
  }
}
