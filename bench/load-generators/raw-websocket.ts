/**
 * A minimal WebSocket client over node:net for the STOMP fan-out bench: RFC 6455 handshake, masked
 * text frames out, and each incoming message seen only through its first and last bytes. Every
 * connection of a process reads into one shared buffer, so a 107 KB message costs a kernel copy and
 * no allocation. With `ws`, the subscriber process spent about 4 times the service's CPU per tick
 * (a new Buffer per message, then GC), and that work showed up in the measured spread.
 */
import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';

export interface MessageView {
  /** The first bytes of the message (up to `prefixBytes`); valid only during the callback. */
  readonly prefix: Buffer;
  /** The last bytes of the message (up to `suffixBytes`); valid only during the callback. */
  readonly suffix: Buffer;
  readonly length: number;
}

export interface RawWebSocketOptions {
  readonly url: string;
  readonly protocol: string;
  readonly prefixBytes: number;
  readonly suffixBytes: number;
  readonly onOpen: () => void;
  readonly onMessage: (message: MessageView) => void;
  /** Once per connection: the code of the server's close frame, else 1006. */
  readonly onClose: (code: number) => void;
  readonly onError: (error: Error) => void;
}

/** sendText and close do nothing once the connection is closed. */
export interface RawWebSocket {
  sendText(text: string): void;
  /** Sends a close frame; the server answers and ends the connection. */
  close(code: number): void;
  terminate(): void;
  readonly closed: boolean;
}

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const OP_TEXT = 0x1;
const OP_CLOSE = 0x8;
const OP_PING = 0x9;
const OP_PONG = 0xa;
/** Opcodes with this bit are control frames (close, ping, pong). */
const CONTROL = 0x8;
const MAX_HANDSHAKE = 8192;
const MAX_CONTROL = 125;
/** Reads of all connections land here in turn; each is consumed before the next read. */
const shared = Buffer.allocUnsafe(1 << 20);

function encodeFrame(opcode: number, payload: Buffer): Buffer {
  const lengthBytes = payload.length < 126 ? 0 : payload.length < 65536 ? 2 : 8;
  const frame = Buffer.allocUnsafe(2 + lengthBytes + 4 + payload.length);
  frame[0] = 0x80 | opcode;
  if (lengthBytes === 0) frame[1] = 0x80 | payload.length;
  else if (lengthBytes === 2) {
    frame[1] = 0x80 | 126;
    frame.writeUInt16BE(payload.length, 2);
  } else {
    frame[1] = 0x80 | 127;
    frame.writeBigUInt64BE(BigInt(payload.length), 2);
  }
  const maskAt = 2 + lengthBytes;
  randomBytes(4).copy(frame, maskAt);
  for (let i = 0; i < payload.length; i++) {
    frame[maskAt + 4 + i] = (payload[i] as number) ^ (frame[maskAt + (i & 3)] as number);
  }
  return frame;
}

/** Keeps the last `into.length` bytes seen so far: `kept` of them already in `into`, then `src`. */
function keepTail(into: Buffer, kept: number, src: Buffer, start: number, end: number): number {
  const n = end - start;
  if (n >= into.length) {
    src.copy(into, 0, end - into.length, end);
    return into.length;
  }
  const stay = Math.min(kept, into.length - n);
  into.copy(into, 0, kept - stay, kept);
  src.copy(into, stay, start, end);
  return stay + n;
}

export function openRawWebSocket(options: RawWebSocketOptions): RawWebSocket {
  const url = new URL(options.url);
  const key = randomBytes(16).toString('base64');
  const accept = createHash('sha1')
    .update(key + GUID)
    .digest('base64');
  const prefix = Buffer.allocUnsafe(options.prefixBytes);
  const suffix = Buffer.allocUnsafe(options.suffixBytes);
  const header = Buffer.allocUnsafe(14);
  const control = Buffer.allocUnsafe(MAX_CONTROL);
  let handshake = '';
  let open = false;
  let closed = false;
  let closeCode = 1006;
  // Frame being read: header bytes so far and needed, then payload bytes left.
  let headerHave = 0;
  let headerNeed = 2;
  let opcode = 0;
  let fin = false;
  let payloadLeft = -1;
  let controlHave = 0;
  // Message being assembled (data frames until FIN).
  let messageLength = 0;
  let suffixKept = 0;

  const socket = net.connect({
    host: url.hostname,
    port: Number(url.port),
    onread: {
      buffer: shared,
      callback: (bytes) => {
        try {
          consume(shared, bytes);
        } catch (error) {
          fail(error instanceof Error ? error : new Error(String(error)));
        }
        return true;
      },
    },
  });
  socket.setNoDelay(true);
  socket.on('connect', () => {
    socket.write(
      `GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\n` +
        `Connection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n` +
        `Sec-WebSocket-Protocol: ${options.protocol}\r\n\r\n`,
    );
  });
  socket.on('error', (error) => fail(error));
  socket.on('close', () => {
    if (closed) return;
    closed = true;
    options.onClose(closeCode);
  });

  function fail(error: Error): void {
    if (closed) return;
    options.onError(error);
    socket.destroy();
  }

  function consume(data: Buffer, end: number): void {
    let at = 0;
    if (!open) {
      const before = handshake.length;
      handshake += data.toString('latin1', 0, end);
      const headEnd = handshake.indexOf('\r\n\r\n');
      if (headEnd < 0) {
        if (handshake.length > MAX_HANDSHAKE) throw new Error('handshake answer too long');
        return;
      }
      const status = handshake.slice(0, handshake.indexOf('\r\n'));
      if (!status.startsWith('HTTP/1.1 101')) throw new Error(`handshake refused: ${status}`);
      const given = /^sec-websocket-accept:\s*(\S+)/im.exec(handshake.slice(0, headEnd))?.[1];
      if (given !== accept) throw new Error('handshake: wrong Sec-WebSocket-Accept');
      at = headEnd + 4 - before;
      handshake = '';
      open = true;
      options.onOpen();
    }
    while (at < end) {
      if (payloadLeft < 0) {
        while (headerHave < headerNeed && at < end) header[headerHave++] = data[at++] as number;
        if (headerHave < headerNeed) return;
        const b1 = header[1] as number;
        if ((b1 & 0x80) !== 0) throw new Error('server frame is masked');
        const short = b1 & 0x7f;
        if (headerNeed === 2 && short >= 126) {
          headerNeed = short === 126 ? 4 : 10;
          continue;
        }
        const b0 = header[0] as number;
        opcode = b0 & 0x0f;
        fin = (b0 & 0x80) !== 0;
        payloadLeft =
          short === 126
            ? header.readUInt16BE(2)
            : short === 127
              ? Number(header.readBigUInt64BE(2))
              : short;
        headerHave = 0;
        headerNeed = 2;
        controlHave = 0;
        if ((opcode & CONTROL) !== 0 && payloadLeft > MAX_CONTROL) {
          throw new Error('control frame too long');
        }
        if (payloadLeft === 0) {
          frameDone();
          continue;
        }
      }
      const take = Math.min(payloadLeft, end - at);
      if ((opcode & CONTROL) !== 0) {
        data.copy(control, controlHave, at, at + take);
        controlHave += take;
      } else {
        if (messageLength < prefix.length) {
          data.copy(prefix, messageLength, at, at + Math.min(take, prefix.length - messageLength));
        }
        suffixKept = keepTail(suffix, suffixKept, data, at, at + take);
        messageLength += take;
      }
      at += take;
      payloadLeft -= take;
      if (payloadLeft === 0) frameDone();
    }
  }

  function frameDone(): void {
    payloadLeft = -1;
    if (opcode === OP_CLOSE) {
      closeCode = controlHave >= 2 ? control.readUInt16BE(0) : 1005;
      socket.end();
    } else if (opcode === OP_PING) {
      socket.write(encodeFrame(OP_PONG, control.subarray(0, controlHave)));
    } else if ((opcode & CONTROL) === 0 && fin) {
      const length = messageLength;
      messageLength = 0;
      const kept = suffixKept;
      suffixKept = 0;
      options.onMessage({
        prefix: prefix.subarray(0, Math.min(length, prefix.length)),
        suffix: suffix.subarray(0, kept),
        length,
      });
    }
  }

  return {
    sendText: (text) => {
      if (!closed) socket.write(encodeFrame(OP_TEXT, Buffer.from(text, 'utf8')));
    },
    close: (code) => {
      if (closed) return;
      const payload = Buffer.allocUnsafe(2);
      payload.writeUInt16BE(code, 0);
      socket.write(encodeFrame(OP_CLOSE, payload));
    },
    terminate: () => socket.destroy(),
    get closed() {
      return closed;
    },
  };
}
