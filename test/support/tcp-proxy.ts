/**
 * A TCP proxy in front of the test PostgreSQL, so that a test can take the database away from a
 * running service (every connection cut, new ones refused) and give it back, as an outage does,
 * without stopping the server other test files share.
 */
import { createServer, connect, type Socket } from 'node:net';

export interface TcpProxy {
  /** The database URL through the proxy. */
  readonly url: string;
  /** Cuts every connection and refuses new ones until `restore`. */
  cut(): void;
  restore(): void;
}

interface Teardown {
  teardown(fn: () => unknown): void;
}

export async function startTcpProxy(t: Teardown, databaseUrl: string): Promise<TcpProxy> {
  const target = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  let down = false;
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((client) => {
    track(client);
    if (down) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(target.port || 5432), target.hostname);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    cut() {
      down = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      down = false;
    },
  };
}
