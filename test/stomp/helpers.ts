// Test support for the STOMP endpoint: a real uWS app on port 0, raw `ws` and @stomp/stompjs clients.
// Runs in the tap test process (main thread).
import { nativeUws } from '../../src/http/uws.ts';
import WebSocket from 'ws';
import { Client } from '@stomp/stompjs';
import type { IFrame } from '@stomp/stompjs';
import { attachStomp } from '../../src/stomp/endpoint.ts';
import type { StompEndpoint, StompEndpointOptions } from '../../src/stomp/endpoint.ts';
import { FrameDecoder } from '../../src/stomp/frame.ts';
import { TEST_ADMIN_KEY } from '../support/keys.ts';

export interface LogLine {
  level: 'info' | 'warn';
  message: string;
  fields: Record<string, unknown>;
}

export interface TestServer {
  readonly port: number;
  readonly endpoint: StompEndpoint;
  readonly logs: LogLine[];
  /** Replaced by tests that need a snapshot. */
  snapshot: string | null;
  url(path?: string): string;
  stop(): void;
}

export function startServer(overrides: Partial<StompEndpointOptions> = {}): Promise<TestServer> {
  const app = nativeUws().App();
  const logs: LogLine[] = [];
  const state: { snapshot: string | null } = { snapshot: null };
  const endpoint = attachStomp(app, {
    serverVersion: '0.0.0-test',
    log: {
      info: (fields, message) => logs.push({ level: 'info', message, fields }),
      warn: (fields, message) => logs.push({ level: 'warn', message, fields }),
    },
    currentMetricsJson: () => state.snapshot,
    ...overrides,
  });
  return new Promise((resolve, reject) => {
    app.listen(0, (token) => {
      if (token === false) {
        reject(new Error('listen failed'));
        return;
      }
      const port = nativeUws().us_socket_local_port(token);
      resolve({
        port,
        endpoint,
        logs,
        get snapshot() {
          return state.snapshot;
        },
        set snapshot(value: string | null) {
          state.snapshot = value;
        },
        url: (path = '/ws') => `ws://127.0.0.1:${port}${path}`,
        stop: () => {
          endpoint.closeAll();
          nativeUws().us_listen_socket_close(token);
        },
      });
    });
  });
}

export interface ServerFrame {
  command: string;
  headers: Record<string, string>;
  body: string;
}

/** A raw `ws` client that decodes what the server sends into frames (EOLs count as heart-beats). */
export class RawClient {
  readonly ws: WebSocket;
  readonly frames: ServerFrame[] = [];
  heartbeats = 0;
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly decoder = new FrameDecoder(1 << 24);
  private waiters: Array<() => void> = [];

  constructor(
    url: string,
    protocols: string[] = ['v12.stomp'],
    options: WebSocket.ClientOptions = {},
  ) {
    this.ws = new WebSocket(url, protocols, options);
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
    this.closed = new Promise((resolve) => {
      this.ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    });
    this.ws.on('message', (data: Buffer) => {
      if (data.length === 1 && data[0] === 0x0a) this.heartbeats += 1;
      const { frames, error } = this.decoder.push(data);
      if (error !== null) throw new Error(`server sent a bad frame: ${error.message}`);
      for (const f of frames) {
        this.frames.push({
          command: f.command,
          headers: Object.fromEntries(f.headers),
          body: Buffer.from(f.body).toString('utf8'),
        });
      }
      this.wake();
    });
    this.ws.on('close', () => this.wake());
  }

  send(wire: string | Uint8Array): void {
    this.ws.send(wire);
  }

  /** Resolves once `count` frames have arrived (or the socket closed). */
  async waitFrames(count: number): Promise<ServerFrame[]> {
    while (this.frames.length < count && this.ws.readyState !== WebSocket.CLOSED) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    return this.frames;
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/**
 * Connects a raw client and completes the CONNECT exchange, with the test admin key as passcode
 * (as a dashboard holds its key; an endpoint without authentication ignores it).
 */
export async function connectRaw(
  url: string,
  protocols?: string[],
  passcode: string = TEST_ADMIN_KEY,
): Promise<RawClient> {
  const c = new RawClient(url, protocols);
  await c.opened;
  c.send(`CONNECT\naccept-version:1.2\nheart-beat:0,0\npasscode:${passcode}\n\n\0`);
  await c.waitFrames(1);
  if (c.frames[0]?.command !== 'CONNECTED') throw new Error('no CONNECTED');
  return c;
}

/** A @stomp/stompjs client over `ws`, connected; heart-beats off unless configured. */
export function connectStomp(
  url: string,
  configure: (client: Client) => void = () => {},
): Promise<{ client: Client; connected: IFrame }> {
  const client = new Client({
    webSocketFactory: () => new WebSocket(url, ['v12.stomp']),
    reconnectDelay: 0,
    heartbeatIncoming: 0,
    heartbeatOutgoing: 0,
    connectHeaders: { passcode: TEST_ADMIN_KEY },
    debug: () => {},
  });
  configure(client);
  return new Promise((resolve, reject) => {
    client.onConnect = (connected) => resolve({ client, connected });
    client.onStompError = (frame) => reject(new Error(frame.headers.message));
    client.onWebSocketError = () => reject(new Error('websocket error'));
    client.activate();
  });
}

/** Polls a condition on the event loop (no timing assumptions beyond the tap timeout). */
export async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
