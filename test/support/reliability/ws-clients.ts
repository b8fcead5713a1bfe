/**
 * WebSocket clients for the STOMP endpoint: a well-behaved subscriber that timestamps every MESSAGE,
 * and a raw client over node:net that can break the rules (never read, unmasked or endless frames,
 * lengths it never sends) so the service's limits can be observed from outside.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import WebSocket from 'ws';
import { TEST_ADMIN_KEY } from '../keys.ts';

export const stompFrame = (
  command: string,
  headers: Record<string, string> = {},
  body = '',
): string =>
  `${command}\n${Object.entries(headers)
    .map(([k, v]) => `${k}:${v}\n`)
    .join('')}\n${body}\0`;

export const CONNECT = stompFrame('CONNECT', {
  'accept-version': '1.2',
  host: 'vigil',
  'heart-beat': '0,0',
  passcode: TEST_ADMIN_KEY,
});

export interface Closed {
  readonly code: number;
  readonly at: number;
}

export interface Subscriber {
  /** Epoch ms of every MESSAGE received. */
  readonly messageTimes: readonly number[];
  /** Frames received by command. */
  readonly commands: ReadonlyMap<string, number>;
  closed(): Closed | null;
  close(): Promise<void>;
}

/** A STOMP 1.2 client that reads everything: CONNECT, SUBSCRIBE to `destinations`, count. */
export function subscribe(
  url: string,
  destinations: readonly string[] = ['/topic/metrics'],
): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, ['v12.stomp']);
    const messageTimes: number[] = [];
    const commands = new Map<string, number>();
    let closed: Closed | null = null;
    let connected = false;
    ws.on('error', (error) => {
      if (!connected) reject(error);
    });
    ws.on('close', (code) => {
      closed = { code, at: Date.now() };
    });
    ws.on('open', () => ws.send(CONNECT));
    ws.on('message', (data: Buffer) => {
      // One WebSocket message may hold several frames, each ending with NUL.
      for (const frame of data.toString('utf8').split('\0')) {
        const command = frame.replace(/^\n+/, '').split('\n', 1)[0] ?? '';
        if (command === '') continue;
        commands.set(command, (commands.get(command) ?? 0) + 1);
        if (command === 'MESSAGE') messageTimes.push(Date.now());
        if (command === 'CONNECTED' && !connected) {
          connected = true;
          destinations.forEach((destination, i) =>
            ws.send(stompFrame('SUBSCRIBE', { id: `sub-${i}`, destination })),
          );
          resolve({
            messageTimes,
            commands,
            closed: () => closed,
            close: () =>
              new Promise<void>((done) => {
                if (closed !== null || ws.readyState === WebSocket.CLOSED) {
                  done();
                  return;
                }
                ws.once('close', () => done());
                ws.close();
              }),
          });
        }
      }
    });
  });
}

/** Messages per whole second in [from, to), and the longest gap between messages in it. */
export function cadence(
  times: readonly number[],
  from: number,
  to: number,
): { perSecond: number[]; maxGapMs: number } {
  const perSecond: number[] = [];
  for (let s = from; s + 1000 <= to; s += 1000) {
    perSecond.push(times.filter((t) => t >= s && t < s + 1000).length);
  }
  const inside = times.filter((t) => t >= from && t < to);
  let maxGapMs = 0;
  for (let i = 1; i < inside.length; i++) {
    maxGapMs = Math.max(maxGapMs, (inside[i] as number) - (inside[i - 1] as number));
  }
  return { perSecond, maxGapMs };
}

export interface RawWebSocket {
  readonly socket: net.Socket;
  /** A masked frame (as a client must send); `fin` false starts or continues a fragmented message. */
  frame(
    opcode: number,
    payload: Uint8Array | string,
    options?: { fin?: boolean; masked?: boolean },
  ): boolean;
  /** Bytes as they are, no framing. */
  raw(bytes: Uint8Array): boolean;
  /** Bytes received after the handshake. */
  received(): number;
  /** When the server ended the connection (null while open). */
  closed(): number | null;
  readonly whenClosed: Promise<number>;
  destroy(): void;
}

const header = (opcode: number, length: number, fin: boolean, masked: boolean): Buffer => {
  const first = (fin ? 0x80 : 0) | opcode;
  const mask = masked ? 0x80 : 0;
  if (length < 126) return Buffer.from([first, mask | length]);
  if (length < 65536) {
    const b = Buffer.alloc(4);
    b[0] = first;
    b[1] = mask | 126;
    b.writeUInt16BE(length, 2);
    return b;
  }
  const b = Buffer.alloc(10);
  b[0] = first;
  b[1] = mask | 127;
  b.writeBigUInt64BE(BigInt(length), 2);
  return b;
};

/** Frame header only, claiming `length` bytes of payload (which may never come). */
export const frameHeader = (opcode: number, length: number, fin = true): Buffer =>
  Buffer.concat([header(opcode, length, fin, true), randomBytes(4)]);

/** Opens a WebSocket by hand (HTTP upgrade over a plain socket); resolves after the 101. */
export function rawWebSocket(
  port: number,
  path = '/ws',
  protocol = 'v12.stomp',
): Promise<RawWebSocket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let handshake = Buffer.alloc(0);
    let upgraded = false;
    let received = 0;
    let closedAt: number | null = null;
    let onClosed: (at: number) => void = () => {};
    const whenClosed = new Promise<number>((done) => {
      onClosed = done;
    });
    const markClosed = (): void => {
      if (closedAt !== null) return;
      closedAt = Date.now();
      onClosed(closedAt);
    };
    socket.on('error', (error) => {
      if (!upgraded) reject(error);
      markClosed();
    });
    socket.on('close', markClosed);
    socket.on('end', markClosed);
    socket.on('connect', () => {
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n` +
          `Sec-WebSocket-Protocol: ${protocol}\r\n\r\n`,
      );
    });
    socket.on('data', (chunk: Buffer) => {
      if (upgraded) {
        received += chunk.length;
        return;
      }
      handshake = Buffer.concat([handshake, chunk]);
      const end = handshake.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = handshake.subarray(0, end).toString('latin1');
      if (!head.startsWith('HTTP/1.1 101')) {
        reject(new Error(`upgrade refused: ${head.split('\r\n')[0]}`));
        socket.destroy();
        return;
      }
      upgraded = true;
      received += handshake.length - end - 4;
      resolve({
        socket,
        frame: (opcode, payload, options = {}) => {
          const data =
            typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.from(payload);
          const masked = options.masked ?? true;
          const head = header(opcode, data.length, options.fin ?? true, masked);
          if (!masked) return socket.write(Buffer.concat([head, data]));
          const key = randomBytes(4);
          for (let i = 0; i < data.length; i++)
            data[i] = (data[i] as number) ^ (key[i & 3] as number);
          return socket.write(Buffer.concat([head, key, data]));
        },
        raw: (bytes) => socket.write(bytes),
        received: () => received,
        closed: () => closedAt,
        whenClosed,
        destroy: () => socket.destroy(),
      });
    });
  });
}

export const TEXT = 0x1;
export const BINARY = 0x2;
export const CONTINUATION = 0x0;
