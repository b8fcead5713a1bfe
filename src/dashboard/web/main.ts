/**
 * @module The dashboard's entry: sign-in with an API key (read scope or wider), then the live feed,
 * the metrics store and the four views, switched by the URL's hash (#/alerts...) so that links and
 * the back button work without a server route per view.
 */
import { html, render } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { VNode } from 'preact';
import { describeError } from './api.ts';
import { Alerts } from './alerts.ts';
import { Explorer } from './explorer.ts';
import { FiringBadge } from './firing-badge.ts';
import { connectLive, type Live, type LiveStatus } from './live.ts';
import { createMetricsStore, type MetricsStore } from './metrics-store.ts';
import { Overview } from './overview.ts';
import { Rules } from './rules.ts';
import { forgetKey, signIn, storedKey, type Session } from './session.ts';

const VIEWS = ['overview', 'alerts', 'rules', 'events'] as const;
type View = (typeof VIEWS)[number];

const viewOfHash = (): View => {
  // `#/events?source=web`: the part after `?` is the view's own state (explorer-query.ts).
  const name = location.hash.replace(/^#\/?/, '').split('?')[0] ?? '';
  return (VIEWS as readonly string[]).includes(name) ? (name as View) : 'overview';
};

function SignIn({
  onSignedIn,
  problem,
}: {
  onSignedIn: (s: Session) => void;
  problem: string;
}): VNode {
  const [key, setKey] = useState('');
  const [error, setError] = useState(problem);
  const input = useRef<HTMLInputElement>(null);
  // The field takes the keyboard at once (autofocus is not honoured for rendered elements).
  useEffect(() => input.current?.focus(), []);
  const submit = (e: Event): void => {
    e.preventDefault();
    signIn(key.trim()).then(onSignedIn, (err: unknown) => setError(describeError(err)));
  };
  return html`<main class="sign-in">
    <form onSubmit=${submit} aria-label="Sign in">
      <h1>Vigil</h1>
      <p>
        Sign in with an API key of scope <code>read</code> or <code>admin</code>. It is kept for
        this tab only.
      </p>
      <label
        >API key
        <input
          type="password"
          name="apiKey"
          autocomplete="off"
          value=${key}
          onInput=${(e: Event) => setKey((e.target as HTMLInputElement).value)}
          required
          ref=${input}
      /></label>
      <button type="submit" class="primary">Sign in</button>
      ${error === '' ? '' : html`<p class="error" role="alert">${error}</p>`}
    </form>
  </main>`;
}

interface Connected {
  readonly live: Live;
  readonly store: MetricsStore;
}

function Shell({ session, onSignOut }: { session: Session; onSignOut: () => void }): VNode {
  const [view, setView] = useState<View>(viewOfHash());
  const [connected, setConnected] = useState<Connected | null>(null);
  const [status, setStatus] = useState<LiveStatus>('connecting');
  useEffect(() => {
    const onHash = (): void => setView(viewOfHash());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    const live = connectLive(session.key);
    const stopStatus = live.onStatus((s) => setStatus(s));
    const store = createMetricsStore(session.api, live);
    setConnected({ live, store });
    return () => {
      stopStatus();
      store.stop();
      live.stop();
    };
  }, [session]);
  return html`<div class="shell">
    <header>
      <strong class="brand">Vigil</strong>
      <nav aria-label="Views">
        ${VIEWS.map((v) => html`<a href=${`#/${v}`} aria-current=${v === view ? 'page' : undefined}>${v[0]?.toUpperCase()}${v.slice(1)}</a>`)}
        <a
          href="/api/v1/docs"
          target="_blank"
          rel="noopener"
          title="The HTTP API's reference (OpenAPI)"
          >API</a
        >
      </nav>
      ${connected === null ? '' : html`<${FiringBadge} session=${session} live=${connected.live} />`}
      <span class=${`live live-${status}`} data-live=${status} role="status">${status}</span>
      <span class="who" title="The key's prefix and scope"
        >${session.label}… (${session.scope})</span
      >
      <button type="button" onClick=${onSignOut}>Sign out</button>
    </header>
    <main>
      ${
        connected === null
          ? ''
          : view === 'overview'
            ? html`<${Overview} store=${connected.store} />`
            : view === 'alerts'
              ? html`<${Alerts} session=${session} live=${connected.live} />`
              : view === 'rules'
                ? html`<${Rules} session=${session} />`
                : html`<${Explorer}
                    session=${session}
                    live=${connected.live}
                    store=${connected.store}
                  />`
      }
    </main>
  </div>`;
}

function App(): VNode {
  const [session, setSession] = useState<Session | null>(null);
  const [checking, setChecking] = useState(storedKey() !== null);
  const [problem, setProblem] = useState('');
  useEffect(() => {
    const key = storedKey();
    if (key === null) return;
    signIn(key)
      .then(setSession, (err: unknown) => {
        forgetKey();
        setProblem(describeError(err));
      })
      .finally(() => setChecking(false));
  }, []);
  if (checking) return html`<p class="muted">Signing in…</p>`;
  if (session === null) return html`<${SignIn} onSignedIn=${setSession} problem=${problem} />`;
  return html`<${Shell}
    session=${session}
    onSignOut=${() => {
      forgetKey();
      setSession(null);
    }}
  />`;
}

const root = document.getElementById('app');
if (root !== null) render(html`<${App} />`, root);
