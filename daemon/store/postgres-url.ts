// What a daemon needs to know about a PostgreSQL store's URL before (or without) loading the
// PostgreSQL driver: whether the store is one, and how to name it in messages.

export const isPostgresUrl = (where: string): boolean => /^postgres(ql)?:\/\//.test(where);

/** A query parameter that holds a credential (postgres://h/db?password=…, an API key). */
export const isCredentialParam = (name: string): boolean => /pass|secret|token|key/i.test(name);

/** The URL as messages, the log and saved settings name it: its password masked, in the user
 *  part or in a query parameter. */
export function redacted(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    for (const name of [...u.searchParams.keys()]) if (isCredentialParam(name)) u.searchParams.set(name, '***');
    return u.toString();
  } catch {
    return 'postgres://…';
  }
}
