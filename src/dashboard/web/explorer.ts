/**
 * @module The event explorer (issue 34): filter chips (types and sources suggested from the live
 * metrics), a time range, a histogram of the matches, the matching events newest first with
 * "Load more" by cursor, one event's JSON on click, a live tail of new matches, an export, and
 * "Make a rule from this", which opens the rule editor prefilled. The search lives in the URL's hash,
 * so a link shares it; it is sent when a chip is added, never on each keystroke.
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import type { VNode } from 'preact';
import { ApiError, describeError } from './api.ts';
import { ErrorLine, SelectField, Table } from './fields.ts';
import { count, time } from './format.ts';
import { Histogram, type HistogramAnswer } from './histogram.ts';
import { FilterBar, RangePicker } from './explorer-filters.ts';
import {
  apiParams,
  hashOfQuery,
  queryOfHash,
  ruleMetricOf,
  RULE_WINDOW_MINUTES,
  tailFilter,
  thresholdOf,
  type ExplorerQuery,
} from './explorer-query.ts';
import type { Live } from './live.ts';
import type { MetricsStore } from './metrics-store.ts';
import type { Page } from './page.ts';
import { SendEvent } from './send-event.ts';
import { isAdmin, type Session } from './session.ts';
import type { EventRecord } from '../../domain/event.ts';

const PAGE_SIZE = 50;
const HEADERS = ['Time', 'Type', 'Source', 'Severity', 'User', 'Event'];
/** Rows the live tail keeps above the loaded ones. */
const TAIL_MAX = 500;

/** Where the next page starts: the server's cursor, or (a server without one) the page number. */
type Next = { readonly cursor: string } | { readonly page: number } | null;

interface Results {
  readonly rows: readonly EventRecord[];
  readonly next: Next;
  readonly total: number;
  readonly exact: boolean;
}

const nextOf = (page: Page<EventRecord>): Next =>
  typeof page.nextCursor === 'string'
    ? { cursor: page.nextCursor }
    : page.last || page.nextCursor === null
      ? null
      : { page: page.number + 1 };

function EventRow(props: {
  ev: EventRecord;
  selected: boolean;
  tail: boolean;
  onSelect: () => void;
}): VNode {
  const { ev } = props;
  return html`<tr
    data-event=${ev.eventId}
    data-tail=${props.tail ? 'true' : undefined}
    class=${props.selected ? 'selected' : ''}
  >
    <td>${time(ev.timestamp)}</td>
    <td class="wrap">${ev.eventType}</td>
    <td class="wrap">${ev.source}</td>
    <td><span class=${`badge sev-${ev.severity.toLowerCase()}`}>${ev.severity}</span></td>
    <td>${ev.userId ?? ''}</td>
    <td><button type="button" class="link" onClick=${props.onSelect}>${ev.eventId}</button></td>
  </tr>`;
}

/** Downloads the export with the key as a header (a plain link would carry no key). */
async function download(
  session: Session,
  params: URLSearchParams,
  format: 'ndjson' | 'csv',
): Promise<void> {
  const query = new URLSearchParams(params);
  query.set('format', format);
  const res = await fetch(`/api/v1/events/export?${query.toString()}`, {
    headers: { Authorization: `Bearer ${session.key}` },
  });
  if (!res.ok) throw new ApiError(res.status, `Export refused: HTTP ${res.status}`, {});
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = `events.${format}`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function Explorer(props: { session: Session; live: Live; store: MetricsStore }): VNode {
  const { session, live, store } = props;
  const [query, setQuery] = useState<ExplorerQuery>(() => queryOfHash(location.hash));
  /** Resolved once per search: "load more" and the histogram share the same bounds. */
  const [params, setParams] = useState(() => apiParams(query, Date.now()));
  const [results, setResults] = useState<Results | null>(null);
  const [tailed, setTailed] = useState<readonly EventRecord[]>([]);
  const [histogram, setHistogram] = useState<HistogramAnswer | null>(null);
  const [histogramNote, setHistogramNote] = useState('');
  const [tailOn, setTailOn] = useState(false);
  /** The server confirmed the tail's subscription (tests wait for it before posting). */
  const [tailReady, setTailReady] = useState(false);
  const [selected, setSelected] = useState<EventRecord | null>(null);
  const [error, setError] = useState('');
  const [version, setVersion] = useState(0);

  useEffect(() => {
    const onHash = (): void => setQuery(queryOfHash(location.hash));
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  const search = (next: ExplorerQuery): void => {
    const hash = hashOfQuery('events', next);
    if (hash === location.hash) setVersion((v) => v + 1);
    else location.hash = hash;
  };

  useEffect(() => {
    let current = true;
    const resolved = apiParams(query, Date.now());
    setParams(resolved);
    setTailed([]);
    setError('');
    const first = new URLSearchParams(resolved);
    first.set('page', '0');
    first.set('size', String(PAGE_SIZE));
    session.api.get<Page<EventRecord>>(`/api/v1/events?${first.toString()}`).then(
      (page) =>
        current &&
        setResults({
          rows: page.content,
          next: nextOf(page),
          total: page.totalElements,
          exact: page.totalElementsExact !== false,
        }),
      (e: unknown) => current && setError(describeError(e)),
    );
    const buckets = new URLSearchParams(resolved);
    buckets.set('buckets', '60');
    session.api.get<HistogramAnswer>(`/api/v1/events/histogram?${buckets.toString()}`).then(
      (answer) => {
        if (!current) return;
        setHistogram(answer);
        setHistogramNote('');
      },
      (e: unknown) => {
        if (!current) return;
        setHistogram(null);
        setHistogramNote(`No histogram: ${describeError(e)}`);
      },
    );
    return () => {
      current = false;
    };
  }, [session, query, version]);

  useEffect(() => {
    setTailReady(false);
    if (!tailOn) return undefined;
    return live.tail(
      tailFilter(query),
      (ev) =>
        setTailed((held) =>
          held.some((h) => h.eventId === ev.eventId) ? held : [ev, ...held].slice(0, TAIL_MAX),
        ),
      () => setTailReady(true),
    );
  }, [live, query, tailOn]);

  const loadMore = (): void => {
    const next = results?.next;
    if (results === null || next == null) return;
    const more = new URLSearchParams(params);
    more.set('size', String(PAGE_SIZE));
    if ('cursor' in next) more.set('cursor', next.cursor);
    else more.set('page', String(next.page));
    session.api.get<Page<EventRecord>>(`/api/v1/events?${more.toString()}`).then(
      (page) =>
        setResults({
          ...results,
          rows: [...results.rows, ...page.content],
          next: nextOf(page),
        }),
      (e: unknown) => setError(describeError(e)),
    );
  };

  const makeRule = (): void => {
    const { metric, name } = ruleMetricOf(query);
    const counts = histogram?.buckets.map((b) => b.count) ?? [];
    const rule = new URLSearchParams({
      new: '1',
      name,
      metric,
      threshold: String(thresholdOf(counts, histogram?.bucketMs ?? 0)),
      windowMinutes: String(RULE_WINDOW_MINUTES),
    });
    location.hash = `#/rules?${rule.toString()}`;
  };

  const typeNames = Object.keys(store.latest()?.eventsByType ?? {});
  const sourceNames = Object.keys(store.latest()?.eventsBySource ?? {});
  const loaded = results?.rows ?? [];
  const tailRows = tailed.filter((t) => !loaded.some((r) => r.eventId === t.eventId));
  return html`<div class="view explorer">
    <h2>Events</h2>
    <${FilterBar} query=${query} types=${typeNames} sources=${sourceNames} onSearch=${search} />
    <div class="filters">
      <${RangePicker} query=${query} onSearch=${search} />
      <${SelectField}
        label="Time of"
        name="timeField"
        value=${query.timeField}
        options=${[['timestamp', 'event'] as const, ['receivedAt', 'receipt'] as const]}
        onValue=${(v: string) => search({ ...query, timeField: v === 'receivedAt' ? 'receivedAt' : 'timestamp' })}
      />
      <label class="toggle" data-tail-ready=${tailOn && tailReady ? 'true' : 'false'}
        ><input
          type="checkbox"
          name="tail"
          checked=${tailOn}
          onChange=${(e: Event) => setTailOn((e.target as HTMLInputElement).checked)}
        />
        Live tail</label
      >
      <button type="button" onClick=${() => setVersion((v) => v + 1)}>Refresh</button>
    </div>
    <${ErrorLine} error=${error} />
    ${histogram === null ? html`<p class="muted histogram-note">${histogramNote}</p>` : html`<${Histogram} answer=${histogram} />`}
    <div class="actions explorer-actions">
      <span class="muted" data-total=${results?.total ?? ''}
        >${results === null ? 'Searching…' : `${results.exact ? '' : '≈ '}${count(results.total)} matching`}</span
      >
      <button type="button" onClick=${makeRule}>Make a rule from this</button>
      <button
        type="button"
        onClick=${() => download(session, params, 'ndjson').catch((e: unknown) => setError(describeError(e)))}
      >
        Export NDJSON
      </button>
      <button
        type="button"
        onClick=${() => download(session, params, 'csv').catch((e: unknown) => setError(describeError(e)))}
      >
        Export CSV
      </button>
    </div>
    ${
      results === null
        ? ''
        : html`<${Table} label="Events" headers=${HEADERS}>
              ${[...tailRows, ...loaded].map(
                (ev) =>
                  html`<${EventRow}
                    key=${ev.eventId}
                    ev=${ev}
                    tail=${tailRows.includes(ev)}
                    selected=${selected?.eventId === ev.eventId}
                    onSelect=${() => setSelected(ev)}
                  />`,
              )}
            <//>
            <nav class="pager" aria-label="Pages" data-rows=${loaded.length}>
              <span>${count(loaded.length)} shown</span>
              <button type="button" disabled=${results.next === null} onClick=${loadMore}>
                Load more
              </button>
            </nav>`
    }
    ${
      selected === null
        ? ''
        : html`<section class="panel" aria-label="Event JSON">
            <h3>
              ${selected.eventId}
              <button type="button" onClick=${() => setSelected(null)}>Close</button>
            </h3>
            <pre class="json">${JSON.stringify(selected, null, 2)}</pre>
          </section>`
    }
    ${isAdmin(session) ? html`<${SendEvent} session=${session} onSent=${() => setVersion((v) => v + 1)} />` : ''}
  </div>`;
}
