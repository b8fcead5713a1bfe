/**
 * Child process (forked by paced-ingest.ts): POSTs events at a fixed rate, open loop, one per
 * request or `batch` per request to the batch endpoint. The i-th request is due at start +
 * i * batch / rate; latency counts from that due time (no coordinated omission).
 */
import * as hdr from 'hdr-histogram-js';
import { batchBody, eventStream } from './event-mix.ts';
import { childSide } from './load-child.ts';
import type { PacedIngestIn, PacedIngestOptions, PacedIngestOut } from './paced-ingest.ts';
import { postRequest, RawConnection, type RawAnswer } from './raw-http.ts';
import { exitRefusedKey, keyRefused } from './client-key.ts';

const { options, post } = childSide<PacedIngestOptions, PacedIngestOut>();
const nextEvent = eventStream(options.spread, options.seed);
const host = `127.0.0.1:${options.port}`;
const requestsPerSec = options.rate / options.batch;
const intervalMs = 1000 / requestsPerSec;
const path = options.batch === 1 ? '/api/v1/events' : '/api/v1/events/batch';
const nextBody = (): string =>
  options.batch === 1 ? JSON.stringify(nextEvent()) : batchBody(nextEvent, options.batch);
/** Further behind than one second of requests: the excess is dropped (counted), not queued. */
const MAX_BACKLOG = Math.max(1, Math.ceil(requestsPerSec));

const fromDue = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000 });
const fromSend = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000 });
let ok = 0;
let non2xx = 0;
let errors = 0;
let dropped = 0;
let sent = 0;
const statuses: Record<string, number> = {};
let lastError = '';
let running = true;
let inFlight = 0;

const all = new Set<RawConnection>();
const open = (): RawConnection => {
  const connection = new RawConnection(options.port);
  all.add(connection);
  return connection;
};
const idle: RawConnection[] = [];
for (let i = 0; i < options.connections; i++) idle.push(open());

const startedAt = performance.now();
const cpuAtStart = process.cpuUsage();
let nextIndex = 0;

const us = (ms: number): number => Math.max(1, Math.round(ms * 1000));

function answered(
  connection: RawConnection,
  dueAt: number,
  sentAt: number,
  error: Error | null,
  answer: RawAnswer | null,
): void {
  inFlight--;
  const now = performance.now();
  if (error !== null || answer === null) {
    errors++;
    lastError = error?.message ?? 'no answer';
    // A failed connection is replaced; the service may have closed it.
    if (connection.closed) all.delete(connection);
    if (running) idle.push(connection.closed ? open() : connection);
  } else {
    if (keyRefused(answer.status)) {
      exitRefusedKey(`paced ingest POST ${path}`, answer.status, answer.body.toString());
    }
    if (answer.status === 202) ok += options.batch;
    else {
      non2xx++;
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    }
    fromDue.recordValue(us(now - dueAt));
    fromSend.recordValue(us(now - sentAt));
    idle.push(connection);
  }
  if (running) pump();
}

function pump(): void {
  const now = performance.now();
  const due = Math.floor((now - startedAt) / intervalMs) + 1;
  if (due - nextIndex > MAX_BACKLOG) {
    dropped += due - nextIndex - MAX_BACKLOG;
    nextIndex = due - MAX_BACKLOG;
  }
  while (nextIndex < due) {
    // Oldest idle first: every connection is used in turn, so at this rate none sits idle for
    // the 10 s after which uWS closes it (most recent first let the bottom of the stack time out
    // and race a request against the server's close).
    let connection = idle.shift();
    if (connection === undefined) return;
    // After a quiet spell (or below connections / 10 requests a second) one may still be closed:
    // like any HTTP client, we open a new one rather than count a request never sent as a failure.
    if (connection.closed) {
      all.delete(connection);
      connection = open();
    }
    const dueAt = startedAt + nextIndex * intervalMs;
    nextIndex++;
    sent++;
    inFlight++;
    const request = postRequest(host, path, nextBody());
    connection.send(request, (error, answer) => answered(connection, dueAt, now, error, answer));
  }
}

const ticker = setInterval(pump, 1);
const deadline = setTimeout(() => void finish(), options.maxSec * 1000);

async function finish(): Promise<void> {
  if (!running) return;
  running = false;
  clearInterval(ticker);
  clearTimeout(deadline);
  const stoppedAt = performance.now();
  for (let i = 0; i < 500 && inFlight > 0; i++) await new Promise((r) => setTimeout(r, 10));
  const cpu = process.cpuUsage(cpuAtStart);
  post({
    type: 'done',
    seconds: (stoppedAt - startedAt) / 1000,
    sent,
    ok,
    non2xx,
    errors,
    dropped,
    unanswered: inFlight,
    statuses,
    lastError,
    p50FromDueMs: fromDue.getValueAtPercentile(50) / 1000,
    p99FromDueMs: fromDue.getValueAtPercentile(99) / 1000,
    p50Ms: fromSend.getValueAtPercentile(50) / 1000,
    p99Ms: fromSend.getValueAtPercentile(99) / 1000,
    cpuPercent: (100 * (cpu.user + cpu.system)) / 1000 / (stoppedAt - startedAt),
  });
  for (const connection of all) connection.close();
  process.disconnect();
}

process.on('message', (raw: unknown) => {
  const message = raw as PacedIngestIn;
  switch (message.type) {
    case 'counters':
      post({ type: 'counters', at: Date.now(), ok, non2xx, errors, dropped, sent });
      return;
    case 'stop':
      void finish();
      return;
  }
});

post({ type: 'ready' });
