// Browsing a namespace: a filter (kept in the address, so a view can be linked and reloaded),
// a page of facts, and next / previous pages. A filter that matches little in a large namespace
// answers with what the daemon found within its scan budget; "Next page" goes on from there.
import { useState } from 'preact/hooks';
import { get } from '../api.ts';
import { day, status } from '../format.ts';
import { Choice } from '../parts/choice.tsx';
import { Show, useLoad } from '../parts/load.tsx';
import { href, navigate } from '../router.ts';

const TIME_FILTERS = [
  ['created_after', 'Created from'],
  ['created_before', 'Created before'],
  ['occurred_after', 'Happened from'],
  ['occurred_before', 'Happened before'],
] as const;
const FILTERS = ['text', 'confidence', 'pinned', 'retired', 'tags', 'entities', ...TIME_FILTERS.map(([name]) => name), 'order'];
const PAGE_SIZE = 50;
const splitList = (s: string | null) => (s ?? '').split(',').map((t) => t.trim()).filter(Boolean);

export function FactsView({ agent, params }: { agent: string; params: URLSearchParams }) {
  // A new namespace or filter mounts a new view (keyed by both), so the page stack starts over.
  const key = params.toString();
  const [tokens, setTokens] = useState<string[]>(['']);
  const token = tokens[tokens.length - 1]!;
  const page = useLoad(
    () =>
      get('FactPage', '/v1/facts', {
        agent_id: agent,
        page_size: PAGE_SIZE,
        page_token: token,
        order: params.get('order') ?? 'newest',
        text: params.get('text') ?? undefined,
        confidence: params.getAll('confidence'),
        pinned: params.get('pinned') ?? undefined,
        retired: params.get('retired') ?? undefined,
        tags: splitList(params.get('tags')),
        entities: splitList(params.get('entities')),
        ...Object.fromEntries(TIME_FILTERS.map(([name]) => [name, params.get(name) ?? undefined])),
      }),
    [agent, key, token],
  );
  return (
    <section aria-labelledby="facts-title">
      <h2 id="facts-title">Facts in {agent}</h2>
      <FilterForm agent={agent} params={params} />
      <Show loaded={page}>
        {(p) => (
          <>
            <p class="hint" aria-live="polite">
              {p.facts.length} fact(s) on this page{p.scanned !== undefined ? `, ${p.scanned} read to find them` : ''}
              {p.next_page_token && p.facts.length < PAGE_SIZE ? ' — more may match further on' : ''}.
            </p>
            <table class="facts">
              <thead>
                <tr>
                  <th scope="col">Created</th>
                  <th scope="col">Fact</th>
                  <th scope="col">Confidence</th>
                  <th scope="col">Status</th>
                  <th scope="col">Tags</th>
                </tr>
              </thead>
              <tbody>
                {p.facts.map((f) => (
                  <tr key={f.id}>
                    <td>{day(f.created_at)}</td>
                    <td>
                      <a href={href(['ns', agent, 'facts', f.id])}>{f.text.length > 160 ? `${f.text.slice(0, 160)}…` : f.text}</a>
                      {f.pinned && <span class="badge">pinned</span>}
                    </td>
                    <td>{f.confidence ?? 'inferred'}</td>
                    <td>{status(f)}</td>
                    <td>{f.tags.join(', ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <div class="pager">
              <button type="button" disabled={tokens.length < 2 || page.loading} onClick={() => setTokens(tokens.slice(0, -1))}>
                Previous page
              </button>
              <span>Page {tokens.length}</span>
              <button type="button" disabled={!p.next_page_token || page.loading} onClick={() => setTokens([...tokens, p.next_page_token])}>
                Next page
              </button>
            </div>
          </>
        )}
      </Show>
    </section>
  );
}

function FilterForm({ agent, params }: { agent: string; params: URLSearchParams }) {
  const apply = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    const next = new URLSearchParams();
    for (const name of FILTERS) for (const value of form.getAll(name)) if (value !== '') next.append(name, String(value));
    navigate(href(['ns', agent, 'facts'], next));
  };
  const v = (name: string) => params.get(name) ?? '';
  const chosen = params.getAll('confidence');
  return (
    <form class="filters" onSubmit={apply} aria-label="Filter facts" key={params.toString()}>
      <label>
        Text <input name="text" type="search" defaultValue={v('text')} placeholder="words in the fact" />
      </label>
      <fieldset>
        <legend>Confidence</legend>
        {['verified', 'inferred', 'unverified'].map((c) => (
          <label key={c}>
            <input type="checkbox" name="confidence" value={c} defaultChecked={chosen.includes(c)} /> {c}
          </label>
        ))}
      </fieldset>
      <label>
        Pinned
        <Choice name="pinned" initial={v('pinned')} options={[['', 'any'], ['true', 'pinned'], ['false', 'not pinned']]} />
      </label>
      <label>
        Status
        <Choice name="retired" initial={v('retired')} options={[['', 'live and retired'], ['false', 'live'], ['true', 'retired']]} />
      </label>
      <label>
        Tags <input name="tags" defaultValue={v('tags')} placeholder="a, b" />
      </label>
      <label>
        Entities <input name="entities" defaultValue={v('entities')} placeholder="Mia, Paris" />
      </label>
      {TIME_FILTERS.map(([name, label]) => (
        <label key={name}>
          {label} <input name={name} type="date" defaultValue={v(name)} />
        </label>
      ))}
      <label>
        Order
        <Choice name="order" initial={v('order') || 'newest'} options={[['newest', 'newest first'], ['oldest', 'oldest first']]} />
      </label>
      <button type="submit">Apply</button>
      <a href={href(['ns', agent, 'facts'])}>Clear</a>
    </form>
  );
}
