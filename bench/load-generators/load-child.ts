/**
 * A load generator as its own process (node --import tsx, IPC channel): on 2 cores a second
 * generator must not share the bench's event loop. Typed messages both ways; waits by message type.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface Typed {
  readonly type: string;
}

export interface LoadChild<In extends Typed, Out extends Typed> {
  readonly pid: number;
  send(message: In): void;
  /** The next message of this type (already received ones are kept until asked for). */
  next<T extends Out['type']>(type: T, timeoutMs?: number): Promise<Extract<Out, { type: T }>>;
  /** Resolves with the exit code once the process has ended. */
  readonly exited: Promise<number | null>;
  kill(): void;
}

interface Waiter {
  readonly resolve: (message: Typed) => void;
  readonly reject: (error: Error) => void;
}

/** Forks `script` (a path relative to this folder) with its options as JSON in argv[2]. */
export function forkLoadChild<In extends Typed, Out extends Typed>(
  script: string,
  options: unknown,
  name: string,
): LoadChild<In, Out> {
  const child: ChildProcess = fork(
    fileURLToPath(new URL(script, import.meta.url)),
    [JSON.stringify(options)],
    {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${name}: no pid`);
  const inbox = new Map<string, Typed[]>();
  const waiters = new Map<string, Waiter[]>();
  let ended: Error | null = null;

  child.on('message', (raw: unknown) => {
    const message = raw as Typed;
    const waiting = waiters.get(message.type);
    const first = waiting?.shift();
    if (first !== undefined) {
      first.resolve(message);
      return;
    }
    const queue = inbox.get(message.type) ?? [];
    queue.push(message);
    inbox.set(message.type, queue);
  });
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code, signal) => {
      ended = new Error(`${name} (pid ${pid}) exited (code ${code}, signal ${signal})`);
      for (const list of waiters.values()) for (const w of list) w.reject(ended);
      waiters.clear();
      resolve(code);
    });
  });

  const next = <T extends Out['type']>(
    type: T,
    timeoutMs = 600_000,
  ): Promise<Extract<Out, { type: T }>> => {
    const queued = inbox.get(type)?.shift();
    if (queued !== undefined) return Promise.resolve(queued as Extract<Out, { type: T }>);
    if (ended !== null) return Promise.reject(ended);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${name}: no '${type}' message within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const list = waiters.get(type) ?? [];
      list.push({
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m as Extract<Out, { type: T }>);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      waiters.set(type, list);
    });
  };

  return {
    pid,
    send: (message) => {
      if (ended === null) child.send(message);
    },
    next,
    exited,
    kill: () => {
      if (ended === null) child.kill('SIGTERM');
    },
  };
}

/** In a child: its options (argv[2]) and a typed sender to the parent. */
export function childSide<Options, Out extends Typed>(): {
  options: Options;
  post: (message: Out) => void;
} {
  const raw = process.argv[2];
  if (raw === undefined || process.send === undefined) {
    throw new Error('a load child runs under forkLoadChild (options in argv[2], IPC channel)');
  }
  const send = process.send.bind(process);
  return { options: JSON.parse(raw) as Options, post: (message) => void send(message) };
}
