/**
 * HTTP that a well-behaved client library would never send, written on raw sockets (node:net):
 * truncated and oversized bodies, slowloris headers and bodies, broken framing, smuggling attempts.
 * Each case reports every answer the service gave and whether it dropped the connection.
 */
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { probeHealth } from './probes.ts';
import { problemsOf } from './fuzz-http.ts';
import { TEST_ADMIN_KEY } from '../keys.ts';

export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Answered by uWS itself (no JSON): the request never reached a route. */
  readonly byServer: boolean;
}

export interface RawResult {
  readonly name: string;
  readonly answers: readonly RawAnswer[];
  /** The service closed the connection (null: still open when we gave up). */
  readonly closedAfterMs: number | null;
  readonly problems: readonly string[];
}

type Step = Buffer | string | { readonly pauseMs: number } | { readonly halfClose: true };

/** Writes `steps` on a fresh connection and collects what comes back until close or `waitMs`. */
async function exchange(
  port: number,
  steps: readonly Step[],
  waitMs: number,
): Promise<{ data: Buffer; closedAfterMs: number | null }> {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  const started = Date.now();
  let closedAt: number | null = null;
  const closed = new Promise<void>((resolve) =>
    socket.on('close', () => {
      closedAt = Date.now();
      resolve();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  for (const step of steps) {
    if (closedAt !== null) break;
    if (typeof step === 'object' && 'halfClose' in step) socket.end();
    else if (typeof step === 'object' && 'pauseMs' in step) await sleep(step.pauseMs);
    else socket.write(step);
  }
  await Promise.race([closed, sleep(waitMs, null, { ref: false })]);
  socket.destroy();
  return {
    data: Buffer.concat(chunks),
    closedAfterMs: closedAt === null ? null : (closedAt as number) - started,
  };
}

/** Every complete HTTP response in `data` (Content-Length framed, as the service answers). */
export function parseResponses(data: Buffer): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let rest = data;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return answers;
    const head = rest.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '')?.[1] ?? 0);
    const headers: Record<string, string> = {};
    for (const line of head.slice(1)) {
      const colon = line.indexOf(':');
      if (colon > 0)
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const body = rest.subarray(end + 4, end + 4 + length).toString('utf8');
    answers.push({
      status,
      headers,
      body,
      byServer: !(headers['content-type'] ?? '').startsWith('application/json'),
    });
    rest = rest.subarray(end + 4 + length);
    if (status === 0) return answers;
  }
}

const event = '{"eventType":"raw.case","source":"fuzz-raw"}';
const post = (headers: string, body = ''): string =>
  `POST /api/v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_ADMIN_KEY}\r\n${headers}\r\n${body}`;

interface CaseDef {
  readonly name: string;
  readonly steps: readonly Step[];
  readonly waitMs: number;
}

/** The fixed cases; `slowMs` bounds how long the slow ones trickle. */
export function rawCases(slowMs: number): CaseDef[] {
  const trickle = (text: string, everyMs: number): Step[] => {
    const steps: Step[] = [];
    const n = Math.max(1, Math.floor(slowMs / everyMs));
    for (let i = 0; i < Math.min(n, text.length); i++)
      steps.push(text[i] as string, { pauseMs: everyMs });
    return steps;
  };
  return [
    {
      name: 'truncated body, then half-close',
      steps: [
        post('Content-Type: application/json\r\nContent-Length: 200\r\n', event),
        { halfClose: true },
      ],
      waitMs: 3000,
    },
    {
      name: 'truncated body, then silence',
      steps: [post('Content-Type: application/json\r\nContent-Length: 200\r\n', event)],
      waitMs: slowMs + 15_000,
    },
    {
      name: 'slowloris headers (1 byte / 500 ms)',
      steps: trickle(
        'POST /api/v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Slow: ' +
          'a'.repeat(400),
        500,
      ),
      waitMs: 15_000,
    },
    {
      name: 'slowloris body (1 byte / 500 ms)',
      steps: [
        post('Content-Type: application/json\r\nContent-Length: 5000\r\n'),
        ...trickle(`{"eventType":"slow","source":"s","metadata":{"pad":"${'p'.repeat(4900)}`, 500),
      ],
      waitMs: 15_000,
    },
    { name: 'request line garbage', steps: ['GARBAGE\r\n\r\n'], waitMs: 3000 },
    {
      name: 'unknown HTTP version',
      steps: ['GET /api/v1/events/test HTTP/9.9\r\nHost: x\r\n\r\n'],
      waitMs: 3000,
    },
    {
      name: 'HTTP/1.0 without Host',
      steps: ['GET /api/v1/events/test HTTP/1.0\r\n\r\n'],
      waitMs: 3000,
    },
    {
      name: 'header line without colon',
      steps: ['GET /api/v1/events/test HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n'],
      waitMs: 3000,
    },
    {
      name: '64 KiB header value',
      steps: [`GET /api/v1/events/test HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(65536)}\r\n\r\n`],
      waitMs: 3000,
    },
    {
      name: '300 headers',
      steps: [
        `GET /api/v1/events/test HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 300 }, (_, i) => `X-H${i}: v\r\n`).join('')}\r\n`,
      ],
      waitMs: 3000,
    },
    {
      name: 'NUL and 0xff bytes in the path',
      steps: [
        Buffer.concat([
          Buffer.from('GET /api/v1/events/type/a'),
          Buffer.from([0, 0xff]),
          Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n'),
        ]),
      ],
      waitMs: 3000,
    },
    {
      name: 'raw UTF-8 in the path',
      steps: [
        Buffer.from(
          `GET /api/v1/events/type/é✓😀 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_ADMIN_KEY}\r\n\r\n`,
          'utf8',
        ),
      ],
      waitMs: 3000,
    },
    {
      name: 'absolute-form target',
      steps: ['GET http://127.0.0.1/api/v1/events/test HTTP/1.1\r\nHost: x\r\n\r\n'],
      waitMs: 3000,
    },
    {
      name: 'Content-Length: -1',
      steps: [post('Content-Type: application/json\r\nContent-Length: -1\r\n', event)],
      waitMs: 3000,
    },
    {
      name: 'Content-Length: abc',
      steps: [post('Content-Type: application/json\r\nContent-Length: abc\r\n', event)],
      waitMs: 3000,
    },
    {
      name: 'Content-Length: 99999999999999999999',
      steps: [
        post('Content-Type: application/json\r\nContent-Length: 99999999999999999999\r\n', event),
      ],
      waitMs: 3000,
    },
    {
      name: 'two different Content-Lengths',
      steps: [
        post(
          `Content-Type: application/json\r\nContent-Length: ${event.length}\r\nContent-Length: 5\r\n`,
          event,
        ),
      ],
      waitMs: 3000,
    },
    {
      name: 'chunked body',
      steps: [
        post(
          'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n',
          `${event.length.toString(16)}\r\n${event}\r\n0\r\n\r\n`,
        ),
      ],
      waitMs: 3000,
    },
    {
      name: 'chunked, bad chunk size',
      steps: [
        post(
          'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n',
          `zz\r\n${event}\r\n0\r\n\r\n`,
        ),
      ],
      waitMs: 3000,
    },
    {
      name: 'chunked and Content-Length (smuggling)',
      steps: [
        post(
          `Content-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n`,
          `${event.length.toString(16)}\r\n${event}\r\n0\r\n\r\nGET /api/v1/events/test HTTP/1.1\r\nHost: x\r\n\r\n`,
        ),
      ],
      waitMs: 3000,
    },
    {
      name: 'body longer than Content-Length',
      steps: [
        post('Content-Type: application/json\r\nContent-Length: 10\r\n', `${event}GARBAGE\r\n\r\n`),
      ],
      waitMs: 3000,
    },
    {
      name: 'Content-Length over MAX_BODY_BYTES, then a GET',
      steps: [
        post('Content-Type: application/json\r\nContent-Length: 2000000\r\n', '{"eventType":'),
        'GET /api/v1/events/test HTTP/1.1\r\nHost: x\r\n\r\n',
      ],
      waitMs: 3000,
    },
    {
      name: 'two pipelined GETs',
      steps: [
        'GET /api/v1/events/test HTTP/1.1\r\nHost: x\r\n\r\nGET /api/v1/events/health HTTP/1.1\r\nHost: x\r\n\r\n',
      ],
      waitMs: 3000,
    },
    {
      name: 'Expect: 100-continue',
      steps: [
        post(
          `Content-Type: application/json\r\nContent-Length: ${event.length}\r\nExpect: 100-continue\r\n`,
        ),
        { pauseMs: 200 },
        event,
      ],
      waitMs: 3000,
    },
    {
      name: 'WebSocket upgrade on an HTTP route',
      steps: [
        `GET /api/v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_ADMIN_KEY}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      ],
      waitMs: 3000,
    },
    {
      name: 'WebSocket upgrade without a key',
      steps: [
        'GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n',
      ],
      waitMs: 3000,
    },
    { name: 'connect, send nothing', steps: [], waitMs: 15_000 },
  ];
}

/** Runs every case (in parallel) and checks that the service still answers health meanwhile. */
export async function runRawCases(
  port: number,
  baseUrl: string,
  slowMs: number,
): Promise<{ results: RawResult[]; healthMaxMs: number }> {
  const cases = rawCases(slowMs);
  let healthMaxMs = 0;
  let running = true;
  const watcher = (async () => {
    while (running) {
      const probe = await probeHealth(baseUrl, 5_000);
      healthMaxMs = Math.max(healthMaxMs, probe.ms);
      await sleep(250);
    }
  })();
  const results = await Promise.all(
    cases.map(async (c): Promise<RawResult> => {
      const { data, closedAfterMs } = await exchange(port, c.steps, c.waitMs);
      const answers = parseResponses(data);
      const problems: string[] = [];
      for (const answer of answers) {
        // uWS 20.57's own refusal of what is not HTTP/1.1 (a version it does not speak, HTTP/1.0
        // included, a request line it cannot parse): a protocol answer, before any route runs.
        // 20.30 closed those connections without an answer.
        if (answer.status === 505 && answer.byServer) continue;
        if (answer.status >= 500) problems.push(`answered ${answer.status}`);
        else if (answer.status >= 400 && !answer.byServer) {
          problems.push(
            ...problemsOf('POST', {
              status: answer.status,
              headers: {
                'content-type': answer.headers['content-type'],
                ...(answer.headers.allow === undefined ? {} : { allow: answer.headers.allow }),
              },
              body: answer.body,
              ms: 0,
            }),
          );
        }
      }
      return { name: c.name, answers, closedAfterMs, problems };
    }),
  );
  running = false;
  await watcher;
  return { results, healthMaxMs };
}

/** Many connections trickling headers at once, while a normal client measures health latency. */
export async function runSlowloris(
  port: number,
  baseUrl: string,
  connections: number,
  seconds: number,
): Promise<{ open: number; closedByServer: number; healthMaxMs: number; healthFailures: number }> {
  const sockets = Array.from({ length: connections }, () => {
    const s = net.connect(port, '127.0.0.1');
    s.on('error', () => {});
    return s;
  });
  let closedByServer = 0;
  for (const s of sockets) s.on('close', () => closedByServer++);
  const header = 'GET /api/v1/events HTTP/1.1\r\nHost: x\r\nX-Slow: ';
  let healthMaxMs = 0;
  let healthFailures = 0;
  const end = Date.now() + seconds * 1000;
  let i = 0;
  while (Date.now() < end) {
    for (const s of sockets)
      if (!s.destroyed) s.write(i < header.length ? (header[i] as string) : 'a');
    i++;
    const probe = await probeHealth(baseUrl, 5_000);
    healthMaxMs = Math.max(healthMaxMs, probe.ms);
    if (probe.status !== 200) healthFailures++;
    await sleep(1000);
  }
  const open = sockets.filter((s) => !s.destroyed).length;
  for (const s of sockets) s.destroy();
  return { open, closedByServer, healthMaxMs, healthFailures };
}
