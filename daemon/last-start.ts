// The daemon keeps the settings of its start in DIR/last-start.json (shared/last-start.ts), which
// a stop leaves in place: the next `engram start`, `engram restart` or `engram mcp` brings the
// daemon back as it was, and a daemon started with the default store in a directory whose memory
// is in PostgreSQL refuses (store-guard.ts). The content is the discovery file's record, which
// holds no secret; the store's name is masked as the log names it.
import { lastStartPath, type LastStart } from '../shared/last-start.ts';
import { writeFileAtomically } from './files/atomic-file.ts';
import { isPostgresUrl, redacted } from './store/postgres-url.ts';

export interface StartSettings {
  dataDir: string;
  store?: string;
  startFlags?: string[];
  secretVariables?: string[];
  secretFlags?: Record<string, string>;
}

/** Written atomically (0600): a crash mid-write must not leave a torn file that loses the store. */
export function recordLastStart(settings: StartSettings): void {
  // A daemon started without a record (started in-process, as tests and tools do) has none to keep.
  if (!settings.startFlags) return;
  const record: LastStart = {
    startFlags: settings.startFlags,
    secretVariables: settings.secretVariables ?? [],
    ...(settings.secretFlags && Object.keys(settings.secretFlags).length ? { secretFlags: settings.secretFlags } : {}),
    ...(settings.store && isPostgresUrl(settings.store) ? { postgresStore: redacted(settings.store) } : {}),
  };
  writeFileAtomically(lastStartPath(settings.dataDir), [Buffer.from(`${JSON.stringify(record, null, 2)}\n`)]);
}
