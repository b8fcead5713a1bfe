/**
 * Child process (forked by stomp-subscribers.ts): N STOMP 1.2 sessions over raw-websocket.ts, each
 * subscribed to /topic/metrics, timestamping every MESSAGE. A tick is identified by its content.
 */
import { childSide } from './load-child.ts';
import { openRawWebSocket, type MessageView, type RawWebSocket } from './raw-websocket.ts';
import { STOMP_KEY_HEADERS } from './client-key.ts';
import type {
  SubscribersIn,
  SubscribersOptions,
  SubscribersOut,
  TickSpread,
} from './stomp-subscribers.ts';

const { options, post } = childSide<SubscribersOptions, SubscribersOut>();

const frame = (command: string, headers: Record<string, string>): string =>
  `${command}\n${Object.entries(headers)
    .map(([k, v]) => `${k}:${v}\n`)
    .join('')}\n\0`;

const CONNECT = frame('CONNECT', {
  'accept-version': '1.2',
  host: 'vigil',
  'heart-beat': '0,0',
  ...STOMP_KEY_HEADERS,
});
const SUBSCRIBE = frame('SUBSCRIBE', { id: 'metrics', destination: '/topic/metrics' });
const UNSUBSCRIBE = frame('UNSUBSCRIBE', { id: 'metrics' });
const NEWLINE = 0x0a;
const HEADER_END = Buffer.from('\n\n');
/**
 * The message-id is per session (`<session>-<seq>`), so it cannot name a tick across sessions;
 * the snapshot can: its head (summary) and its tail (throughput.avg, which moves every second while
 * there are events in the last hour, then timeWindows and topUsers) with its length. Equal content
 * in consecutive ticks is told apart by time: ticks are a broadcast period apart.
 */
const HEAD_BYTES = 240;
const TAIL_BYTES = 1500;
const TICK_GAP_MS = 400;
/** Kept of each message: its STOMP headers with the body's head, and the body's tail with the NUL. */
const PREFIX_BYTES = 4096;
const SUFFIX_BYTES = TAIL_BYTES + 1;

const now = (): number => performance.timeOrigin + performance.now();

let recording = false;
let windowStart = 0;
let cpuAtStart = process.cpuUsage();
const arrivalSession: number[] = [];
const arrivalAt: number[] = [];
const arrivalKey: number[] = [];
const keyIds = new Map<string, number>();
const keyBytes: number[] = [];
let errorFrames = 0;
/** The `message` header of the last ERROR frame (a refused key's reason), for failures. */
let lastError = '';
let closes: Record<string, number> = {};
const sockets: RawWebSocket[] = [];
/** Sessions subscribed and not closed. */
const live = new Set<number>();
/** After a `subscribe` command: the live sessions whose snapshot (sent at once) is still due. */
let resubscribing: Set<number> | null = null;

function resubscribed(session: number): void {
  resubscribing?.delete(session);
  reportResubscribed();
}

function reportResubscribed(): void {
  if (resubscribing?.size !== 0) return;
  resubscribing = null;
  post({ type: 'subscribed' });
}

function onFrame(session: number, message: MessageView, subscribed: () => void): void {
  const at = now();
  const { prefix, suffix, length } = message;
  const commandEnd = prefix.indexOf(NEWLINE);
  const command = prefix.toString('latin1', 0, commandEnd);
  if (command === 'ERROR') {
    errorFrames++;
    lastError = /\nmessage:([^\n]*)/.exec(prefix.toString('utf8'))?.[1] ?? lastError;
    return;
  }
  if (command !== 'MESSAGE') return;
  subscribed();
  resubscribed(session);
  if (!recording) return;
  const headerEnd = prefix.indexOf(HEADER_END);
  if (headerEnd < 0) {
    errorFrames++; // headers longer than PREFIX_BYTES: not a frame this server sends
    return;
  }
  const bodyStart = headerEnd + HEADER_END.length;
  const bodyEnd = length - 1; // the NUL
  const bodyBytes = bodyEnd - bodyStart;
  const headEnd = Math.min(prefix.length, bodyStart + HEAD_BYTES, bodyEnd);
  const tailStart = suffix.length - 1 - Math.min(TAIL_BYTES, bodyBytes);
  const key =
    `${bodyBytes}:${prefix.toString('latin1', bodyStart, headEnd)}` +
    `:${suffix.toString('latin1', tailStart, suffix.length - 1)}`;
  let id = keyIds.get(key);
  if (id === undefined) {
    id = keyBytes.length;
    keyIds.set(key, id);
    keyBytes.push(bodyBytes);
  }
  arrivalSession.push(session);
  arrivalAt.push(at);
  arrivalKey.push(id);
}

/** Opens one session; resolves once its first MESSAGE (the current snapshot) has arrived. */
function openSession(session: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let done = false;
    const timer = setTimeout(
      () => fail(new Error(`session ${session}: no snapshot in 30 s`)),
      30_000,
    );
    function fail(error: Error): void {
      if (done) return;
      done = true;
      clearTimeout(timer);
      reject(error);
    }
    const subscribed = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      live.add(session);
      resolve();
    };
    const socket = openRawWebSocket({
      url: options.url,
      protocol: 'v12.stomp',
      prefixBytes: PREFIX_BYTES,
      suffixBytes: SUFFIX_BYTES,
      onOpen: () => {
        socket.sendText(CONNECT);
        socket.sendText(SUBSCRIBE);
      },
      onMessage: (message) => onFrame(session, message, subscribed),
      onError: (error) => fail(error),
      onClose: (code) => {
        live.delete(session);
        resubscribed(session);
        if (recording) closes[code] = (closes[code] ?? 0) + 1;
        const reason = lastError === '' ? '' : ` (ERROR frame: ${lastError})`;
        fail(new Error(`session ${session}: closed with ${code} before subscribing${reason}`));
      },
    });
    sockets.push(socket);
  });
}

async function openAll(): Promise<void> {
  let next = 0;
  const opener = async (): Promise<void> => {
    for (let session = next++; session < options.sessions; session = next++) {
      await openSession(session);
    }
  };
  await Promise.all(Array.from({ length: options.openConcurrency }, opener));
}

function ticksSince(from: number, to: number): TickSpread[] {
  const byKey = new Map<number, number[]>();
  for (let i = 0; i < arrivalAt.length; i++) {
    const key = arrivalKey[i] as number;
    const list = byKey.get(key) ?? [];
    list.push(i);
    byKey.set(key, list);
  }
  const ticks: TickSpread[] = [];
  for (const [key, indexes] of byKey) {
    indexes.sort((a, b) => (arrivalAt[a] as number) - (arrivalAt[b] as number));
    let cluster: number[] = [];
    const flush = (): void => {
      if (cluster.length === 0) return;
      const first = arrivalAt[cluster[0] as number] as number;
      const last = arrivalAt[cluster.at(-1) as number] as number;
      if (first >= from && first <= to) {
        ticks.push({
          first,
          spreadMs: last - first,
          receivers: new Set(cluster.map((i) => arrivalSession[i])).size,
          bytes: keyBytes[key] as number,
        });
      }
      cluster = [];
    };
    let previous = -Infinity;
    for (const i of indexes) {
      const at = arrivalAt[i] as number;
      if (at - previous > TICK_GAP_MS) flush();
      cluster.push(i);
      previous = at;
    }
    flush();
  }
  return ticks.sort((a, b) => a.first - b.first);
}

process.on('message', (raw: unknown) => {
  const message = raw as SubscribersIn;
  switch (message.type) {
    case 'window-start':
      arrivalSession.length = 0;
      arrivalAt.length = 0;
      arrivalKey.length = 0;
      keyIds.clear();
      keyBytes.length = 0;
      errorFrames = 0;
      closes = {};
      windowStart = now();
      cpuAtStart = process.cpuUsage();
      recording = true;
      return;
    case 'unsubscribe':
      for (const socket of sockets) socket.sendText(UNSUBSCRIBE);
      return;
    case 'subscribe':
      resubscribing = new Set(live);
      for (const socket of sockets) socket.sendText(SUBSCRIBE);
      reportResubscribed();
      return;
    case 'window-end': {
      const windowEnd = now();
      const cpu = process.cpuUsage(cpuAtStart);
      setTimeout(() => {
        recording = false;
        post({
          type: 'window',
          ticks: ticksSince(windowStart, windowEnd),
          openSessions: live.size,
          closes,
          errorFrames,
          cpuPercent: (100 * (cpu.user + cpu.system)) / 1000 / (windowEnd - windowStart),
          windowMs: windowEnd - windowStart,
        });
      }, message.graceMs);
      return;
    }
    case 'close': {
      for (const socket of sockets) socket.close(1000);
      const started = Date.now();
      const wait = setInterval(() => {
        const left = sockets.filter((s) => !s.closed).length;
        if (left > 0 && Date.now() - started < 5000) return;
        clearInterval(wait);
        for (const socket of sockets) socket.terminate();
        post({ type: 'closed' });
        process.disconnect();
      }, 50);
      return;
    }
  }
});

const opening = now();
openAll().then(
  () => post({ type: 'ready', sessions: live.size, openMs: now() - opening }),
  (error: unknown) => {
    process.stderr.write(
      `stomp subscribers: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
    process.disconnect();
    for (const socket of sockets) socket.terminate();
  },
);
