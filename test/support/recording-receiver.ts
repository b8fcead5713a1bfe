/**
 * A webhook receiver on 127.0.0.1:0 that records what Vigil sends it (the notification's
 * transition and transitionId, and the Idempotency-Key header) and answers 200, or holds one
 * chosen request unanswered (its sender waits on it, as on a slow receiver) until teardown.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  readonly transition: string;
  readonly transitionId: string;
  readonly key: string | undefined;
}

export async function startRecordingReceiver(t: { teardown(fn: () => unknown): void }) {
  const received: Received[] = [];
  const held: ServerResponse[] = [];
  let holdNext: ((r: Received) => boolean) | null = null;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Received;
      const one = {
        transition: body.transition,
        transitionId: body.transitionId,
        key: req.headers['idempotency-key'] as string | undefined,
      };
      received.push(one);
      if (holdNext?.(one) === true) {
        holdNext = null;
        held.push(res);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const res of held) res.destroy();
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    /** The next request `which` matches is left unanswered (its sender waits on it). */
    hold(which: (r: Received) => boolean) {
      holdNext = which;
    },
  };
}
