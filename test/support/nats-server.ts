/**
 * A private NATS server with JetStream for the cluster tests: a `nats-server -js` child on a free
 * loopback port with a temporary store (never the machine's shared server on 4222), which a test
 * can kill -9 and start again on the same port and store. Where no binary exists the tests skip
 * with NO_NATS_SERVER, one line saying how to get it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.ts';

export const NATS_SERVER = process.env.NATS_SERVER ?? '/usr/sbin/nats-server';
export const NO_NATS_SERVER = `no nats-server at ${NATS_SERVER}: apt-get install -y nats-server`;
export const natsServerPath = (): string | null => (existsSync(NATS_SERVER) ? NATS_SERVER : null);

export interface NatsServer {
  readonly url: string;
  readonly port: number;
  /** Whether the child runs now. */
  running(): boolean;
  /** SIGKILL, and its exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port and store (after kill()). */
  restart(): Promise<void>;
  /** Kills it and removes the store. */
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** Resolves once the port accepts a TCP connection. */
async function waitListening(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = tcpConnect({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await sleep(50);
  }
  throw new Error(`nats-server did not listen on ${port} within ${timeoutMs} ms`);
}

export async function startNatsServer(): Promise<NatsServer> {
  const binary = natsServerPath();
  if (binary === null) throw new Error(NO_NATS_SERVER);
  const port = await freePort();
  const store = await mkdtemp(path.join(tmpdir(), 'vigil-nats-'));
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let output = '';

  const launch = async (): Promise<void> => {
    const started = spawn(binary, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', store], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-4000);
    };
    started.stdout?.on('data', keep);
    started.stderr?.on('data', keep);
    children.add(started);
    child = started;
    exited = new Promise((resolve) =>
      started.once('exit', () => {
        children.delete(started);
        if (child === started) child = null;
        resolve();
      }),
    );
    try {
      await waitListening(port, 15_000);
    } catch (error) {
      started.kill('SIGKILL');
      throw new Error(`${(error as Error).message}\n${output}`, { cause: error });
    }
  };

  const kill = async (): Promise<void> => {
    child?.kill('SIGKILL');
    await exited;
  };
  await launch();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    running: () => child !== null,
    kill,
    restart: launch,
    async stop() {
      await kill();
      await rm(store, { recursive: true, force: true });
    },
  };
}
