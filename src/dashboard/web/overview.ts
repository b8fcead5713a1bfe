/**
 * @module The Overview: headline numbers, events/s, error rate and latency charts (history, then
 * live), the busiest event types, sources and users, and the split by severity. Numbers re-render
 * with each push; the charts draw themselves (chart.ts).
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import type { VNode } from 'preact';
import { Chart } from './chart.ts';
import { SelectField } from './fields.ts';
import { count, fixed } from './format.ts';
import { COLUMN, type MetricsStore } from './metrics-store.ts';
import type { MetricsSnapshot } from '../../domain/metrics/snapshot/snapshot.ts';

const TOP = 8;
/** The charts' x range: back from the newest point (the store holds the day). */
const RANGES = [
  ['900', 'Last 15 minutes'],
  ['3600', 'Last hour'],
  ['21600', 'Last 6 hours'],
  ['86400', 'Last 24 hours'],
] as const;

function Bars({ title, entries }: { title: string; entries: [string, number][] }): VNode {
  const top = entries.sort((a, b) => b[1] - a[1]).slice(0, TOP);
  const max = top[0]?.[1] ?? 0;
  return html`<section class="panel" aria-label=${title}>
    <h3>${title}</h3>
    ${top.length === 0 ? html`<p class="muted">No events yet</p>` : ''}
    <ol class="bars">
      ${top.map(
        ([name, value]) =>
          html`<li>
            <span class="bar-label" title=${name}>${name}</span>
            <span class="bar"
              ><span style=${{ width: `${max === 0 ? 0 : (100 * value) / max}%` }}></span
            ></span>
            <span class="bar-value">${count(value)}</span>
          </li>`,
      )}
    </ol>
  </section>`;
}

function Stat({ label, value, id }: { label: string; value: string; id: string }): VNode {
  return html`<div class="stat">
    <span class="stat-label">${label}</span><strong data-stat=${id}>${value}</strong>
  </div>`;
}

function Numbers({ snapshot }: { snapshot: MetricsSnapshot }): VNode {
  const overall = snapshot.latencyMetrics.overall;
  return html`<div class="stats">
    <${Stat}
      id="events-per-second"
      label="Events/s (5 s)"
      value=${fixed(snapshot.throughput.current)}
    />
    <${Stat} id="total-events" label="Events (24 h)" value=${count(snapshot.summary.totalEvents)} />
    <${Stat}
      id="error-rate"
      label="Error rate (5 min)"
      value=${`${fixed(snapshot.timeWindows.last5Minutes.errorRate)} %`}
    />
    <${Stat} id="latency-p95" label="Latency p95" value=${`${fixed(overall.p95, 0)} ms`} />
    <${Stat} id="unique-users" label="Users (24 h)" value=${count(snapshot.summary.uniqueUsers)} />
  </div>`;
}

export function Overview({ store }: { store: MetricsStore }): VNode {
  const [snapshot, setSnapshot] = useState(store.latest());
  const [range, setRange] = useState('3600');
  const rangeSeconds = Number(range);
  useEffect(() => store.subscribe(() => setSnapshot(store.latest())), [store]);
  return html`<div class="view overview">
    <div class="view-head">
      <h2>Overview</h2>
      <${SelectField}
        label="Charts"
        name="overviewRange"
        value=${range}
        onValue=${setRange}
        options=${RANGES}
      />
    </div>
    ${snapshot === null ? html`<p class="muted">Waiting for the first metrics…</p>` : html`<${Numbers} snapshot=${snapshot} />`}
    <div class="charts">
      <${Chart}
        store=${store}
        rangeSeconds=${rangeSeconds}
        title="Events per second"
        unit=""
        series=${[{ column: COLUMN.eventsPerSecond, label: 'events/s' }]}
      />
      <${Chart}
        store=${store}
        rangeSeconds=${rangeSeconds}
        title="Error rate"
        unit="%"
        series=${[{ column: COLUMN.errorRate, label: 'errors %' }]}
      />
      <${Chart}
        store=${store}
        rangeSeconds=${rangeSeconds}
        title="Latency"
        unit=" ms"
        series=${[
          { column: COLUMN.p50, label: 'p50' },
          { column: COLUMN.p95, label: 'p95' },
          { column: COLUMN.p99, label: 'p99', dash: true },
        ]}
      />
    </div>
    ${
      snapshot === null
        ? ''
        : html`<div class="tops">
            <${Bars} title="Top event types" entries=${Object.entries(snapshot.eventsByType)} />
            <${Bars} title="Top sources" entries=${Object.entries(snapshot.eventsBySource)} />
            <${Bars}
              title="Top users"
              entries=${snapshot.topUsers.map((u) => [u.userId, u.eventCount])}
            />
            <${Bars} title="By severity" entries=${Object.entries(snapshot.eventsBySeverity)} />
          </div>`
    }
  </div>`;
}
