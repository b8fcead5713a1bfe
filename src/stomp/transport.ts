/**
 * @module What carries one STOMP session's frames: a raw WebSocket, or a SockJS transport (a
 * SockJS WebSocket, or xhr-streaming / xhr-polling). The session and the broadcaster see only this,
 * so every transport gets the same keys, bounds and fan-out.
 */
export interface StompTransport {
  /** One whole STOMP frame. As uWS: 1 sent, 0 buffered (backpressure), 2 dropped. */
  send(frame: Uint8Array): number;
  /** Bytes accepted but not yet handed to the kernel: what the buffer bounds are checked against. */
  getBufferedAmount(): number;
  /** Ends the session, telling the client `code` and `reason`; the hub is told through `closed`. */
  end(code: number, reason: string): void;
  /** Ends the session at once, dropping what is buffered (a client that stopped reading). */
  close(): void;
}
