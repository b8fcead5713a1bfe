// GET /metrics as Prometheus itself reads it (issue 32's table): `promtool check metrics` on a real
// scrape, and a real Prometheus server scraping Vigil with the scrape token in a credentials file,
// whose query API then answers with Vigil's own series. Skips, with one line, without Prometheus.
import { spawn, execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { freePort } from '../support/free-port.ts';
import { startTestService } from '../support/service.ts';

const PROMTOOL = '/usr/bin/promtool';
const PROMETHEUS = '/usr/bin/prometheus';
const SCRAPE_TOKEN = 'scrape-token-for-the-prometheus-test';

if (!existsSync(PROMTOOL) || !existsSync(PROMETHEUS)) {
  t.plan(0, `no Prometheus at ${PROMETHEUS}: apt-get install -y prometheus`);
} else {
  await run();
}

async function run(): Promise<void> {
  const svc = await startTestService(t, { METRICS_SCRAPE_TOKEN: SCRAPE_TOKEN });
  const dir = await mkdtemp(path.join(tmpdir(), 'vigil-prometheus-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  // Some traffic, so the request series have samples.
  await (await svc.request('/api/v1/events', { json: { eventType: 'prom.check' } })).arrayBuffer();

  await t.test('promtool check metrics accepts a scrape', async (t) => {
    const res = await fetch(`${svc.base}/metrics`, {
      headers: { authorization: `Bearer ${SCRAPE_TOKEN}` },
    });
    t.equal(res.status, 200);
    const text = await res.text();
    const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = execFile(PROMTOOL, ['check', 'metrics'], (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : (child.exitCode ?? 1), output: stdout + stderr }),
      );
      child.stdin?.end(text);
    });
    t.equal(result.output.trim(), '', 'no problem reported');
    t.equal(result.code, 0);
  });

  await t.test('a Prometheus server scrapes it with the token in a credentials file', async (t) => {
    const port = await freePort();
    const tokenFile = path.join(dir, 'vigil-token');
    await writeFile(tokenFile, `${SCRAPE_TOKEN}\n`, { mode: 0o600 });
    const config = path.join(dir, 'prometheus.yml');
    await writeFile(
      config,
      [
        'global:',
        '  scrape_interval: 1s',
        'scrape_configs:',
        '  - job_name: vigil',
        '    authorization:',
        `      credentials_file: ${tokenFile}`,
        '    static_configs:',
        `      - targets: ['${new URL(svc.base).host}']`,
        '',
      ].join('\n'),
    );
    const server = spawn(
      PROMETHEUS,
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: 'ignore' },
    );
    t.teardown(() => {
      server.kill('SIGKILL');
    });
    const api = `http://127.0.0.1:${port}/api/v1`;
    // Waits for what Prometheus shows: the target up, then a Vigil series in its store.
    let health = '';
    let lastError = '';
    let series: unknown[] = [];
    for (let attempt = 0; attempt < 600 && series.length === 0; attempt++) {
      await sleep(200);
      try {
        const targets = (await (await fetch(`${api}/targets`)).json()) as {
          data: { activeTargets: { health: string; lastError: string }[] };
        };
        health = targets.data.activeTargets[0]?.health ?? '';
        lastError = targets.data.activeTargets[0]?.lastError ?? '';
        if (health !== 'up') continue;
        const query = encodeURIComponent('vigil_build_info');
        const answer = (await (await fetch(`${api}/query?query=${query}`)).json()) as {
          data: { result: unknown[] };
        };
        series = answer.data.result;
      } catch {
        // Not listening yet.
      }
    }
    t.equal(health, 'up', `the target is up (last error: '${lastError}')`);
    t.ok(series.length > 0, 'Vigil series queried back from Prometheus');
  });
}
