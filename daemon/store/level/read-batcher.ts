// Gathers the reads of one table started in the same turn of the event loop into one getMany.
// Each classic-level call is a trip through libuv's thread pool, which costs far more than
// reading a small record: a batch replayed from its request records reads a thousand facts one
// by one, and together they take one trip instead of a thousand.

type Pending<V> = { keys: readonly string[]; resolve: (values: (V | undefined)[]) => void; reject: (error: unknown) => void };

export class ReadBatcher<V> {
  private pending: Pending<V>[] = [];

  constructor(private readonly readMany: (keys: string[]) => Promise<(V | undefined)[]>) {}

  /** The values of `keys`, in order (undefined: absent), read together with every other read
   *  asked for before the current microtasks have run. */
  getMany(keys: readonly string[]): Promise<(V | undefined)[]> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) queueMicrotask(() => void this.flush());
      this.pending.push({ keys, resolve, reject });
    });
  }

  async get(key: string): Promise<V | undefined> {
    return (await this.getMany([key]))[0];
  }

  private async flush(): Promise<void> {
    const readers = this.pending;
    this.pending = [];
    let values: (V | undefined)[];
    try {
      values = await this.readMany(readers.flatMap((r) => r.keys));
    } catch (error) {
      for (const reader of readers) reader.reject(error);
      return;
    }
    let at = 0;
    for (const reader of readers) {
      reader.resolve(values.slice(at, at + reader.keys.length));
      at += reader.keys.length;
    }
  }
}
