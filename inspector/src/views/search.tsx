// Search with the live explain view: the facts recall returns, in its order, each with the
// rank every signal gave it, what each added to the fused score (drawn), and the final score
// after confidence and reranking; then how the recall ran (weights, recipe, candidates, notes).
import { get, type ResponseOf } from '../api.ts';
import { SignalBars } from '../charts/signal-bars.tsx';
import { score, when } from '../format.ts';
import { Choice } from '../parts/choice.tsx';
import { Show, useLoad } from '../parts/load.tsx';
import { href, navigate } from '../router.ts';

export function SearchView({ agent, params }: { agent: string; params: URLSearchParams }) {
  const query = params.get('q');
  const recipes = useLoad(() => get('RecipeList', '/v1/memory-controls/retrieval-recipes'), []);
  const result = useLoad(
    () =>
      query === null
        ? Promise.resolve(null)
        : get('ExplainResult', '/v1/recall/explain', {
            agent_id: agent,
            query,
            top_k: params.get('top_k') ?? undefined,
            recipe: params.get('recipe') ?? undefined,
            min_confidence: params.get('min_confidence') ?? undefined,
          }),
    [agent, params.toString()],
  );
  const submit = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    const next: Record<string, string> = {};
    for (const [name, value] of form) if (value !== '') next[name] = String(value);
    next.q = String(form.get('q') ?? '');
    navigate(href(['ns', agent, 'search'], next));
  };
  return (
    <section aria-labelledby="search-title">
      <h2 id="search-title">Search {agent}</h2>
      <form class="filters" onSubmit={submit} role="search" key={params.toString()}>
        <label>
          Query <input name="q" type="search" defaultValue={query ?? ''} placeholder="what to recall" />
        </label>
        <label>
          Top k <input name="top_k" type="number" min={1} max={100} defaultValue={params.get('top_k') ?? '10'} />
        </label>
        <label>
          Recipe
          <Choice name="recipe" initial={params.get('recipe') ?? ''} options={[['', 'none (defaults)'], ...(recipes.value?.recipes.map((r) => [r.name, r.name] as const) ?? [])]} />
        </label>
        <label>
          At least
          <Choice name="min_confidence" initial={params.get('min_confidence') ?? ''} options={[['', 'any confidence'], ['inferred', 'inferred'], ['verified', 'verified']]} />
        </label>
        <button type="submit">Search</button>
      </form>
      <Show loaded={result}>{(r) => (r ? <Explained agent={agent} result={r} /> : <p class="hint">Type a query: the results come with how each was ranked.</p>)}</Show>
    </section>
  );
}

function Explained({ agent, result }: { agent: string; result: ResponseOf<'ExplainResult'> }) {
  const best = Math.max(0, ...result.explained.map((r) => r.ranks.fused_score));
  return (
    <>
      <p class="hint" aria-live="polite">
        {result.count} result(s), {result.matched} matched by the query.
      </p>
      <ol class="results" aria-label="Results">
        {result.explained.map((r) => (
          <li key={r.provenance.fact_id}>
            <div class="result-head">
              <a href={href(['ns', agent, 'facts', r.provenance.fact_id])}>{r.text}</a>
              <span class="final" title="final score">
                {score(r.weight)}
              </span>
            </div>
            <SignalBars receipt={r} scale={best} />
            <p class="formula">
              fused {score(r.ranks.fused_score)} (k = {r.ranks.k})
              {r.ranking && r.ranking.factor !== 1 ? ` × confidence ${r.ranking.factor} [${r.ranking.effective_confidence}]` : ''}
              {r.rerank ? ` × rerank ${r.rerank.factor.toFixed(3)} [coverage ${r.rerank.coverage.toFixed(2)}, rank ${r.rerank.rank_before} → ${r.rerank.rank_after}]` : ''} = final {score(r.weight)}
              {r.matched === false ? ' · fills the count (no query signal matched)' : ''} · {r.provenance.confidence}
              {r.provenance.pinned ? ' · pinned' : ''} · written {when(r.provenance.written_at)}
            </p>
          </li>
        ))}
      </ol>
      <Retrieval retrieval={result.retrieval} />
    </>
  );
}

function Retrieval({ retrieval: m }: { retrieval: ResponseOf<'Retrieval'> }) {
  const weights = Object.entries(m.weights).map(([s, w]) => `${s} ${w}`).join(', ');
  return (
    <details open class="retrieval">
      <summary>How this recall ran</summary>
      <dl>
        <dt>Weights</dt>
        <dd data-field="weights">{weights}</dd>
        <dt>Signals</dt>
        <dd>{m.signals.join(', ')}</dd>
        <dt>Recipe</dt>
        <dd data-field="recipe">{m.recipe ? `${m.recipe.id} (reranker ${m.recipe.reranker || 'off'}, graph depth ${m.recipe.graph_depth})` : 'none'}</dd>
        <dt>Candidates</dt>
        <dd>
          {m.eligible_count} eligible, {m.keyword_candidates} by keyword, {m.vector_candidates} by vector ({m.vector_searched} searched)
        </dd>
        <dt>Embedder</dt>
        <dd>{m.embedder}</dd>
        <dt>RRF k</dt>
        <dd>{m.rrf_k}</dd>
        {m.expanded_terms.length > 0 && (
          <>
            <dt>Expanded terms</dt>
            <dd>{m.expanded_terms.join(', ')}</dd>
          </>
        )}
        {m.notes.length > 0 && (
          <>
            <dt>Notes</dt>
            <dd>{m.notes.join(' · ')}</dd>
          </>
        )}
      </dl>
    </details>
  );
}
