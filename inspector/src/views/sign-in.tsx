// One token entry: the daemon's token (the token file in its data directory) or an agent token.
// The daemon answers with a session cookie; the token is not kept by the page.
import { useState } from 'preact/hooks';
import { session, type Session } from '../api.ts';
import { Problem } from '../parts/load.tsx';

export function SignIn({ problem, onSignedIn }: { problem?: string; onSignedIn: (s: Session) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState(problem);
  const submit = (e: Event) => {
    e.preventDefault();
    session.signIn({ token }).then(onSignedIn, (err: Error) => setError(err.message));
  };
  return (
    <main class="sign-in">
      <h1>Engram inspector</h1>
      <form onSubmit={submit}>
        <label for="token">Token</label>
        <input id="token" type="password" autocomplete="current-password" value={token} onInput={(e) => setToken((e.target as HTMLInputElement).value)} required />
        <button type="submit">Sign in</button>
        <p class="hint">
          The daemon's token is in the <code>token</code> file of its data directory; <code>engram inspect</code> prints a link that signs you in.
        </p>
        <Problem message={error} />
      </form>
    </main>
  );
}
