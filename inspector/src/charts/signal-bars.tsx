// Signal contributions to one result: each signal adds weight / (k + rank) to the fused score,
// drawn as a stacked bar scaled to the best result's score, with the numbers beside it.
import type { ResponseOf } from '../api.ts';
import { score } from '../format.ts';

type Receipt = ResponseOf<'Receipt'>;

export const SIGNAL_COLOURS: Record<string, string> = { vector: '#2563eb', keyword: '#16a34a', recency: '#d97706', decay: '#7c3aed', graph: '#db2777' };

export interface Contribution {
  signal: string;
  rank: number;
  weight: number;
  value: number;
}

/** What each signal added, in the daemon's order (the sum is the receipt's fused score). */
export function contributions(r: Receipt): Contribution[] {
  const { ranks } = r;
  const all: [string, number | undefined, number | undefined][] = [
    ['vector', ranks.vector_rank, ranks.weights.vector],
    ['keyword', ranks.keyword_rank, ranks.weights.keyword],
    ['recency', ranks.recency_rank, ranks.weights.recency],
    ['decay', ranks.decay_rank, ranks.weights.decay],
    ['graph', ranks.graph_rank, ranks.weights.graph],
  ];
  return all.map(([signal, rank = 0, weight = 0]) => ({ signal, rank, weight, value: rank > 0 ? weight / (ranks.k + rank) : 0 }));
}

export function SignalBars({ receipt, scale }: { receipt: Receipt; scale: number }) {
  const parts = contributions(receipt).filter((c) => c.weight > 0);
  const width = 240;
  let x = 0;
  const label = parts.map((c) => (c.rank ? `${c.signal} rank ${c.rank} adds ${score(c.value)}` : `${c.signal} did not rank it`)).join('; ');
  return (
    <figure class="signals">
      <svg width={width} height="14" role="img" aria-label={`Fused score ${score(receipt.ranks.fused_score)}: ${label}`}>
        <rect width={width} height="14" fill="#f1f5f9" />
        {parts.map((c) => {
          const w = scale > 0 ? (c.value / scale) * width : 0;
          const bar = <rect x={x} width={w} height="14" fill={SIGNAL_COLOURS[c.signal]} data-signal={c.signal} />;
          x += w;
          return bar;
        })}
      </svg>
      <figcaption>
        {parts.map((c) => (
          <span key={c.signal} class="signal">
            <i style={{ background: SIGNAL_COLOURS[c.signal] }} /> {c.signal} {c.rank ? `#${c.rank} → ${score(c.value)}` : '—'}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
