// One fact, all of it: every field, where it came from and what replaced it, its graph
// neighbourhood, its use and decay, and the actions a person may take on it (forget and delete
// ask first).
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { del, get, post, type Fact, type ResponseOf } from '../api.ts';
import { DecayChart } from '../charts/decay-chart.tsx';
import { score, status, when } from '../format.ts';
import { Confirm } from '../parts/confirm.tsx';
import { Problem, Show, useLoad } from '../parts/load.tsx';
import { href, navigate } from '../router.ts';

export function FactView({ agent, factId }: { agent: string; factId: string }) {
  const fact = useLoad(() => get('FactEnvelope', `/v1/facts/${encodeURIComponent(factId)}`, { agent_id: agent }), [agent, factId]);
  return (
    <section aria-labelledby="fact-title">
      <p>
        <a href={href(['ns', agent, 'facts'])}>← Facts</a>
      </p>
      <Show loaded={fact}>
        {({ fact: f }) => (
          <>
            <h2 id="fact-title">{f.text}</h2>
            <Actions fact={f} onChanged={fact.reload} />
            <Fields fact={f} />
            <Lineage agent={agent} fact={f} />
            <Neighbourhood agent={agent} fact={f} />
            <Decay agent={agent} fact={f} />
          </>
        )}
      </Show>
    </section>
  );
}

type Pending = { kind: 'forget' | 'delete' } | undefined;

function Actions({ fact: f, onChanged }: { fact: Fact; onChanged: () => void }) {
  const [asking, setAsking] = useState<Pending>();
  const [problem, setProblem] = useState<string>();
  const [done, setDone] = useState<string>();
  const path = `/v1/facts/${encodeURIComponent(f.id)}`;
  const run = (what: string, action: () => Promise<unknown>, after = onChanged) => {
    setProblem(undefined);
    setAsking(undefined);
    action().then(
      () => (setDone(what), after()),
      (e: Error) => setProblem(e.message),
    );
  };
  const live = f.superseded_by === null;
  return (
    <div class="actions" role="group" aria-label="Actions">
      {f.pinned ? (
        <button type="button" onClick={() => run('Unpinned.', () => post('FactEnvelope', `${path}/unpin`, { agent_id: f.agent_id }))}>
          Unpin
        </button>
      ) : (
        <button type="button" onClick={() => run('Pinned.', () => post('FactEnvelope', `${path}/pin`, { agent_id: f.agent_id }))}>
          Pin
        </button>
      )}
      <label>
        Confidence{' '}
        <select
          aria-label="Confidence"
          value={f.confidence ?? 'inferred'}
          onChange={(e) => run('Confidence changed.', () => post('FactEnvelope', `${path}/confidence`, { agent_id: f.agent_id, confidence: (e.target as HTMLSelectElement).value }))}
        >
          <option value="verified">verified</option>
          <option value="inferred">inferred</option>
          <option value="unverified">unverified</option>
        </select>
      </label>
      <button type="button" class="danger" disabled={!live} onClick={() => setAsking({ kind: 'forget' })}>
        Forget
      </button>
      <button type="button" class="danger" onClick={() => setAsking({ kind: 'delete' })}>
        Delete
      </button>
      <span aria-live="polite" class="done">
        {done}
      </span>
      <Problem message={problem} />
      {asking?.kind === 'forget' && (
        <Confirm title="Forget this fact?" action="Forget" onCancel={() => setAsking(undefined)} onConfirm={() => run('Forgotten.', () => post('FactEnvelope', `${path}/forget`, { agent_id: f.agent_id }))}>
          It stays listed and readable, marked forgotten, but recall no longer returns it.
        </Confirm>
      )}
      {asking?.kind === 'delete' && (
        <Confirm
          title="Delete this fact for good?"
          action="Delete"
          onCancel={() => setAsking(undefined)}
          onConfirm={() => run('Deleted.', () => del('DeleteResult', path, { agent_id: f.agent_id }), () => navigate(href(['ns', f.agent_id, 'facts'])))}
        >
          Its text and everything derived from it leave the store. This cannot be undone.
        </Confirm>
      )}
    </div>
  );
}

function Fields({ fact: f }: { fact: Fact }) {
  const rows: [string, ComponentChildren][] = [
    ['Id', <code>{f.id}</code>],
    ['Status', status(f) + (f.superseded_by && f.superseded_by !== 'agent' ? ` (by ${f.superseded_by})` : '') + (f.retired_reason ? ` — ${f.retired_reason}` : '')],
    ['Kind', f.kind],
    ['Confidence', f.confidence ?? 'none (counts as inferred)'],
    ['Pinned', f.pinned ? `yes, since ${when(f.pinned_at)}` : 'no'],
    ['Created', when(f.created_at)],
    ['Happened', when(f.occurred_at)],
    ['Updated', when(f.updated_at)],
    ['Tags', f.tags.join(', ') || '—'],
    ['Entities', f.entities.map((e) => (f.entity_types[e] ? `${e} (${f.entity_types[e]})` : e)).join(', ') || '—'],
    ['Source', f.source ?? '—'],
    ['Context', f.context ?? '—'],
    ['Strength', f.strength],
    ['Uses', `${f.use_count}, last ${f.last_used_at ? when(f.last_used_at) : 'at its creation'}`],
    ['Recalled', `${f.access_count} time(s), last ${when(f.last_accessed_at)}`],
    ['Reviews', `${f.review_count} (${f.cross_domain_count} cross-domain)`],
    ['Promoted', when(f.promoted_at)],
    // A fact holds the relations it starts; those that point at it are in the graph below.
    ['Relations from it', `${f.relations.map((r) => `${r.type} → ${r.target_id}`).join(', ') || '—'} (relations to it: see the graph neighbourhood)`],
    ['Meta', <pre>{JSON.stringify(f.meta, null, 2)}</pre>],
  ];
  return (
    <dl class="fields" aria-label="Fields">
      {rows.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd data-field={name}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function FactLink({ agent, fact }: { agent: string; fact: Fact }) {
  return (
    <li>
      <a href={href(['ns', agent, 'facts', fact.id])}>{fact.text}</a> <span class="hint">({status(fact)}, {when(fact.created_at)})</span>
    </li>
  );
}

function Lineage({ agent, fact }: { agent: string; fact: Fact }) {
  const lineage = useLoad(() => get('Lineage', `/v1/facts/${encodeURIComponent(fact.id)}/lineage`, { agent_id: agent }), [fact.id, fact.updated_at]);
  return (
    <section aria-labelledby="lineage-title">
      <h3 id="lineage-title">Lineage</h3>
      <Show loaded={lineage}>
        {(l) => (
          <>
            <h4>Came from (revisions, consolidation sources)</h4>
            {l.sources.length ? <ul aria-label="Sources">{l.sources.map((s) => <FactLink key={s.id} agent={agent} fact={s} />)}</ul> : <p class="hint">Nothing: written as it is.</p>}
            <h4>Superseded by</h4>
            {l.successors.length ? (
              <ul aria-label="Successors">{l.successors.map((s) => <FactLink key={s.id} agent={agent} fact={s} />)}</ul>
            ) : (
              <p class="hint">{fact.superseded_by === 'agent' ? 'Nothing: forgotten without a replacement.' : 'Nothing: this is the current version.'}</p>
            )}
            {l.missing.length > 0 && <p class="hint">Erased since: {l.missing.join(', ')}</p>}
          </>
        )}
      </Show>
    </section>
  );
}

function Neighbourhood({ agent, fact }: { agent: string; fact: Fact }) {
  const graph = useLoad(() => get('Graph', '/v1/graph', { agent_id: agent, fact_id: fact.id }), [fact.id, fact.updated_at]);
  return (
    <section aria-labelledby="graph-title">
      <h3 id="graph-title">Graph neighbourhood</h3>
      <Show loaded={graph}>{(g) => <GraphPicture agent={agent} centre={fact.id} graph={g} />}</Show>
    </section>
  );
}

function GraphPicture({ agent, centre, graph }: { agent: string; centre: string; graph: ResponseOf<'Graph'> }) {
  const others = graph.nodes.filter((n) => n.id !== centre);
  if (!others.length) return <p class="hint">No entities or links around this fact.</p>;
  const size = 320;
  const mid = size / 2;
  const at = (i: number) => ({ x: mid + 120 * Math.cos((2 * Math.PI * i) / others.length), y: mid + 120 * Math.sin((2 * Math.PI * i) / others.length) });
  const position = new Map(others.map((n, i) => [n.id, at(i)]));
  position.set(centre, { x: mid, y: mid });
  return (
    <div class="graph">
      <svg width={size} height={size} role="img" aria-label={`${others.length} node(s) around this fact`}>
        {graph.edges.map((e, i) => {
          const a = position.get(e.from);
          const b = position.get(e.to);
          return a && b ? <line key={i} x1={a.x} y1={a.y} x2={b.x} y2={b.y} stroke="#94a3b8" /> : null;
        })}
        <circle cx={mid} cy={mid} r="10" fill="#2563eb" />
        {others.map((n) => {
          const p = position.get(n.id)!;
          return (
            <g key={n.id}>
              <circle cx={p.x} cy={p.y} r="7" fill={n.kind === 'entity' ? '#16a34a' : n.live ? '#64748b' : '#cbd5e1'} />
              <text x={p.x} y={p.y - 10} text-anchor="middle" font-size="11">
                {n.label.length > 24 ? `${n.label.slice(0, 24)}…` : n.label}
              </text>
            </g>
          );
        })}
      </svg>
      <ul aria-label="Neighbours">
        {graph.edges.map((e, i) => {
          const other = graph.nodes.find((n) => n.id === (e.from === centre ? e.to : e.from));
          if (!other) return null;
          return (
            <li key={i}>
              {e.type}: {other.kind === 'fact' ? <a href={href(['ns', agent, 'facts', other.id])}>{other.label}</a> : `${other.label}${other.type ? ` (${other.type})` : ''}`}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

function Decay({ agent, fact }: { agent: string; fact: Fact }) {
  const curve = useLoad(() => get('DecayCurve', `/v1/facts/${encodeURIComponent(fact.id)}/decay`, { agent_id: agent }), [fact.id, fact.updated_at]);
  return (
    <section aria-labelledby="decay-title">
      <h3 id="decay-title">Use and decay</h3>
      <p class="hint">
        Used {fact.use_count} time(s), last {fact.last_used_at ? when(fact.last_used_at) : 'at its creation'}; recalled {fact.access_count} time(s). The curve runs from the last use, if nothing uses it again
        {fact.pinned ? ' (pinned: never collected)' : ''}.
      </p>
      <Show loaded={curve}>
        {(c) => (
          <>
            <p>
              Score now <strong data-field="decay-score">{score(c.score)}</strong> ({c.model}); forget below {c.forget_threshold}, promote from {c.promote_threshold}.
            </p>
            <DecayChart curve={c} />
          </>
        )}
      </Show>
    </section>
  );
}
