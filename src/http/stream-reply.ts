/**
 * @module Writing a streamed answer (the event export) to a uWS response, front thread: chunked
 * transfer encoding through res.write, one chunk at a time. A write that leaves uWS holding
 * unsent bytes (the client reads slower than we produce) waits for onWritable before the producer
 * makes the next chunk, so a slow reader costs one chunk of memory, not the whole export.
 */
import type { Logger } from '../log.ts';
import {
  writeHead,
  type ChunkWriter,
  type Exchange,
  type Reply,
  type StreamBody,
} from './reply.ts';

export async function sendStream(
  exchange: Exchange,
  reply: Reply & { readonly stream: StreamBody },
  log: Logger,
): Promise<void> {
  if (exchange.aborted || exchange.answered) {
    reply.stream.cancel();
    return;
  }
  exchange.answered = true;
  exchange.counter?.count(reply);
  const res = exchange.res;
  /** Resolves the write waiting for onWritable (false: the client went away meanwhile). */
  let waiting: ((open: boolean) => void) | null = null;
  // Replaces the adapter's abort hook (uWS keeps one): the same flag, and a waiting write ends.
  res.onAborted(() => {
    exchange.aborted = true;
    waiting?.(false);
    waiting = null;
  });
  res.cork(() => writeHead(exchange, reply, reply.stream.contentType));
  if (exchange.head) {
    reply.stream.cancel();
    res.cork(() => res.endWithoutBody(undefined, true));
    return;
  }
  const out: ChunkWriter = {
    write(chunk) {
      if (exchange.aborted) return Promise.resolve(false);
      let flushed = true;
      res.cork(() => (flushed = res.write(chunk)));
      if (flushed) return Promise.resolve(true);
      // uWS holds the whole chunk (write never refuses bytes): wait until it has sent them.
      return new Promise((resolve) => {
        waiting = resolve;
        res.onWritable(() => {
          waiting = null;
          resolve(!exchange.aborted);
          return true;
        });
      });
    },
  };
  try {
    await reply.stream.produce(out);
  } catch (error) {
    log.error({ err: error }, 'a streamed answer failed midway; the client gets it cut short');
  }
  if (!exchange.aborted) res.cork(() => res.end());
}
