// The PostgreSQL leg of a contract suite: every daemon the suite starts serves a database of the
// test server. Its own test proves the suite's daemons do.
import { expect, test } from 'vitest';
import { removeDir, startDaemon } from '../fixtures/daemon.ts';

export function postgresLeg(): void {
  process.env.ENGRAM_TEST_STORE = 'postgres';
  test('the daemons of this suite serve the PostgreSQL store', async () => {
    const daemon = await startDaemon();
    try {
      const client = await daemon.client();
      expect(client.daemon.store).toBe('postgres');
      client.close();
    } finally {
      await daemon.stop();
      removeDir(daemon.dataDir);
    }
  });
}
