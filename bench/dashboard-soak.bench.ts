/**
 * `npm run bench:dashboard-soak`: the dashboard's overview open in headless Chromium for
 * DASH_SOAK_MINUTES (default 30) of 1-second /topic/metrics pushes under a paced ingest that keeps
 * the top types, sources and users changing; every DASH_SOAK_SAMPLE_SECONDS (default 60), after a
 * forced garbage collection, the page's JS heap, DOM node count and listeners (Chrome DevTools
 * Protocol Performance.getMetrics). Fixed-size buffers should keep them flat. DASH_SOAK_SCREENSHOT
 * saves the overview at the end (how docs/dashboard.png is made).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { startService } from './harness/bench-service.ts';
import { ingestSpreadKnobs, intKnob } from './harness/knobs.ts';
import { startPacedIngest } from './load-generators/paced-ingest.ts';
import { num, printTable } from './report/print-table.ts';
import { NO_CHROMIUM, chromiumPath, openBrowser } from '../test/support/shared.ts';
import { buildDashboard } from '../test/support/shared.ts';
import { TEST_ADMIN_KEY } from '../test/support/shared.ts';

const MINUTES = intKnob('DASH_SOAK_MINUTES', 30);
const SAMPLE_SECONDS = intKnob('DASH_SOAK_SAMPLE_SECONDS', 60);
const RATE = intKnob('DASH_SOAK_RATE', 200);
const SCREENSHOT = process.env.DASH_SOAK_SCREENSHOT;

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

if (chromiumPath() === null) throw new Error(NO_CHROMIUM);
await buildDashboard();
const svc = await startService({ env: { LOG_LEVEL: 'warn' } });
const ingest = await startPacedIngest({
  port: Number(new URL(svc.url).port),
  rate: RATE,
  batch: 10,
  connections: 4,
  maxSec: MINUTES * 60 + 120,
  spread: { ...ingestSpreadKnobs(), types: 40, sources: 12, users: 5000 },
  seed: 19,
});
const browser = await openBrowser(svc.url);

interface Sample {
  readonly minute: number;
  readonly heapMiB: number;
  readonly nodes: number;
  readonly listeners: number;
  readonly points: number;
}

try {
  const page = await browser.newPage();
  await page.goto(`${svc.url}/#/overview`);
  await page.fill('input[name=apiKey]', TEST_ADMIN_KEY);
  await page.click('button[type=submit]');
  await page.waitForSelector('[data-live=live]');
  await page.waitForSelector('[data-stat=total-events]');
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const started = Date.now();
  const sample = async (): Promise<Sample> => {
    await cdp.send('HeapProfiler.collectGarbage');
    const { metrics } = await cdp.send('Performance.getMetrics');
    const metric = (name: string): number => metrics.find((m) => m.name === name)?.value ?? NaN;
    return {
      minute: (Date.now() - started) / 60_000,
      heapMiB: metric('JSHeapUsedSize') / 1024 / 1024,
      nodes: metric('Nodes'),
      listeners: metric('JSEventListeners'),
      points: Number(await page.getAttribute('.chart-box', 'data-points')),
    };
  };
  const samples: Sample[] = [await sample()];
  log(`dashboard soak: ${MINUTES} min at ${RATE} events/s, a sample every ${SAMPLE_SECONDS} s`);
  while (Date.now() - started < MINUTES * 60_000) {
    await sleep(Math.min(SAMPLE_SECONDS * 1000, started + MINUTES * 60_000 - Date.now()));
    const s = await sample();
    samples.push(s);
    log(
      `  ${num(s.minute, 1)} min: heap ${num(s.heapMiB, 2)} MiB, ${s.nodes} nodes, ${s.points} points`,
    );
  }
  if (SCREENSHOT !== undefined) await page.screenshot({ path: SCREENSHOT });
  const done = await ingest.stop();
  const first = samples[0] as Sample;
  const last = samples[samples.length - 1] as Sample;
  const max = (pick: (s: Sample) => number): number => Math.max(...samples.map(pick));
  printTable(
    [
      { title: 'measure' },
      { title: 'start', align: 'right' },
      { title: 'end', align: 'right' },
      { title: 'max', align: 'right' },
    ],
    [
      [
        'JS heap used (MiB, after GC)',
        num(first.heapMiB, 2),
        num(last.heapMiB, 2),
        num(
          max((s) => s.heapMiB),
          2,
        ),
      ],
      ['DOM nodes', num(first.nodes), num(last.nodes), num(max((s) => s.nodes))],
      ['event listeners', num(first.listeners), num(last.listeners), num(max((s) => s.listeners))],
      ['points per chart', num(first.points), num(last.points), num(max((s) => s.points))],
    ],
  );
  process.stdout.write(
    `\n${num(MINUTES)} min, ${samples.length} samples; ingest ${num(done.ok)} events acknowledged ` +
      `(${num(done.ok / done.seconds)}/s), ${done.non2xx + done.errors} failed; ` +
      `console errors ${browser.errors.length}, requests off-origin ${browser.outside.length}\n`,
  );
  if (browser.errors.length > 0 || browser.outside.length > 0 || done.non2xx + done.errors > 0) {
    log([...browser.errors, ...browser.outside].join('\n'));
    process.exitCode = 1;
  }
} finally {
  await browser.close();
  await ingest.stop().catch(() => undefined);
  await svc.stop();
}
