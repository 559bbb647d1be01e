// The page: sign-in when the daemon asks for a token, then a namespace picker and the views.
import { useEffect, useState } from 'preact/hooks';
import { get, session, SIGNED_OUT, type Session } from './api.ts';
import { Problem, useLoad } from './parts/load.tsx';
import { href, navigate, useRoute } from './router.ts';
import { FactView } from './views/fact.tsx';
import { FactsView } from './views/facts.tsx';
import { Overview } from './views/overview.tsx';
import { SearchView } from './views/search.tsx';
import { SignIn } from './views/sign-in.tsx';
import { SlotsView } from './views/slots.tsx';

export function App() {
  const [who, setWho] = useState<Session>();
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    // A link from `engram inspect` carries a one-time ticket in its fragment: exchanged, then dropped.
    const ticket = /[#&]ticket=([\w-]+)/.exec(window.location.hash)?.[1];
    const start = ticket ? session.signIn({ ticket }).finally(() => history.replaceState(null, '', window.location.pathname)) : session.current();
    start.then(setWho, (e: Error) => {
      setProblem(e.message);
      session.current().then(setWho, () => setWho({ signed_in: false, auth_required: true }));
    });
    const out = () => setWho({ signed_in: false, auth_required: true });
    window.addEventListener(SIGNED_OUT, out);
    return () => window.removeEventListener(SIGNED_OUT, out);
  }, []);
  if (!who) return <p aria-busy="true">Connecting to the daemon…</p>;
  if (!who.signed_in) return <SignIn problem={problem} onSignedIn={(s) => (setProblem(undefined), setWho(s))} />;
  return <Signed who={who} onSignOut={() => session.signOut().then(setWho)} />;
}

/** The routes the views above draw: anything else (a stale or mistyped link) says so. */
function isPage([area, agent, view, id, ...rest]: string[]): boolean {
  if (area === undefined) return true;
  if (area === 'slots') return view === undefined && !rest.length;
  if (area !== 'ns' || agent === undefined || rest.length) return false;
  return view === 'overview' || view === 'search' ? id === undefined : view === 'facts';
}

function Signed({ who, onSignOut }: { who: Session; onSignOut: () => void }) {
  const route = useRoute();
  const agents = useLoad(() => get('Agents', '/v1/agents'), []);
  const [area, agent, view, id] = route.parts;
  const current = area === 'ns' ? agent : undefined;
  // With no namespace chosen, the first one the token may read.
  useEffect(() => {
    const first = agents.value?.agents[0];
    if (!route.parts.length && first) navigate(href(['ns', first, 'overview']));
  }, [agents.value, route.parts.length]);
  return (
    <>
      <header>
        <h1>Engram inspector</h1>
        <label>
          Namespace{' '}
          <select aria-label="Namespace" value={current ?? ''} onChange={(e) => navigate(href(['ns', (e.target as HTMLSelectElement).value, view ?? 'overview']))}>
            {!current && <option value="">choose…</option>}
            {agents.value?.agents.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <nav aria-label="Views">
          {current && (
            <>
              <a href={href(['ns', current, 'overview'])} aria-current={view === 'overview' ? 'page' : undefined}>Overview</a>
              <a href={href(['ns', current, 'facts'])} aria-current={view === 'facts' ? 'page' : undefined}>Facts</a>
              <a href={href(['ns', current, 'search'])} aria-current={view === 'search' ? 'page' : undefined}>Search</a>
            </>
          )}
          <a href={href(['slots'])} aria-current={area === 'slots' ? 'page' : undefined}>Slots</a>
        </nav>
        <span class="who">
          {who.principal}
          {who.auth_required && (
            <button type="button" onClick={onSignOut}>
              Sign out
            </button>
          )}
        </span>
      </header>
      <main>
        <Problem message={agents.error} />
        {agents.value && !agents.value.agents.length && area !== 'slots' && <p>No namespace holds a fact yet (or this token may read none).</p>}
        {area === 'slots' && <SlotsView slotId={agent} />}
        {current && view === 'overview' && <Overview agent={current} />}
        {current && view === 'facts' && !id && <FactsView key={`${current}?${route.params}`} agent={current} params={route.params} />}
        {current && view === 'facts' && id && <FactView agent={current} factId={id} />}
        {current && view === 'search' && <SearchView agent={current} params={route.params} />}
        {!isPage(route.parts) && (
          <p role="alert">
            No page here ({window.location.hash}). <a href={href(current ? ['ns', current, 'overview'] : [])}>Go to the overview</a>.
          </p>
        )}
      </main>
    </>
  );
}

