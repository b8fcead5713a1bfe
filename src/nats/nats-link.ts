/**
 * @module The cluster thread's NATS connection (JetStream client, docs/decisions.md says which and
 * why): the stream of committed batches, publishing with a message id, one ordered consumer that
 * reads every batch of the cluster from the start of the stream, and the core-NATS heartbeats.
 * It reconnects by itself, forever; `streaming()` says whether batches are reaching us now.
 */
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import {
  DeliverPolicy,
  DiscardPolicy,
  RetentionPolicy,
  StorageType,
  jetstream,
  jetstreamManager,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type OrderedConsumerOptions,
} from '@nats-io/jetstream';
import type { ConsumerPosition } from '../domain/cluster/nats-lag.ts';
import type { Logger } from '../log.ts';

/** The stream keeps batches this long: past the longest metrics window (24 h), with an hour to spare. */
export const STREAM_MAX_AGE_MS = 25 * 3_600_000;
/** JetStream drops a message whose id it stored this recently (republishing is idempotent). */
const DUPLICATE_WINDOW_MS = 120_000;
const PUBLISH_TIMEOUT_MS = 5_000;
/** After the consumer loop ends (the stream was lost, an error), it is started again this much later. */
const CONSUMER_RETRY_MS = 1_000;
/** Messages the ordered consumer asks for at a time. */
const CONSUME_BATCH = 256;
/**
 * How long one pull waits on an idle stream; its idle heartbeat is half of it, and two missed
 * ones make the ordered consumer start over. The default (30 s) left the metrics incomplete for
 * up to a minute after a broker restart.
 */
const PULL_EXPIRES_MS = 5_000;

const nanos = (ms: number): number => ms * 1_000_000;

export interface ClusterNames {
  readonly stream: string;
  /** `<cluster>.batch.<instanceId>`. */
  batchSubject(instanceId: string): string;
  readonly batchFilter: string;
  heartbeatSubject(instanceId: string): string;
  readonly heartbeatFilter: string;
  /**
   * The ordered consumer's names start with it (the client adds a serial). Per incarnation: the
   * consumer of a process killed a moment ago lingers on the server, under its own name.
   */
  consumerPrefix(instanceId: string, incarnation: number): string;
}

export const clusterNames = (cluster: string): ClusterNames => ({
  stream: `${cluster}_batches`,
  batchSubject: (id) => `${cluster}.batch.${id}`,
  batchFilter: `${cluster}.batch.*`,
  heartbeatSubject: (id) => `${cluster}.hb.${id}`,
  heartbeatFilter: `${cluster}.hb.*`,
  consumerPrefix: (id, incarnation) => `${cluster}_${id}_${incarnation}`,
});

/** A message of the stream: who published it (from its subject and id) and its bytes. */
export interface StreamedBatch {
  readonly msgId: string;
  readonly payload: Uint8Array;
}

export interface NatsLinkOptions {
  readonly url: string;
  readonly names: ClusterNames;
  readonly instanceId: string;
  readonly incarnation: number;
  readonly streamMaxBytes: number;
  readonly log: Logger;
  onBatch(batch: StreamedBatch): void;
  onHeartbeat(instanceId: string, body: Uint8Array): void;
  /** Connected again after a loss (or for the first time): unpublished rows may go now. */
  onConnected(): void;
}

export interface NatsLink {
  /** Connected, and the stream read to its end once since (re)connecting. */
  streaming(): boolean;
  connected(): boolean;
  publish(subject: string, payload: Uint8Array, msgId: string): Promise<void>;
  /** Core NATS, no reply: lost while disconnected (the next one a second later says the same). */
  heartbeat(body: Uint8Array): void;
  consumerPosition(): ConsumerPosition;
  /** Checks, when not caught up, whether the consumer has read to the stream's end. */
  checkCaughtUp(): Promise<void>;
  close(): Promise<void>;
}

export function startNatsLink(options: NatsLinkOptions): NatsLink {
  const { names, log } = options;
  let nc: NatsConnection | null = null;
  let js: JetStreamClient | null = null;
  let jsm: JetStreamManager | null = null;
  let isConnected = false;
  let caughtUp = false;
  let closed = false;
  /** Stream sequence of the last message the consumer handed over (0: none yet). */
  let lastStreamSeq = 0;
  /** msg.info of the last message handed over: kept as numbers, for consumerPosition(). */
  let lastPending = 0;
  let lastStoredAtMs = 0;
  let messages: ConsumerMessages | null = null;
  let heartbeats: Subscription | null = null;

  const ensureStream = async (manager: JetStreamManager): Promise<void> => {
    const config = {
      name: names.stream,
      subjects: [names.batchFilter],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      max_age: nanos(STREAM_MAX_AGE_MS),
      max_bytes: options.streamMaxBytes,
      duplicate_window: nanos(DUPLICATE_WINDOW_MS),
      num_replicas: 1,
    };
    try {
      const info = await manager.streams.info(names.stream);
      if (info.config.max_bytes !== config.max_bytes || info.config.max_age !== config.max_age) {
        await manager.streams.update(names.stream, {
          max_bytes: config.max_bytes,
          max_age: config.max_age,
        });
      }
    } catch (error) {
      if (!/stream not found/i.test((error as Error).message)) throw error;
      await manager.streams.add(config);
    }
  };

  /** Reads the stream from where it stopped (from its start the first time), until closed. */
  const consume = async (client: JetStreamClient): Promise<void> => {
    while (!closed) {
      try {
        const from: Partial<OrderedConsumerOptions> =
          lastStreamSeq === 0
            ? { deliver_policy: DeliverPolicy.All }
            : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: lastStreamSeq + 1 };
        const consumer = await client.consumers.get(names.stream, {
          name_prefix: names.consumerPrefix(options.instanceId, options.incarnation),
          filter_subjects: names.batchFilter,
          ...from,
        });
        messages = await consumer.consume({
          max_messages: CONSUME_BATCH,
          expires: PULL_EXPIRES_MS,
        });
        for await (const m of messages) {
          lastStreamSeq = m.seq;
          const { pending, timestampNanos } = m.info;
          lastPending = pending;
          lastStoredAtMs = timestampNanos / 1_000_000;
          const msgId = m.headers?.get('Nats-Msg-Id') ?? '';
          options.onBatch({ msgId, payload: m.data });
          if (pending === 0) caughtUp = true;
        }
      } catch (error) {
        if (!closed) log.warn({ err: error }, 'reading the batch stream failed; trying again');
      }
      messages = null;
      if (!closed) await new Promise((resolve) => setTimeout(resolve, CONSUMER_RETRY_MS));
    }
  };

  const watchStatus = async (conn: NatsConnection): Promise<void> => {
    for await (const status of conn.status()) {
      if (status.type === 'disconnect') {
        isConnected = false;
        caughtUp = false;
        log.warn('lost the NATS server: batches wait in the outbox, the metrics are incomplete');
      } else if (status.type === 'reconnect') {
        isConnected = true;
        log.info('NATS server back: publishing the outbox, reading the stream on');
        // The server may have lost the consumer with its restart: read on with a new one at once
        // (from the next stream sequence) rather than wait for missed heartbeats to tell.
        void messages?.close();
        if (jsm !== null) {
          void ensureStream(jsm).then(
            () => options.onConnected(),
            (error: unknown) => log.warn({ err: error }, 'could not check the batch stream'),
          );
        }
      }
    }
  };

  const start = async (): Promise<void> => {
    const conn = await connect({
      servers: options.url,
      name: `vigil-${options.instanceId}`,
      // Keep trying for as long as the service runs: ingest never waits for the broker.
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      waitOnFirstConnect: true,
      timeout: 5_000,
    });
    if (closed) {
      await conn.close();
      return;
    }
    try {
      jsm = await jetstreamManager(conn);
      await ensureStream(jsm);
    } catch (error) {
      // JetStream off on that server, or no room for the stream: said, and tried again later.
      await conn.close();
      throw error;
    }
    nc = conn;
    js = jetstream(conn);
    isConnected = true;
    heartbeats = conn.subscribe(names.heartbeatFilter, {
      callback: (error, msg) => {
        if (error !== null) return;
        const id = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
        options.onHeartbeat(id, msg.data);
      },
    });
    void watchStatus(conn);
    void consume(js);
    log.info({ stream: names.stream }, 'connected to NATS');
    options.onConnected();
  };

  const starting = (async () => {
    // A first connection that fails (the server not up yet) is retried: start-up never waits.
    while (!closed && nc === null) {
      try {
        await start();
      } catch (error) {
        log.warn({ err: error }, 'could not connect to NATS yet; retrying');
        await new Promise((resolve) => setTimeout(resolve, CONSUMER_RETRY_MS));
      }
    }
  })();

  return {
    streaming: () => isConnected && caughtUp,
    connected: () => isConnected,
    async publish(subject, payload, msgId) {
      if (js === null || !isConnected) throw new Error('not connected to NATS');
      await js.publish(subject, payload, { msgID: msgId, timeout: PUBLISH_TIMEOUT_MS });
    },
    heartbeat(body) {
      if (nc !== null && isConnected) nc.publish(names.heartbeatSubject(options.instanceId), body);
    },
    consumerPosition: () => ({ pending: lastPending, storedAtMs: lastStoredAtMs }),
    async checkCaughtUp() {
      if (caughtUp || jsm === null || !isConnected) return;
      const info = await jsm.streams.info(names.stream);
      if (lastStreamSeq >= info.state.last_seq) caughtUp = true;
    },
    async close() {
      closed = true;
      heartbeats?.unsubscribe();
      await messages?.close();
      // A first connection still being attempted is abandoned with the thread.
      if (nc !== null) {
        await nc.close();
        await starting;
      }
    },
  };
}
