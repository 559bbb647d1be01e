// Per-key locks: read-modify-write mutations of one fact run one after another. Several keys
// are taken in sorted order, so two writers needing the same keys can never wait on each other.
export class KeyedLocks {
  private readonly tails = new Map<string, Promise<unknown>>();

  async with<T>(keys: readonly string[], work: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort();
    const releases: (() => void)[] = [];
    try {
      for (const key of sorted) releases.push(await this.acquire(key));
      return await work();
    } finally {
      for (const release of releases) release();
    }
  }

  private async acquire(key: string): Promise<() => void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => held);
    this.tails.set(key, tail);
    await previous;
    return () => {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }
}
