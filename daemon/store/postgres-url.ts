// What a daemon needs to know about a PostgreSQL store's URL before (or without) loading the
// PostgreSQL driver: whether the store is one, and how to name it in messages.

export const isPostgresUrl = (where: string): boolean => /^postgres(ql)?:\/\//.test(where);

/** The URL without its password. */
export function redacted(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://…';
  }
}
