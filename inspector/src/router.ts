// Hash routes (#/ns/<agent>/facts?…): the daemon serves one page, and a link or a reload lands
// on the same view. Each part of the path is URI-encoded, so any namespace or id fits.
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  parts: string[];
  params: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#\/?/, '').split('?');
  return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(search) };
}

export function href(parts: readonly string[], params: Record<string, string | undefined> | URLSearchParams = {}): string {
  const search = params instanceof URLSearchParams ? params : new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''));
  const qs = search.toString();
  return `#/${parts.map(encodeURIComponent).join('/')}${qs ? `?${qs}` : ''}`;
}

export const navigate = (to: string) => {
  window.location.hash = to;
};

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
