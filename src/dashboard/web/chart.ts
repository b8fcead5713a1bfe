/**
 * @module One uPlot time-series chart bound to the metrics store: created once, then fed with
 * setData at most once per animation frame and never while the tab is hidden. Colours come from
 * the page's CSS variables, so the chart follows the light or dark theme. The x axis shows the
 * overview's range back from the newest point; the legend shows the newest values unless the
 * pointer is on the chart (uPlot's own would read "--" until hovered); NaN (a quiet minute) is a gap.
 */
import { html } from 'htm/preact';
import { useEffect, useRef } from 'preact/hooks';
import type { VNode } from 'preact';
import uPlot from 'uplot';
import type { MetricsStore } from './metrics-store.ts';

export interface ChartProps {
  readonly store: MetricsStore;
  readonly title: string;
  /** Ring columns and their labels, drawn in this order. */
  readonly series: readonly {
    readonly column: number;
    readonly label: string;
    /** Dashed: a line that often equals another (p99 = p95) lets the one below show through. */
    readonly dash?: boolean;
  }[];
  readonly unit: string;
  /** Seconds back from the newest point. */
  readonly rangeSeconds: number;
}

const PALETTE = ['--series-1', '--series-2', '--series-3'];
const HEIGHT = 180;

const cssVar = (name: string): string =>
  getComputedStyle(document.documentElement).getPropertyValue(name).trim();

/** uPlot draws a gap at null, not at NaN. */
const withGaps = (columns: Float64Array[]): (number | null)[][] =>
  columns.map((column, i) =>
    i === 0 ? Array.from(column) : Array.from(column, (v) => (Number.isNaN(v) ? null : v)),
  );

/** The legend on the newest point (nothing to show before the first), unless the pointer is on it. */
export function showLatest(chart: uPlot): void {
  const last = (chart.data[0]?.length ?? 0) - 1;
  if (last >= 0 && chart.cursor.idx == null) chart.setLegend({ idx: last }, false);
}

export function Chart({ store, title, series, unit, rangeSeconds }: ChartProps): VNode {
  const range = useRef(rangeSeconds);
  range.current = rangeSeconds;
  const redraw = useRef<() => void>(() => undefined);
  useEffect(() => redraw.current(), [rangeSeconds]);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (el === null) return undefined;
    const axis = {
      stroke: cssVar('--muted'),
      grid: { stroke: cssVar('--grid') },
      ticks: { show: false },
    };
    const chart = new uPlot(
      {
        width: Math.max(200, el.clientWidth),
        height: HEIGHT,
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: true } },
        axes: [axis, { ...axis, size: 56, values: (_u, ticks) => ticks.map((v) => `${v}${unit}`) }],
        series: [
          {},
          ...series.map((s, i) => ({
            label: s.label,
            stroke: cssVar(PALETTE[i] ?? '--series-1'),
            width: s.dash === true ? 1.5 : 2,
            ...(s.dash === true ? { dash: [5, 4] } : {}),
            points: { show: false },
          })),
        ],
        hooks: { setCursor: [showLatest] },
      },
      [],
      el,
    );
    const columns = [0, ...series.map((s) => s.column)];
    /** The data, the range back from the newest point, and the legend on it. */
    const fill = (): void => {
      const data = withGaps(store.ring.view(columns));
      chart.setData(data as uPlot.AlignedData);
      const newest = data[0]?.[data[0].length - 1];
      if (typeof newest === 'number')
        chart.setScale('x', { min: newest - range.current, max: newest });
      showLatest(chart);
    };
    fill();
    redraw.current = fill;
    // How many points are drawn, for tests and the curious (the chart itself is a canvas).
    el.dataset.points = String(store.ring.size);
    let frame = 0;
    const draw = (): void => {
      frame = 0;
      el.dataset.points = String(store.ring.size);
      fill();
    };
    const schedule = (): void => {
      if (frame === 0 && !document.hidden) frame = requestAnimationFrame(draw);
    };
    const unsubscribe = store.subscribe(schedule);
    document.addEventListener('visibilitychange', schedule);
    const resize = new ResizeObserver(() =>
      chart.setSize({ width: Math.max(200, el.clientWidth), height: HEIGHT }),
    );
    resize.observe(el);
    return () => {
      unsubscribe();
      document.removeEventListener('visibilitychange', schedule);
      resize.disconnect();
      if (frame !== 0) cancelAnimationFrame(frame);
      chart.destroy();
    };
  }, [store]);
  return html`<section class="panel chart" aria-label=${title}>
    <h3>${title}</h3>
    <div ref=${box} class="chart-box"></div>
  </section>`;
}
