/**
 * Slow and abusive WebSocket clients against the STOMP endpoint while well-behaved subscribers
 * count their 1 s metrics messages: each abuser must be bounded and dropped, the others unaffected.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { maxOf, minOf, rssSampler } from './probes.ts';
import type { ServerProcess } from '../service-process.ts';
import {
  CONNECT,
  CONTINUATION,
  TEXT,
  cadence,
  frameHeader,
  rawWebSocket,
  stompFrame,
  subscribe,
  type RawWebSocket,
} from './ws-clients.ts';

export interface AbuseResult {
  readonly client: string;
  /** What the client did. */
  readonly behaviour: string;
  readonly dropped: boolean;
  /** From the start of the abuse to the server closing the connection (null if it did not). */
  readonly droppedAfterMs: number | null;
  /** The server's WebSocket close code, or how the connection ended. */
  readonly how: string;
  /** Bytes the client pushed before it was dropped (or in all). */
  readonly sentBytes: number;
}

export interface WsAbuseOptions {
  /** Well-behaved subscribers counting messages. */
  readonly subscribers: number;
  /** Sockets that open and never send CONNECT (all at once). */
  readonly idleSockets: number;
  /** Give up waiting for a drop after this long. */
  readonly dropTimeoutMs: number;
}

export interface WsAbuseResult {
  readonly abusers: readonly AbuseResult[];
  /** Per well-behaved subscriber: messages per second during the abuse, and the longest gap. */
  readonly cadence: readonly {
    perSecondMin: number;
    perSecondMax: number;
    seconds: number;
    maxGapMs: number;
  }[];
  readonly subscribersClosed: number;
  readonly rssBeforeKiB: number | null;
  readonly rssMaxKiB: number | null;
  readonly rssAfterKiB: number | null;
  readonly slowClosesLogged: number;
}

const wsUrl = (proc: ServerProcess): string => `ws://127.0.0.1:${proc.port}/ws`;

/** Runs `push` until the server closes the socket or `timeoutMs` passes. */
async function until(raw: RawWebSocket, timeoutMs: number, push: () => number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let sent = 0;
  while (raw.closed() === null && Date.now() < deadline) {
    sent += push();
    await sleep(5);
  }
  return sent;
}

function outcome(
  client: string,
  behaviour: string,
  started: number,
  closedAt: number | null,
  how: string,
  sentBytes: number,
): AbuseResult {
  return {
    client,
    behaviour,
    dropped: closedAt !== null,
    droppedAfterMs: closedAt === null ? null : closedAt - started,
    how,
    sentBytes,
  };
}

/** A `ws` client that sends `messages` after CONNECTED and reports how the server closed it. */
async function wsAbuser(
  url: string,
  timeoutMs: number,
  act: (ws: WebSocket) => number,
): Promise<{ closedAt: number | null; code: string; sent: number; error: boolean }> {
  const ws = new WebSocket(url, ['v12.stomp'], { maxPayload: 64 * 1024 * 1024 });
  let closedAt: number | null = null;
  let code = 'open';
  let error = false;
  ws.on('close', (c) => {
    closedAt = Date.now();
    code = String(c);
  });
  ws.on('error', () => {});
  ws.on('message', (data: Buffer) => {
    if (data.toString('utf8').startsWith('ERROR')) error = true;
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const sent = act(ws);
  const deadline = Date.now() + timeoutMs;
  while (closedAt === null && Date.now() < deadline) await sleep(20);
  if (closedAt === null) ws.terminate();
  return { closedAt, code, sent, error };
}

export async function runWsAbuse(
  proc: ServerProcess,
  options: WsAbuseOptions,
): Promise<WsAbuseResult> {
  const url = wsUrl(proc);
  const rss = rssSampler(proc, 500);
  const subscribers = await Promise.all(
    Array.from({ length: options.subscribers }, () => subscribe(url)),
  );
  await sleep(2_000);
  const rssBeforeKiB = proc.rssKiB();
  const abuseStart = Date.now();
  const timeout = options.dropTimeoutMs;

  const neverReads = (async (): Promise<AbuseResult> => {
    // Every SUBSCRIBE to /topic/metrics is answered at once with the whole snapshot, plus a
    // RECEIPT: a client that asks and never reads makes the server buffer for it.
    const raw = await rawWebSocket(proc.port);
    raw.socket.pause();
    raw.frame(TEXT, CONNECT);
    const started = Date.now();
    let n = 0;
    const sent = await until(raw, timeout, () => {
      let frames = '';
      for (let i = 0; i < 200; i++, n++) {
        frames += stompFrame('SUBSCRIBE', {
          id: `s${n}`,
          destination: '/topic/metrics',
          receipt: `r${n}`,
        });
        frames += stompFrame('UNSUBSCRIBE', { id: `s${n}` });
      }
      raw.frame(TEXT, frames);
      return frames.length;
    });
    // Read what was buffered: the stream then ends if the server dropped us.
    raw.socket.resume();
    const closedAt = await Promise.race([raw.whenClosed, sleep(5_000, null, { ref: false })]);
    raw.destroy();
    return outcome(
      'never reads',
      'SUBSCRIBE/UNSUBSCRIBE flood with receipts, socket paused',
      started,
      closedAt,
      closedAt === null ? 'open' : 'closed by server',
      sent,
    );
  })();

  const hugeMessage = (async (): Promise<AbuseResult> => {
    const raw = await rawWebSocket(proc.port);
    raw.frame(TEXT, CONNECT);
    const started = Date.now();
    const payload = Buffer.alloc(1024 * 1024, 0x41);
    raw.frame(TEXT, payload);
    const closedAt = await Promise.race([raw.whenClosed, sleep(timeout, null, { ref: false })]);
    raw.destroy();
    return outcome(
      'huge message',
      'one 1 MiB WebSocket message',
      started,
      closedAt,
      closedAt === null ? 'open' : 'closed',
      payload.length,
    );
  })();

  const declaredHuge = (async (): Promise<AbuseResult> => {
    const raw = await rawWebSocket(proc.port);
    const started = Date.now();
    // Claims 1 TiB, then trickles.
    raw.raw(frameHeader(TEXT, 2 ** 40));
    const sent = await until(raw, timeout, () => (raw.raw(Buffer.alloc(1024, 0x42)) ? 1024 : 1024));
    raw.destroy();
    return outcome(
      'endless payload',
      'frame header declaring 1 TiB, then 1 KiB every 5 ms',
      started,
      raw.closed(),
      raw.closed() === null ? 'open' : 'closed',
      sent,
    );
  })();

  const endlessFragments = (async (): Promise<AbuseResult> => {
    const raw = await rawWebSocket(proc.port);
    raw.frame(TEXT, CONNECT);
    const started = Date.now();
    raw.frame(TEXT, 'SEND\ndestination:/topic/metrics\n\n', { fin: false });
    const chunk = Buffer.alloc(16 * 1024, 0x43);
    const sent = await until(
      raw,
      timeout,
      () => (raw.frame(CONTINUATION, chunk, { fin: false }), chunk.length),
    );
    raw.destroy();
    return outcome(
      'endless fragments',
      'a message of 16 KiB continuation frames that never ends',
      started,
      raw.closed(),
      raw.closed() === null ? 'open' : 'closed',
      sent,
    );
  })();

  const hugeFrame = (async (): Promise<AbuseResult> => {
    const started = Date.now();
    const body = 'x'.repeat(100 * 1024);
    const r = await wsAbuser(url, timeout, (ws) => {
      ws.send(CONNECT);
      ws.send(stompFrame('SEND', { destination: '/topic/metrics' }, body));
      return body.length;
    });
    return outcome(
      'huge STOMP frame',
      'one 100 KiB SEND frame after CONNECT',
      started,
      r.closedAt,
      `${r.error ? 'ERROR frame, ' : ''}close ${r.code}`,
      r.sent,
    );
  })();

  const endlessFrame = (async (): Promise<AbuseResult> => {
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    let sent = 0;
    const r = await wsAbuser(url, timeout, (ws) => {
      ws.send(CONNECT);
      ws.send('SEND\ndestination:/topic/metrics\n\n');
      const chunk = 'y'.repeat(8 * 1024);
      timer = setInterval(() => {
        if (ws.readyState !== WebSocket.OPEN) return;
        ws.send(chunk);
        sent += chunk.length;
      }, 10);
      return 0;
    });
    clearInterval(timer);
    return outcome(
      'endless STOMP frame',
      '8 KiB messages every 10 ms, never a NUL',
      started,
      r.closedAt,
      `${r.error ? 'ERROR frame, ' : ''}close ${r.code}`,
      sent,
    );
  })();

  const noConnect = (async (): Promise<AbuseResult> => {
    const started = Date.now();
    const r = await wsAbuser(url, timeout, () => 0);
    return outcome(
      'never CONNECTs',
      'WebSocket open, no STOMP frame',
      started,
      r.closedAt,
      `${r.error ? 'ERROR frame, ' : ''}close ${r.code}`,
      0,
    );
  })();

  const idle = (async (): Promise<AbuseResult> => {
    const started = Date.now();
    const sockets = await Promise.all(
      Array.from({ length: options.idleSockets }, () => rawWebSocket(proc.port)),
    );
    const closes = await Promise.all(
      sockets.map((s) => Promise.race([s.whenClosed, sleep(timeout, null, { ref: false })])),
    );
    for (const s of sockets) s.destroy();
    const open = closes.filter((c) => c === null).length;
    const last = maxOf(closes);
    return outcome(
      `${options.idleSockets} idle sockets`,
      'upgraded, never a byte sent',
      started,
      open === 0 ? last : null,
      `${options.idleSockets - open} of ${options.idleSockets} closed`,
      0,
    );
  })();

  const abusers = await Promise.all([
    neverReads,
    hugeMessage,
    declaredHuge,
    endlessFragments,
    hugeFrame,
    endlessFrame,
    noConnect,
    idle,
  ]);
  const abuseEnd = Date.now();
  await sleep(2_000);
  const rssAfterKiB = proc.rssKiB();
  const rssSamples = (await rss.stop()).map((s) => s.value);
  const subscribersClosed = subscribers.filter((s) => s.closed() !== null).length;
  const cadences = subscribers.map((s) => {
    const c = cadence(s.messageTimes, abuseStart, abuseEnd);
    return {
      perSecondMin: minOf(c.perSecond) ?? 0,
      perSecondMax: maxOf(c.perSecond) ?? 0,
      seconds: c.perSecond.length,
      maxGapMs: c.maxGapMs,
    };
  });
  await Promise.all(subscribers.map((s) => s.close()));
  return {
    abusers,
    cadence: cadences,
    subscribersClosed,
    rssBeforeKiB,
    rssMaxKiB: maxOf(rssSamples),
    rssAfterKiB,
    slowClosesLogged: proc.logged(/closing slow client/) ? 1 : 0,
  };
}
