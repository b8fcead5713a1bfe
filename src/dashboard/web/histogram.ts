/**
 * @module The explorer's histogram: how many events matched per bucket of the range (GET
 * /api/v1/events/histogram), drawn as uPlot bars. Redrawn whole on each answer (60 buckets).
 */
import { html } from 'htm/preact';
import { useEffect, useRef } from 'preact/hooks';
import type { VNode } from 'preact';
import uPlot from 'uplot';

export interface HistogramAnswer {
  readonly from: string;
  readonly to: string;
  readonly bucketMs: number;
  readonly buckets: readonly { readonly start: string; readonly count: number }[];
}

const HEIGHT = 140;

const cssVar = (name: string): string =>
  getComputedStyle(document.documentElement).getPropertyValue(name).trim();

export function Histogram({ answer }: { answer: HistogramAnswer }): VNode {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (el === null) return undefined;
    const times = answer.buckets.map((b) => Date.parse(b.start) / 1000);
    const counts = answer.buckets.map((b) => b.count);
    const axis = { stroke: cssVar('--muted'), grid: { stroke: cssVar('--grid') } };
    const bars = uPlot.paths.bars?.({ size: [0.9, 40], align: 1 });
    const chart = new uPlot(
      {
        width: Math.max(200, el.clientWidth),
        height: HEIGHT,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: true } },
        axes: [axis, { ...axis, size: 48 }],
        series: [
          {},
          {
            label: 'matches',
            stroke: cssVar('--series-1'),
            fill: cssVar('--series-1'),
            points: { show: false },
            ...(bars === undefined ? {} : { paths: bars }),
          },
        ],
      },
      [times, counts],
      el,
    );
    el.dataset.buckets = String(counts.length);
    el.dataset.total = String(counts.reduce((a, b) => a + b, 0));
    const resize = new ResizeObserver(() =>
      chart.setSize({ width: Math.max(200, el.clientWidth), height: HEIGHT }),
    );
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [answer]);
  return html`<section class="panel histogram" aria-label="Matches over time">
    <div ref=${box} class="histogram-box"></div>
  </section>`;
}
