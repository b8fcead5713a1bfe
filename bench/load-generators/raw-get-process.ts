/**
 * Child process (forked by raw-get.ts): a closed-loop GET load over raw keep-alive sockets that
 * never decodes the answer body. autocannon turns every body into a string, which for a 100 KB
 * snapshot costs the generator more CPU than the service spends answering; on 2 shared cores
 * that CPU comes out of the service's share. This client isolates the service's own latency.
 */
import * as hdr from 'hdr-histogram-js';
import { childSide } from './load-child.ts';
import { getRequest, RawConnection } from './raw-http.ts';
import { exitRefusedKey, keyRefused } from './client-key.ts';
import { threadSchedTimes } from '../../src/telemetry/thread-schedstat.ts';
import type { RawGetIn, RawGetOptions, RawGetOut } from './raw-get.ts';

const { options, post } = childSide<RawGetOptions, RawGetOut>();
const request = getRequest(`127.0.0.1:${options.port}`, options.path, options.gzip);

let latency = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000 });
let recording = false;
let ok = 0;
let non2xx = 0;
let errors = 0;
let roundStart = 0;
let cpuAtStart = process.cpuUsage();
let schedAtStart = threadSchedTimes();
let running = true;
const connections: RawConnection[] = [];

function loop(connection: RawConnection): void {
  if (!running) return;
  const sentAt = performance.now();
  connection.send(request, (error, answer) => {
    if (answer !== null && keyRefused(answer.status)) {
      exitRefusedKey(`lean GET ${options.path}`, answer.status, answer.body.toString());
    }
    if (recording) {
      if (error !== null || answer === null) errors++;
      else if (answer.status === 200) {
        ok++;
        latency.recordValue(Math.max(1, Math.round((performance.now() - sentAt) * 1000)));
      } else non2xx++;
    }
    if (error !== null) {
      // A broken connection is replaced, so the concurrency stays what was asked for.
      const index = connections.indexOf(connection);
      const fresh = new RawConnection(options.port);
      connections[index] = fresh;
      loop(fresh);
      return;
    }
    loop(connection);
  });
}

for (let i = 0; i < options.connections; i++) {
  const connection = new RawConnection(options.port);
  connections.push(connection);
  loop(connection);
}

process.on('message', (raw: unknown) => {
  const message = raw as RawGetIn;
  switch (message.type) {
    case 'start':
      latency = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000 });
      ok = 0;
      non2xx = 0;
      errors = 0;
      recording = true;
      roundStart = performance.now();
      cpuAtStart = process.cpuUsage();
      schedAtStart = threadSchedTimes();
      return;
    case 'end': {
      recording = false;
      const ms = performance.now() - roundStart;
      const cpu = process.cpuUsage(cpuAtStart);
      const sched = threadSchedTimes();
      post({
        type: 'round',
        ok,
        reqPerSec: (ok * 1000) / ms,
        p50Ms: latency.getValueAtPercentile(50) / 1000,
        p99Ms: latency.getValueAtPercentile(99) / 1000,
        non2xx,
        errors,
        cpuPercent: (100 * (cpu.user + cpu.system)) / 1000 / ms,
        waitingPercent:
          sched === null || schedAtStart === null
            ? null
            : (100 * (sched.waitingNs - schedAtStart.waitingNs)) / 1e6 / ms,
      });
      return;
    }
    case 'stop':
      running = false;
      for (const connection of connections) connection.close();
      process.disconnect();
      return;
  }
});

post({ type: 'ready' });
