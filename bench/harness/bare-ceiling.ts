/**
 * The ceiling (run as its own process by start-service.ts): a bare uWS server that reads the body,
 * parses the same JSON and answers 202 with an ack like Vigil's, storing nothing. Port from PORT.
 * With SNAPSHOT_FILE it also serves that file as GET /api/v1/metrics, gzipped (level 1, as the
 * metrics actor does) for clients that ask: the floor of bench:metrics' GET rounds.
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type uWS from 'uWebSockets.js';
import { nativeUws } from '../../src/http/uws.ts';
import { acceptsGzip } from '../../src/http/accept-encoding.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const port = Number.parseInt(process.env.PORT ?? '0', 10);
const snapshotFile = process.env.SNAPSHOT_FILE;
let nextId = 0;

interface Exchange {
  aborted: boolean;
}

function answer(res: uWS.HttpResponse, exchange: Exchange, status: string, body: string): void {
  if (exchange.aborted) return;
  res.cork(() => {
    res.writeStatus(status).writeHeader('Content-Type', 'application/json').end(body);
  });
}

interface Ack {
  status: 'accepted';
  eventId: string;
  eventType: unknown;
  timestamp: string;
  message: string;
}

function ackOf(event: { eventType?: unknown; timestamp?: unknown }): Ack {
  const at = typeof event.timestamp === 'string' ? Date.parse(event.timestamp) : Date.now();
  return {
    status: 'accepted',
    eventId: `evt_${++nextId}`,
    eventType: event.eventType,
    timestamp: new Date(at).toISOString(),
    message: 'Event accepted for processing',
  };
}

const ack = (text: string): string => JSON.stringify(ackOf(JSON.parse(text) as object));

/** As Vigil's batch answer: every item acknowledged in order (items are not checked). */
function batchAck(text: string): string {
  const body = JSON.parse(text) as unknown;
  const items = Array.isArray(body) ? body : (body as { events?: unknown }).events;
  const results = Array.isArray(items) ? items.map((item) => ackOf(item as object)) : [];
  return JSON.stringify({
    status: 'accepted',
    accepted: results.length,
    rejected: 0,
    results,
  });
}

/** Reads the whole body, then answers 202 with `reply(body)` (400 if it is not JSON). */
const acking =
  (reply: (text: string) => string) =>
  (res: uWS.HttpResponse): void => {
    const exchange: Exchange = { aborted: false };
    res.onAborted(() => {
      exchange.aborted = true;
    });
    const chunks: Buffer[] = [];
    res.onData((chunk, isLast) => {
      // uWS reuses the chunk's memory after this callback: copy it, as Vigil's reader does.
      chunks.push(Buffer.from(chunk.slice(0)));
      if (!isLast) return;
      try {
        answer(res, exchange, '202 Accepted', reply(utf8.decode(Buffer.concat(chunks))));
      } catch {
        answer(res, exchange, '400 Bad Request', '{"status":"error","message":"Malformed JSON"}');
      }
    });
  };

const app = nativeUws().App();
app.get('/api/v1/events/health', (res) => {
  res.writeHeader('Content-Type', 'application/json').end('{"status":"UP"}');
});
app.post('/api/v1/events', acking(ack));
app.post('/api/v1/events/batch', acking(batchAck));
if (snapshotFile !== undefined) {
  const plain = readFileSync(snapshotFile);
  const gzip = gzipSync(plain, { level: 1 });
  app.get('/api/v1/metrics', (res, req) => {
    // The service's own negotiation, so both servers send gzip to exactly the same clients.
    const gzipped = acceptsGzip(req.getHeader('accept-encoding'));
    res.cork(() => {
      res.writeStatus('200 OK').writeHeader('Content-Type', 'application/json');
      if (gzipped) res.writeHeader('Content-Encoding', 'gzip');
      res.writeHeader('Vary', 'Accept-Encoding').end(gzipped ? gzip : plain);
    });
  });
}
app.listen('127.0.0.1', port, (token) => {
  if (token === false) {
    console.error(`bare ceiling: cannot listen on 127.0.0.1:${port}`);
    process.exit(1);
  }
  const stop = (): void => {
    nativeUws().us_listen_socket_close(token);
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
});
