// Test support: @stomp/stompjs over the real sockjs-client (Node build: faye-websocket and its own
// http XHR driver), one SockJS transport forced, with a key as the STOMP passcode.
import SockJS from 'sockjs-client';
import { Client, type IFrame } from '@stomp/stompjs';
import { TEST_ADMIN_KEY } from '../support/keys.ts';

export const SOCKJS_TRANSPORTS = ['websocket', 'xhr-streaming', 'xhr-polling'] as const;
export type SockJsTransport = (typeof SOCKJS_TRANSPORTS)[number];

export interface SockJsStomp {
  readonly client: Client;
  readonly connected: IFrame;
  /** The transport sockjs-client ended up on (it names it on the socket once open). */
  readonly transport: string;
}

/**
 * Connects a STOMP client over SockJS at `base` (e.g. http://127.0.0.1:8080/ws); rejects with the
 * ERROR frame's message, or the SockJS close code and reason when no STOMP frame came.
 */
export function connectSockJsStomp(
  base: string,
  transport: SockJsTransport,
  passcode: string = TEST_ADMIN_KEY,
): Promise<SockJsStomp> {
  let socket: WebSocket | null = null;
  const client = new Client({
    webSocketFactory: () => {
      socket = new SockJS(base, null, { transports: transport, timeout: 5000 });
      return socket;
    },
    reconnectDelay: 0,
    heartbeatIncoming: 0,
    heartbeatOutgoing: 0,
    connectHeaders: { passcode },
    debug: () => {},
  });
  return new Promise((resolve, reject) => {
    client.onConnect = (connected) => {
      const used = (socket as unknown as { transport?: string } | null)?.transport ?? '';
      resolve({ client, connected, transport: used });
    };
    client.onStompError = (frame) => {
      void client.deactivate();
      reject(new Error(`ERROR ${frame.headers.message ?? ''}`));
    };
    client.onWebSocketClose = (event: { code: number; reason: string }) => {
      void client.deactivate();
      reject(new Error(`closed ${event.code} ${event.reason}`));
    };
    client.activate();
  });
}
