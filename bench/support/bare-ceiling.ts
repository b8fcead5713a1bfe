/**
 * The ceiling (run as its own process by start-service.ts): a bare uWS server that reads the body,
 * parses the same JSON and answers 202 with an ack like Vigil's, storing nothing. Port from PORT.
 */
import uWS from 'uWebSockets.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const port = Number.parseInt(process.env.PORT ?? '0', 10);
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

function ack(text: string): string {
  const event = JSON.parse(text) as { eventType?: unknown; timestamp?: unknown };
  const at = typeof event.timestamp === 'string' ? Date.parse(event.timestamp) : Date.now();
  return JSON.stringify({
    status: 'accepted',
    eventId: `evt_${++nextId}`,
    eventType: event.eventType,
    timestamp: new Date(at).toISOString(),
    message: 'Event accepted for processing',
  });
}

const app = uWS.App();
app.get('/api/v1/events/health', (res) => {
  res.writeHeader('Content-Type', 'application/json').end('{"status":"UP"}');
});
app.post('/api/v1/events', (res) => {
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
      answer(res, exchange, '202 Accepted', ack(utf8.decode(Buffer.concat(chunks))));
    } catch {
      answer(res, exchange, '400 Bad Request', '{"status":"error","message":"Malformed JSON"}');
    }
  });
});
app.listen('127.0.0.1', port, (token) => {
  if (token === false) {
    console.error(`bare ceiling: cannot listen on 127.0.0.1:${port}`);
    process.exit(1);
  }
  const stop = (): void => {
    uWS.us_listen_socket_close(token);
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
});
