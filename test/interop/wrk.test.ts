// POST /api/v1/events under wrk (issue 32's table), a load generator nobody here wrote: its own
// summary must show no socket or non-2xx error, and every request it counts as answered must be a
// stored event (at most its connections' in-flight requests more). Skips, with one line, without it.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { TEST_ADMIN_KEY } from '../support/keys.ts';
import { startTestService } from '../support/service.ts';

const WRK = '/usr/bin/wrk';
const CONNECTIONS = 10;

if (!existsSync(WRK)) t.plan(0, `no wrk at ${WRK}: apt-get install -y wrk`);
else await run();

async function run(): Promise<void> {
  const svc = await startTestService(t);
  const dir = await mkdtemp(path.join(tmpdir(), 'vigil-wrk-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const script = path.join(dir, 'post.lua');
  await writeFile(
    script,
    [
      'wrk.method = "POST"',
      'wrk.headers["Content-Type"] = "application/json"',
      `wrk.headers["Authorization"] = "Bearer ${TEST_ADMIN_KEY}"`,
      'wrk.body = \'{"eventType":"wrk.check","source":"wrk"}\'',
      'done = function(summary, latency, requests)',
      '  local e = summary.errors',
      '  io.write(string.format("RESULT %d %d %d %d %d %d\\n", summary.requests, e.connect,',
      '    e.read, e.write, e.status, e.timeout))',
      'end',
      '',
    ].join('\n'),
  );
  await t.test('wrk at 10 connections: no error, every answer a stored event', async (t) => {
    const { stdout } = await promisify(execFile)(WRK, [
      '-t1',
      `-c${CONNECTIONS}`,
      '-d2s',
      '-s',
      script,
      `${svc.base}/api/v1/events`,
    ]);
    const result = /RESULT (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)/.exec(stdout);
    t.ok(result, `wrk printed its summary:\n${stdout}`);
    const [requests, connect, read, write, status, timeout] = (result ?? []).slice(1).map(Number);
    t.ok((requests ?? 0) > 0, `wrk sent requests (${requests})`);
    t.same(
      { connect, read, write, status, timeout },
      {
        connect: 0,
        read: 0,
        write: 0,
        status: 0,
        timeout: 0,
      },
    );

    // Every answered request was a 202: each is a stored event, found by its type's page total.
    let stored = 0;
    for (let attempt = 0; attempt < 300 && stored < (requests ?? 0); attempt++) {
      const res = await svc.request('/api/v1/events/type/wrk.check?size=1');
      stored = ((await res.json()) as { totalElements: number }).totalElements;
      if (stored < (requests ?? 0)) await sleep(100);
    }
    t.ok(stored >= (requests ?? 0), `stored ${stored} >= answered ${requests}`);
    t.ok(stored <= (requests ?? 0) + CONNECTIONS, `stored ${stored}: at most the in-flight more`);
  });
}
