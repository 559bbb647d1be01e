// A namespace at a glance: its counts, what waits for an embedding, the daemon's consolidation
// totals, the whole store's size (labelled so: there is none per namespace), and facts over time.
import { get } from '../api.ts';
import { TimelineChart } from '../charts/timeline-chart.tsx';
import { bytes, when } from '../format.ts';
import { Show, useLoad } from '../parts/load.tsx';
import { href } from '../router.ts';

export function Overview({ agent }: { agent: string }) {
  const stats = useLoad(() => get('Stats', '/v1/stats', { agent_id: agent }), [agent]);
  const consolidation = useLoad(() => get('ConsolidationCounters', '/v1/consolidations/status'), []);
  const timeline = useLoad(() => get('Timeline', '/v1/timeline', { agent_id: agent }), [agent]);
  const list = (params: Record<string, string>) => href(['ns', agent, 'facts'], params);
  return (
    <section aria-labelledby="overview-title">
      <h2 id="overview-title">{agent}</h2>
      <Show loaded={stats}>
        {(s) => (
          <dl class="counts" aria-label="Counts">
            <Count label="Live" value={s.live_count} to={list({ retired: 'false' })} />
            <Count label="Retired" value={s.retired_count} to={list({ retired: 'true' })} />
            <Count label="Pinned" value={s.pinned_count} to={list({ pinned: 'true' })} />
            <Count label="Verified" value={s.live_by_confidence.verified} to={list({ confidence: 'verified', retired: 'false' })} />
            <Count label="Inferred" value={s.live_by_confidence.inferred} to={list({ confidence: 'inferred', retired: 'false' })} />
            <Count label="Unverified" value={s.live_by_confidence.unverified} to={list({ confidence: 'unverified', retired: 'false' })} />
            <Count label="Pending embeddings" value={s.pending_embeddings} />
            <Count label="Vectors" value={s.vector_count} />
            <Count label="Store size (all namespaces)" value={bytes(s.store_bytes)} />
            <Count label="Embedder" value={s.embedder} />
            <Count label="Oldest" value={when(s.oldest_created_at)} />
            <Count label="Newest" value={when(s.newest_created_at)} />
          </dl>
        )}
      </Show>
      <h3>Consolidation (whole daemon)</h3>
      <Show loaded={consolidation}>
        {(c) => (
          <dl class="counts" aria-label="Consolidation">
            <Count label="Runs" value={c.runs} />
            <Count label="Summaries written" value={c.summaries_written} />
            <Count label="Facts retired" value={c.facts_retired} />
            <Count label="Failures" value={c.failures} />
            <Count label="Rejected proposals" value={c.rejected_proposals} />
            <Count label="Queued" value={c.queued} />
            <Count label="Last run" value={when(c.last_run_at)} />
          </dl>
        )}
      </Show>
      <h3>Facts over time</h3>
      <Show loaded={timeline}>{(t) => <TimelineChart days={t.days} />}</Show>
    </section>
  );
}

function Count({ label, value, to }: { label: string; value: number | string; to?: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd data-count={label}>{to ? <a href={to}>{value}</a> : value}</dd>
    </div>
  );
}
