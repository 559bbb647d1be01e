// LISTEN on one channel with a connection of its own, reconnecting while the server is away.
// A notification only wakes the follower (which reads the change log itself), so one missed
// while disconnected costs nothing: every (re)connect wakes it too.
import pg from 'pg';

const RETRY_MS = 1000;

export function watchChannel(url: string, channel: string, wake: () => void): () => void {
  let stopped = false;
  let client: pg.Client | null = null;
  let timer: NodeJS.Timeout | null = null;

  const retry = () => {
    client = null;
    if (!stopped) timer = setTimeout(connect, RETRY_MS).unref();
  };
  const connect = async () => {
    timer = null;
    const c = new pg.Client({ connectionString: url });
    client = c;
    c.on('error', () => undefined);
    c.on('end', () => client === c && retry());
    c.on('notification', () => wake());
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
      if (stopped) await c.end();
      else wake();
    } catch {
      if (client === c) {
        client = null;
        await c.end().catch(() => undefined);
        retry();
      }
    }
  };
  void connect();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    const c = client;
    client = null;
    void c?.end().catch(() => undefined);
  };
}
