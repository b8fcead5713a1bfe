/**
 * A TCP port that was free a moment ago on 127.0.0.1 (the OS picks it), for the servers the tests
 * start themselves.
 */
import { createServer } from 'node:net';

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
