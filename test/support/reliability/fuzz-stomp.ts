/**
 * STOMP fuzzing over `ws`: sessions of generated frames (valid, mutated and garbage commands,
 * hostile headers and escapes, wrong content-lengths, missing NULs, frames split across messages,
 * invalid UTF-8). Every answer must be a well-formed server frame and an ERROR must end the session.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import WebSocket from 'ws';
import { TEST_ADMIN_KEY } from '../keys.ts';

interface GeneratedFrame {
  readonly bytes: Buffer;
}

export interface StompSessionPlan {
  readonly protocols: readonly string[];
  readonly messages: readonly { readonly data: Buffer; readonly binary: boolean }[];
}

const COMMANDS = [
  'CONNECT',
  'STOMP',
  'SUBSCRIBE',
  'UNSUBSCRIBE',
  'SEND',
  'ACK',
  'NACK',
  'BEGIN',
  'COMMIT',
  'ABORT',
  'DISCONNECT',
  'connect',
  'MESSAGE',
  'ERROR',
  'CONNECTED',
  '',
];

const headerValue = fc.oneof(
  fc.constantFrom(
    '/topic/metrics',
    '/topic/alerts',
    '/topic/nope',
    '1.2',
    '1.0,1.1,1.2',
    '2.0',
    '0,0',
    '10000,10000',
    '-1,5',
    '1,1',
    'abc',
    '',
    'a:b',
    '\\c',
    '\\n',
    '\\r',
    '\\t',
    '\\\\',
    '\\',
    'x'.repeat(300),
  ),
  fc.string({ maxLength: 20 }),
  fc.integer({ min: -5, max: 2_000_000 }).map(String),
);

const headerName = fc.oneof(
  fc.constantFrom(
    'accept-version',
    'host',
    'heart-beat',
    'destination',
    'id',
    'receipt',
    'content-length',
    'content-type',
    'ack',
    'transaction',
    'login',
    'passcode',
  ),
  fc.string({ maxLength: 10 }),
);

const frame: fc.Arbitrary<GeneratedFrame> = fc
  .record({
    command: fc.oneof(fc.constantFrom(...COMMANDS), fc.string({ maxLength: 12 })),
    headers: fc.array(fc.tuple(headerName, headerValue), { maxLength: 6 }),
    body: fc.oneof(
      fc.constant(''),
      fc.string({ maxLength: 60 }),
      fc.integer({ min: 1000, max: 70_000 }).map((n) => 'b'.repeat(n)),
    ),
    eol: fc.constantFrom('\n', '\r\n'),
    terminator: fc.constantFrom('\0', '\0', '\0', '', '\0\0', '\0\n\n'),
    leading: fc.constantFrom('', '', '\n', '\r\n\n'),
  })
  .map((f) => ({
    bytes: Buffer.from(
      `${f.leading}${f.command}${f.eol}${f.headers.map(([k, v]) => `${k}:${v}${f.eol}`).join('')}${f.eol}${f.body}${f.terminator}`,
      'utf8',
    ),
  }));

const connectFrame: fc.Arbitrary<GeneratedFrame> = fc
  .record({
    version: fc.constantFrom('1.2', '1.1', '1.0', '1.0,1.1,1.2', '3.0'),
    heartbeat: fc.constantFrom('0,0', '1000,1000', 'x', '999999999,0'),
  })
  .map(({ version, heartbeat }) => ({
    bytes: Buffer.from(
      `CONNECT\naccept-version:${version}\nhost:vigil\nheart-beat:${heartbeat}\npasscode:${TEST_ADMIN_KEY}\n\n\0`,
    ),
  }));

/** A session: maybe a valid CONNECT first, then frames packed into messages in random cuts. */
export const sessionArbitrary: fc.Arbitrary<StompSessionPlan> = fc
  .record({
    protocols: fc.constantFrom(
      ['v12.stomp'],
      ['v11.stomp'],
      ['v10.stomp'],
      [],
      ['nonsense'],
      ['v12.stomp', 'v10.stomp'],
    ),
    connect: fc.option(connectFrame, { nil: null }),
    frames: fc.array(frame, { minLength: 1, maxLength: 6 }),
    cuts: fc.array(fc.nat(), { maxLength: 3 }),
    binary: fc.boolean(),
    badUtf8: fc.boolean(),
  })
  .map((s) => {
    let bytes = Buffer.concat([
      ...(s.connect === null ? [] : [s.connect.bytes]),
      ...s.frames.map((f) => f.bytes),
    ]);
    if (s.badUtf8)
      bytes = Buffer.concat([
        bytes.subarray(0, bytes.length >> 1),
        Buffer.from([0xc3, 0x28, 0xff]),
        bytes.subarray(bytes.length >> 1),
      ]);
    const points = [...new Set(s.cuts.map((c) => c % Math.max(1, bytes.length)))].sort(
      (a, b) => a - b,
    );
    const messages: { data: Buffer; binary: boolean }[] = [];
    let from = 0;
    for (const p of [...points, bytes.length]) {
      if (p > from) messages.push({ data: bytes.subarray(from, p), binary: s.binary });
      from = p;
    }
    return { protocols: s.protocols, messages };
  });

const SERVER_COMMANDS = new Set(['CONNECTED', 'MESSAGE', 'RECEIPT', 'ERROR']);

export interface StompFuzzStats {
  readonly sessions: number;
  readonly framesReceived: ReadonlyMap<string, number>;
  readonly closeCodes: ReadonlyMap<number, number>;
  readonly failures: readonly { seed: number; problem: string }[];
}

/** Plays one session; returns what was wrong with the server's side of it. */
async function playSession(
  url: string,
  plan: StompSessionPlan,
  received: Map<string, number>,
  closes: Map<number, number>,
): Promise<string[]> {
  const problems: string[] = [];
  const ws = new WebSocket(url, [...plan.protocols], { maxPayload: 64 * 1024 * 1024 });
  let closedAt: number | null = null;
  let errorAt: number | null = null;
  let pending = '';
  ws.on('error', () => {});
  ws.on('message', (data: Buffer) => {
    pending += data.toString('utf8');
    const parts = pending.split('\0');
    pending = parts.pop() ?? '';
    for (const part of parts) {
      const text = part.replace(/^[\r\n]+/, '');
      if (text === '') continue;
      const command = text.split(/\r?\n/, 1)[0] ?? '';
      received.set(command, (received.get(command) ?? 0) + 1);
      if (!SERVER_COMMANDS.has(command))
        problems.push(`server sent an unknown frame: ${JSON.stringify(text.slice(0, 60))}`);
      if (command === 'ERROR') {
        errorAt ??= Date.now();
        if (!/\nmessage:/.test(text)) problems.push('ERROR frame without a message header');
      }
    }
  });
  const closed = new Promise<void>((resolve) =>
    ws.on('close', (code) => {
      closedAt = Date.now();
      closes.set(code, (closes.get(code) ?? 0) + 1);
      resolve();
    }),
  );
  const opened = await Promise.race([
    new Promise<boolean>((resolve) => {
      ws.once('open', () => resolve(true));
      ws.once('error', () => resolve(false));
    }),
    sleep(5000, false, { ref: false }),
  ]);
  if (!opened) {
    ws.terminate();
    // A client offering only subprotocols we do not speak is answered without one, and `ws`
    // (rightly, RFC 6455 4.1) gives up: not the server's fault.
    const ours = plan.protocols.some((p) => /^v1[012]\.stomp$/.test(p));
    return ours || plan.protocols.length === 0 ? ['could not open the WebSocket'] : [];
  }
  for (const message of plan.messages) {
    if (ws.readyState !== WebSocket.OPEN) break;
    ws.send(message.data, { binary: message.binary });
    await sleep(2);
  }
  // An ERROR frame must be followed by the close; otherwise we end the session ourselves.
  await Promise.race([closed, sleep(errorAt === null ? 300 : 3000, null, { ref: false })]);
  if (errorAt !== null && closedAt === null) {
    await Promise.race([closed, sleep(3000, null, { ref: false })]);
    if (closedAt === null) problems.push('ERROR frame, but the connection stayed open');
  }
  if (closedAt === null) {
    ws.close();
    await Promise.race([closed, sleep(3000, null, { ref: false })]);
    if (closedAt === null) ws.terminate();
  }
  return problems;
}

export async function runStompFuzz(options: {
  readonly wsUrl: string;
  readonly seeds: readonly number[];
  readonly concurrency: number;
}): Promise<StompFuzzStats> {
  const received = new Map<string, number>();
  const closes = new Map<number, number>();
  const failures: { seed: number; problem: string }[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < options.seeds.length) {
      const seed = options.seeds[next++] as number;
      const [plan] = fc.sample(sessionArbitrary, { seed, numRuns: 1 });
      if (plan === undefined) continue;
      for (const problem of await playSession(options.wsUrl, plan, received, closes))
        failures.push({ seed, problem });
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return { sessions: options.seeds.length, framesReceived: received, closeCodes: closes, failures };
}
