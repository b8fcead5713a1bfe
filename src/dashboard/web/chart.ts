/**
 * @module One uPlot time-series chart bound to the metrics store: created once, then fed with
 * setData at most once per animation frame and never while the tab is hidden. Colours come from
 * the page's CSS variables, so the chart follows the light or dark theme.
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
  readonly series: readonly { readonly column: number; readonly label: string }[];
  readonly unit: string;
}

const PALETTE = ['--series-1', '--series-2', '--series-3'];
const HEIGHT = 180;

const cssVar = (name: string): string =>
  getComputedStyle(document.documentElement).getPropertyValue(name).trim();

export function Chart({ store, title, series, unit }: ChartProps): VNode {
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
            width: 1.5,
            points: { show: false },
          })),
        ],
      },
      store.ring.view([0, ...series.map((s) => s.column)]),
      el,
    );
    // How many points are drawn, for tests and the curious (the chart itself is a canvas).
    el.dataset.points = String(store.ring.size);
    let frame = 0;
    const draw = (): void => {
      frame = 0;
      el.dataset.points = String(store.ring.size);
      chart.setData(store.ring.view([0, ...series.map((s) => s.column)]));
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
