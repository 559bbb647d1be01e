// Loading a view's data: the value, or what went wrong said in words, and a way to load again
// after an action changed it.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  value?: T;
  error?: string;
  loading: boolean;
  reload: () => void;
}

export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ value?: T; error?: string; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  const shown = useRef<string>();
  useEffect(() => {
    let current = true;
    // Loading something else (another namespace, fact or page) drops what was shown, so it is
    // never taken for the new one; loading the same again after an action keeps it meanwhile.
    const key = JSON.stringify(deps);
    setState((s) => (shown.current === key ? { ...s, loading: true } : { loading: true }));
    shown.current = key;
    load().then(
      (value) => current && setState({ value, loading: false }),
      (error: Error) => current && setState({ error: error.message, loading: false }),
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  return { ...state, reload: useCallback(() => setRound((r) => r + 1), []) };
}

export function Problem({ message }: { message?: string }) {
  if (!message) return null;
  return (
    <p class="problem" role="alert">
      {message}
    </p>
  );
}

/** The children once loaded; a loading line or the error until then. */
export function Show<T>({ loaded, children }: { loaded: Loaded<T>; children: (value: T) => ComponentChildren }) {
  if (loaded.error) return <Problem message={loaded.error} />;
  if (loaded.value === undefined) return <p aria-busy="true">Loading…</p>;
  return <>{children(loaded.value)}</>;
}
