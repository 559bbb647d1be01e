// Prometheus text exposition (format 0.0.4) for GET /metrics. Request series are labelled by
// route template, never by raw path, so ids in URLs cannot grow the number of series; store
// gauges are read from in-memory state at scrape time (no scan of the facts table).
import type { ConsolidationCounters } from '../../../shared/model.ts';
import type { IndexGauges, RecallTimesSnapshot } from '../../core/engram.ts';

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Seconds; covers a sub-millisecond recall up to a slow reindex-era request. */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}

export class Metrics {
  private readonly requests = new Map<string, number>();
  private readonly durations = new Map<string, Histogram>();
  private readonly rpcs = new Map<string, number>();
  private readonly streamMessages = new Map<string, number>();
  private readonly streamLoad = new Map<string, { inProgress: number; peak: number }>();

  /** One gRPC call ended: `method` is "package.Service/Method", `code` its status code. */
  observeRpc(method: string, code: number): void {
    const key = labels({ method, code: GRPC_CODE_NAMES[code] ?? String(code) });
    this.rpcs.set(key, (this.rpcs.get(key) ?? 0) + 1);
  }

  /** A long-lived stream answered one request: streams end rarely, so calls alone would not
   *  show their traffic. */
  observeStreamMessage(method: string): void {
    const key = labels({ method });
    this.streamMessages.set(key, (this.streamMessages.get(key) ?? 0) + 1);
  }

  /** The requests one stream has in progress changed by `change`, to `inProgress` (see
   *  ServeOptions.onStreamLoad): the daemon's total by method, and the most one stream has held, which
   *  shows whether any client has met the per-stream bound. */
  observeStreamLoad(method: string, change: number, inProgress: number): void {
    const key = labels({ method });
    let load = this.streamLoad.get(key);
    if (!load) this.streamLoad.set(key, (load = { inProgress: 0, peak: 0 }));
    load.inProgress += change;
    load.peak = Math.max(load.peak, inProgress);
  }

  /** `route` is the matched template ("/v1/facts/{id}") or "unmatched". */
  observe(method: string, route: string, status: number, seconds: number): void {
    const requestKey = labels({ method, route, status: String(status) });
    this.requests.set(requestKey, (this.requests.get(requestKey) ?? 0) + 1);
    const durationKey = labels({ method, route });
    let h = this.durations.get(durationKey);
    if (!h) this.durations.set(durationKey, (h = { counts: BUCKETS.map(() => 0), sum: 0, count: 0 }));
    BUCKETS.forEach((bound, i) => {
      if (seconds <= bound) h.counts[i]!++;
    });
    h.sum += seconds;
    h.count++;
  }

  render(gauges: IndexGauges, consolidation: ConsolidationCounters, recall: RecallTimesSnapshot): string {
    const lines: string[] = [];
    const gauge = (name: string, help: string, value: number) => lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name} ${value}`);
    const counter = (name: string, help: string, value: number) => lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`, `${name} ${value}`);
    // A gauge despite the _total suffix (facts can be retired), counted from the indexes.
    gauge('engram_facts_total', 'Live recallable facts in the store (retired and alias records excluded).', gauges.liveFacts);
    gauge('engram_namespaces', 'Agent namespaces with at least one live fact.', gauges.namespaces);
    gauge('engram_pending_embeddings', 'Recallable facts waiting for a vector from the current embedder.', gauges.pendingEmbeddings);
    // Lifetime totals kept in the store, so they survive restarts.
    counter('engram_consolidation_runs_total', 'Consolidation runs (dry runs excluded).', consolidation.runs);
    counter('engram_consolidation_summaries_total', 'Summary facts consolidation wrote.', consolidation.summariesWritten);
    counter('engram_consolidation_retired_total', 'Facts consolidation retired in favour of a summary.', consolidation.factsRetired);
    counter('engram_consolidation_failures_total', 'Sources a run kept because they changed after it chose them.', consolidation.failures);
    counter('engram_consolidation_rejected_total', "Summaries a model proposed that failed validation (nothing was written).", consolidation.rejectedProposals);
    gauge('engram_consolidation_queued', 'Consolidation runs waiting or running.', consolidation.queued);

    counter('engram_recalls_total', 'Queries ranked (each query of a batch recall counts; context assembly recalls too).', recall.recalls);
    lines.push('# HELP engram_recall_stage_seconds_total Time recalls spent in each stage: embedding the query, expanding it, the signals, fusion, reading the facts, the rest (signals and fusion per namespace ranked).', '# TYPE engram_recall_stage_seconds_total counter');
    // In the order the stages run, not sorted.
    for (const [stage, seconds] of Object.entries(recall.stages)) lines.push(`engram_recall_stage_seconds_total{${labels({ stage })}} ${seconds}`);
    lines.push('# HELP engram_recall_signal_seconds_total Time each match signal took to rank, from the start of the signals (the vector signal\'s includes waiting for the graph thread).', '# TYPE engram_recall_signal_seconds_total counter');
    for (const [signal, seconds] of sorted(new Map(Object.entries(recall.signals)))) lines.push(`engram_recall_signal_seconds_total{${labels({ signal })}} ${seconds}`);

    lines.push('# HELP engram_requests_total HTTP requests answered, by route template and status.', '# TYPE engram_requests_total counter');
    for (const [key, n] of sorted(this.requests)) lines.push(`engram_requests_total{${key}} ${n}`);

    lines.push('# HELP engram_grpc_calls_total gRPC calls answered, by method and status code.', '# TYPE engram_grpc_calls_total counter');
    for (const [key, n] of sorted(this.rpcs)) lines.push(`engram_grpc_calls_total{${key}} ${n}`);

    lines.push('# HELP engram_grpc_stream_messages_total Requests answered on gRPC streams (e.g. the write stream), by method.', '# TYPE engram_grpc_stream_messages_total counter');
    for (const [key, n] of sorted(this.streamMessages)) lines.push(`engram_grpc_stream_messages_total{${key}} ${n}`);

    lines.push('# HELP engram_grpc_stream_requests_in_progress Requests taken on open gRPC streams and not yet answered, by method.', '# TYPE engram_grpc_stream_requests_in_progress gauge');
    for (const [key, load] of sorted(this.streamLoad)) lines.push(`engram_grpc_stream_requests_in_progress{${key}} ${load.inProgress}`);
    lines.push('# HELP engram_grpc_stream_requests_in_progress_peak The most requests one gRPC stream has had in progress at once since the daemon started, by method.', '# TYPE engram_grpc_stream_requests_in_progress_peak gauge');
    for (const [key, load] of sorted(this.streamLoad)) lines.push(`engram_grpc_stream_requests_in_progress_peak{${key}} ${load.peak}`);

    const name = 'engram_request_duration_seconds';
    lines.push(`# HELP ${name} HTTP request duration, from the request's arrival to the end of its response.`, `# TYPE ${name} histogram`);
    for (const [key, h] of sorted(this.durations)) {
      BUCKETS.forEach((bound, i) => lines.push(`${name}_bucket{${key},le="${bound}"} ${h.counts[i]}`));
      lines.push(`${name}_bucket{${key},le="+Inf"} ${h.count}`, `${name}_sum{${key}} ${h.sum}`, `${name}_count{${key}} ${h.count}`);
    }
    return `${lines.join('\n')}\n`;
  }
}

const GRPC_CODE_NAMES = ['OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS', 'PERMISSION_DENIED', 'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE', 'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS', 'UNAUTHENTICATED'];

function labels(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)
    .join(',');
}

const sorted = <T>(map: Map<string, T>) => [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
