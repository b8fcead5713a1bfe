/**
 * @module The rule editor's backtest (docs/dashboard.md): the draft replayed by POST
 * /api/v1/rules/backtest over the last day or week, drawn with uPlot as the metric the condition
 * compares, its threshold, and marks where the rule would have been FIRING, with the transitions
 * and notifications listed below.
 */
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { VNode } from 'preact';
import uPlot from 'uplot';
import { describeError } from './api.ts';
import type { Session } from './session.ts';
import type { BacktestResult } from '../../domain/rules/backtest/backtest-result.ts';

const RANGES = { 'last 24 hours': 86_400_000, 'last 7 days': 7 * 86_400_000 } as const;
type RangeName = keyof typeof RANGES;
const HEIGHT = 200;

const cssVar = (name: string): string =>
  getComputedStyle(document.documentElement).getPropertyValue(name).trim();

/** Is `at` inside an incident (a FIRING and the RESOLVED after it, or the end)? */
function firingAt(result: BacktestResult, at: number): boolean {
  let firing = false;
  for (const x of result.transitions) {
    if (Date.parse(x.at) > at) break;
    firing = x.transition === 'FIRING';
  }
  return firing;
}

function BacktestChart({ result }: { readonly result: BacktestResult }): VNode {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    const series = result.chart.series[0];
    if (el === null || series === undefined) return undefined;
    const times = result.chart.times.map((ms) => ms / 1000);
    const marks = series.values.map((v, i) =>
      firingAt(result, result.chart.times[i] as number) ? v : null,
    );
    const axis = { stroke: cssVar('--muted'), grid: { stroke: cssVar('--grid') } };
    const chart = new uPlot(
      {
        width: Math.max(200, el.clientWidth),
        height: HEIGHT,
        scales: { x: { time: true } },
        axes: [axis, { ...axis, size: 56 }],
        series: [
          {},
          {
            label: series.label,
            stroke: cssVar('--series-1'),
            width: 1.5,
            points: { show: false },
          },
          { label: `threshold ${series.threshold}`, stroke: cssVar('--series-2'), dash: [6, 4] },
          {
            label: 'would fire',
            stroke: cssVar('--series-3'),
            paths: () => null,
            points: { show: true, size: 5, fill: cssVar('--series-3') },
          },
        ],
      },
      [times, series.values as (number | null)[], times.map(() => series.threshold), marks],
      el,
    );
    el.dataset.points = String(times.length);
    return () => chart.destroy();
  }, [result]);
  return html`<div ref=${box} class="chart-box backtest-chart"></div>`;
}

export interface BacktestProps {
  readonly session: Session;
  /** The draft as the rule test takes it. */
  readonly rule: unknown;
  /** The stored rule being edited (its silences apply), or null. */
  readonly ruleId: number | null;
}

export function Backtest({ session, rule, ruleId }: BacktestProps): VNode {
  const [range, setRange] = useState<RangeName>('last 24 hours');
  const [state, setState] = useState<
    | { readonly kind: 'idle' | 'running' }
    | { readonly kind: 'done'; readonly result: BacktestResult }
    | { readonly kind: 'failed'; readonly message: string }
  >({ kind: 'idle' });
  const start = (): void => {
    const to = Date.now();
    const body = { rule, ...(ruleId === null ? {} : { ruleId }), from: to - RANGES[range], to };
    setState({ kind: 'running' });
    session.api.send<BacktestResult>('/api/v1/rules/backtest', body).then(
      (result) => setState({ kind: 'done', result }),
      (error: unknown) => setState({ kind: 'failed', message: describeError(error) }),
    );
  };
  return html`<section class="backtest" aria-label="Backtest">
    <h3>Backtest</h3>
    <div class="actions">
      <select
        name="backtestRange"
        value=${range}
        onChange=${(e: Event) => setRange((e.target as HTMLSelectElement).value as RangeName)}
      >
        ${Object.keys(RANGES).map((r) => html`<option value=${r}>${r}</option>`)}
      </select>
      <button type="button" onClick=${start} disabled=${state.kind === 'running'}>Backtest</button>
    </div>
    ${state.kind === 'running' ? html`<p class="muted">Replaying the stored events…</p>` : ''}
    ${state.kind === 'failed' ? html`<p class="error" role="alert">${state.message}</p>` : ''}
    ${state.kind === 'done' ? html`<${BacktestReport} result=${state.result} />` : ''}
  </section>`;
}

function BacktestReport({ result }: { readonly result: BacktestResult }): VNode {
  const { counts } = result;
  return html`<div class="backtest-result" data-transitions=${result.transitions.length}>
    <p>
      ${`Would have fired ${counts.firing} time${counts.firing === 1 ? '' : 's'}, resolved ${counts.resolved}; ${counts.notificationsSent} notification(s) sent (${counts.silenced} silenced, ${counts.heldByBudget} held by the budget).`}
      ${result.truncated ? html`<strong> Truncated: ${result.truncatedReason}</strong>` : ''}
    </p>
    <${BacktestChart} result=${result} />
    <table aria-label="Backtest transitions">
      <thead>
        <tr>
          <th>Transition</th>
          <th>At</th>
          <th>Why</th>
        </tr>
      </thead>
      <tbody>
        ${result.transitions.map(
          (x) =>
            html`<tr data-transition=${x.transition}>
              <td>${x.transition}</td>
              <td>${new Date(x.at).toLocaleString()}</td>
              <td>${x.explanationText ?? ''}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
