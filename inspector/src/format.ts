// How the page writes times, sizes and scores.
export const when = (iso: string | null | undefined): string => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC') : '—');
export const day = (iso: string | null | undefined): string => (iso ? iso.slice(0, 10) : '—');
export const score = (n: number): string => (Math.abs(n) >= 0.01 || n === 0 ? n.toFixed(4) : n.toExponential(2));

export function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** A retired fact is forgotten, or replaced: by a revision, a merged cluster or a consolidation
 *  summary alike (its successor, in the lineage, says which). */
export const status = (f: { superseded_by: string | null }): string => (f.superseded_by === null ? 'live' : f.superseded_by === 'agent' ? 'forgotten' : 'replaced');
