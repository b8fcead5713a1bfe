/**
 * @module The rule editor's backtest (docs/dashboard.md): the draft replayed by POST
 * /api/v1/rules/backtest over the last day or week, drawn with uPlot as the metric the condition
 * compares and its threshold (an ANOMALY rule: its observed value in its band, expected dashed),
 * and marks where the rule would have been FIRING, with the transitions listed below. A stored
 * rule of any type is replayed by its id alone (rules.ts offers it on the list).
 */
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { VNode } from 'preact';
import uPlot from 'uplot';
import { describeError } from './api.ts';
import { showLatest } from './chart.ts';
import type { Session } from './session.ts';
import type { BacktestResult, ChartSeries } from '../../domain/rules/backtest/backtest-result.ts';

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

/** uPlot's lines after the time axis: the value, then its threshold or its band. */
interface Plot {
  readonly series: uPlot.Series[];
  readonly data: (number | null)[][];
  readonly bands: uPlot.Band[];
}

const line = (label: string, color: string, dash?: number[]): uPlot.Series => ({
  label,
  stroke: cssVar(color),
  width: 1,
  points: { show: false },
  ...(dash === undefined ? {} : { dash }),
});

const COLOURS = ['--series-1', '--series-2', '--series-3'];

function plotOf(series: ChartSeries, times: readonly number[], colour: string): Plot {
  const value: uPlot.Series = {
    label: series.label,
    stroke: cssVar(colour),
    width: 1.5,
    points: { show: false },
  };
  const values = series.values as (number | null)[];
  if (series.kind === 'threshold')
    return {
      series: [value, line(`threshold ${series.threshold}`, colour, [6, 4])],
      data: [values, times.map(() => series.threshold)],
      bands: [],
    };
  // Series 2..4 (after time and value): expected, lower, upper; the band fills upper to lower.
  return {
    series: [
      value,
      line('expected', '--series-2', [6, 4]),
      line('lower', '--series-2'),
      line('upper', '--series-2'),
    ],
    data: [values, series.expected, series.lower, series.upper] as (number | null)[][],
    bands: [{ series: [4, 3], fill: cssVar('--band-fill') }],
  };
}

/**
 * The indexes from the first to the last point where any series has a value other than 0 or a
 * transition happened, some points wider: ten minutes of data in a day are the chart, not a
 * sliver at its edge. Null when there is neither.
 */
function dataSpan(result: BacktestResult): [number, number] | null {
  const { times, series } = result.chart;
  let first = -1;
  let last = -1;
  const mark = (i: number): void => {
    if (first < 0 || i < first) first = i;
    if (i > last) last = i;
  };
  for (let i = 0; i < times.length; i++) if (series.some((s) => (s.values[i] ?? 0) !== 0)) mark(i);
  for (const x of result.transitions) {
    const at = Date.parse(x.at);
    const i = times.findIndex((t) => t >= at);
    mark(i < 0 ? times.length - 1 : i);
  }
  if (first < 0) return null;
  const pad = Math.max(10, Math.round((last - first) / 10));
  return [Math.max(0, first - pad), Math.min(times.length - 1, last + pad)];
}

function BacktestChart({ result }: { readonly result: BacktestResult }): VNode {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    const first = result.chart.series[0];
    if (el === null || first === undefined) return undefined;
    const times = result.chart.times.map((ms) => ms / 1000);
    const marks = first.values.map((v, i) =>
      firingAt(result, result.chart.times[i] as number) ? v : null,
    );
    // Every condition's metric (a band is drawn alone: its rule has one series).
    const plots = result.chart.series.map((s, i) =>
      plotOf(s, times, COLOURS[i % 3] ?? '--series-1'),
    );
    let offset = 1;
    const bands: uPlot.Band[] = [];
    for (const plot of plots) {
      for (const band of plot.bands)
        bands.push({ ...band, series: [band.series[0] + offset - 1, band.series[1] + offset - 1] });
      offset += plot.series.length;
    }
    const axis = { stroke: cssVar('--muted'), grid: { stroke: cssVar('--grid') } };
    const chart = new uPlot(
      {
        width: Math.max(200, el.clientWidth),
        height: HEIGHT,
        scales: { x: { time: true } },
        axes: [axis, { ...axis, size: 56 }],
        series: [
          {},
          ...plots.flatMap((p) => p.series),
          {
            label: 'would fire',
            stroke: cssVar('--series-3'),
            paths: () => null,
            points: { show: true, size: 5, fill: cssVar('--series-3') },
          },
        ],
        bands,
        hooks: { setCursor: [showLatest] },
      },
      [times, ...plots.flatMap((p) => p.data), marks],
      el,
    );
    const span = dataSpan(result);
    if (span !== null) {
      const [lo, hi] = span;
      chart.setScale('x', { min: times[lo] as number, max: times[hi] as number });
      el.dataset.zoom = `${lo}-${hi}`;
    }
    showLatest(chart);
    el.dataset.points = String(times.length);
    el.dataset.series = String(result.chart.series.length);
    el.dataset.kind = first.kind;
    return () => chart.destroy();
  }, [result]);
  // PATTERN: no series (a match has no value): the transitions below tell it all.
  return result.chart.series.length === 0
    ? html`<p class="muted">No chart for this rule type: see the transitions below.</p>`
    : html`<div ref=${box} class="chart-box backtest-chart"></div>`;
}

export interface BacktestProps {
  readonly session: Session;
  /** The draft as the rule test takes it; null: the stored rule of `ruleId` as it is stored. */
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
    const body = {
      ...(rule === null ? {} : { rule }),
      ...(ruleId === null ? {} : { ruleId }),
      from: to - RANGES[range],
      to,
    };
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
