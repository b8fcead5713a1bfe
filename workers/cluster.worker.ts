/**
 * Cluster thread (one worker thread, cluster mode only): this instance's link to its peers.
 *
 *   storage workers --batch-committed/failed--> here --publish <cluster>.batch.<id>--> JetStream
 *   JetStream --ordered consumer, every instance's batches--> here --events-stored--> metrics actor
 *
 * It registers the instance (its incarnation), publishes each committed batch after COMMIT and
 * deletes the published outbox rows once a second, relays rows left behind (its own after the
 * broker comes back, any instance's older than RELAY_AFTER_MS), settles failed batches, sends
 * the heartbeats (core NATS and PostgreSQL), counts peers' batches once each, and posts the
 * ClusterView and the NatsLag (its publishing backlog, its consumer's) to the front whenever they
 * change. Nothing here is on the ingest path: a 202 never waits for the broker.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { decodeBatchWithIds, type DecodedBatch } from '../src/nats/batch-payload.ts';
import { clusterNames, startNatsLink, type StreamedBatch } from '../src/nats/nats-link.ts';
import { connect } from '../src/db/connect.ts';
import {
  deletePublished,
  heartbeat as beatInPostgres,
  outboxRows,
  pruneOutbox,
  registerInstance,
  relayOutbox,
  writeEmptyOutboxRows,
  type OutboxRecord,
} from '../src/db/cluster-repository.ts';
import {
  batchSeqOf,
  messageIdOf,
  parseMessageId,
  positionOf,
} from '../src/domain/cluster/batch-seq.ts';
import type { ClusterView } from '../src/domain/cluster/cluster-view.ts';
import { ClusterMembership, type Heartbeat } from '../src/domain/cluster/membership.ts';
import { natsLagOf, sameNatsLag, type NatsLag } from '../src/domain/cluster/nats-lag.ts';
import { PublishBacklog } from '../src/domain/cluster/publish-backlog.ts';
import { ReceivedBatches } from '../src/domain/cluster/received-batches.ts';
import type { MetricEvent } from '../src/domain/event.ts';
import { nameThisThread, THREAD_NAMES } from '../src/telemetry/thread-name.ts';
import { createLogger } from '../src/log.ts';
import type {
  BatchNotice,
  ClusterCommand,
  ClusterNotice,
  ClusterWorkerData,
} from '../src/protocol/cluster.ts';
import { assertNever, type MetricsChannelMessage } from '../src/protocol/metrics-actor.ts';

if (isMainThread || parentPort === null)
  throw new Error('cluster.worker.ts runs in a worker thread');
const port = parentPort;
const data = workerData as ClusterWorkerData;
nameThisThread(THREAD_NAMES.cluster);
const log = createLogger(data.logLevel, 'cluster');
const post = (notice: ClusterNotice): void => port.postMessage(notice);

/** Heartbeats, the view, and deleting published rows: once a second. */
const BEAT_MS = 1_000;
/** The relay and the settling of failed batches. */
const RELAY_EVERY_MS = 2_000;
/** Another instance's rows are relayed when older than this (their publisher crashed or lost NATS). */
const RELAY_AFTER_MS = 10_000;
const RELAY_LIMIT = 500;
/** Rounds of RELAY_LIMIT rows in one relay turn at most (the rest waits for the next turn). */
const RELAY_ROUNDS = 20;
/** Outbox rows past the longest metrics window count nowhere any more: pruned (docs/cluster.md). */
const OUTBOX_MAX_AGE_MS = 24 * 3_600_000;
const PRUNE_EVERY_MS = 60_000;
/** Own publishes awaiting JetStream's ack; more wait in the outbox for the relay. */
const MAX_IN_FLIGHT = 2_000;
/** Published seqs whose rows are not deleted yet (the database down): more are left to the relay. */
const MAX_PUBLISHED_PENDING = 100_000;
/** Peers' events wait this long and go to the metrics actor together (as storage workers do). */
const FLUSH_MS = 50;
/** A registration refused because the id looks held waits for it to go stale, up to this. */
const REGISTER_WAIT_MS = 6_000;

const sql = connect({
  url: data.databaseUrl,
  schema: data.schema,
  max: 3,
  queryTimeoutMs: data.queryTimeoutMs,
});
const holder = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
const names = clusterNames(data.cluster);
const self = data.instanceId;
const ownSubject = names.batchSubject(self);

/** Takes the instance id in PostgreSQL; another live process holding it is waited out, then refused. */
async function register(): Promise<number> {
  const deadline = Date.now() + REGISTER_WAIT_MS;
  for (;;) {
    const result = await registerInstance(sql, self, holder);
    if (typeof result === 'number') return result;
    if (Date.now() > deadline) {
      throw new Error(
        `instance id ${self} is in use by ${result.holder} (seen ${Math.round(result.seenMsAgo)} ms ago): ` +
          'give each instance its own VIGIL_INSTANCE_ID (or VIGIL_DATA_DIR)',
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

let incarnation: number;
try {
  incarnation = await register();
} catch (error) {
  post({ type: 'failed', message: (error as Error).message });
  await sql.end({ timeout: 1 });
  throw error;
}
const selfFrom = batchSeqOf(incarnation, 1);
const membership = new ClusterMembership(self, incarnation);
/** Batch numbers of this incarnation whose outcome is known (committed, or failed and settled). */
const decided = new ReceivedBatches();
/** Batch numbers of this incarnation decided and not yet acknowledged by JetStream. */
const backlog = new PublishBacklog();
/** The outbox rows of this incarnation a relay published: out of the backlog. */
const acknowledgedRows = (rows: readonly OutboxRecord[]): void => {
  for (const row of rows) {
    if (row.instanceId === self && row.seq >= selfFrom)
      backlog.acknowledged(positionOf(row.seq).number);
  }
};
/** Published (acked) seqs whose outbox rows are still to delete. */
let published: number[] = [];
/** Failed batches, to settle: their row exists (committed after all) or an empty one is written. */
const failed = new Set<number>();
let inFlight = 0;
/** The broker came back: publish this incarnation's rows whatever their age. */
let relayOwnAll = false;

const metrics = new BroadcastChannel(data.metricsChannel);
metrics.unref();
let peerEvents: MetricEvent[] = [];
/** Their stored ids, in order (the checkpoint's mark); null once a batch came without them. */
let peerIds: number[] | null = [];
let flushTimer: NodeJS.Timeout | undefined;
const flushPeerEvents = (): void => {
  flushTimer = undefined;
  const message: MetricsChannelMessage = {
    type: 'events-stored',
    events: peerEvents,
    ...(peerIds === null ? {} : { ids: peerIds }),
  };
  peerEvents = [];
  peerIds = [];
  metrics.postMessage(message);
};

const onBatch = ({ msgId, payload }: StreamedBatch): void => {
  const id = parseMessageId(msgId);
  if (id === null) {
    log.warn({ msgId }, 'a message on the batch stream without a batch id: skipped');
    return;
  }
  const acceptance = membership.accept(id.instanceId, id.seq, Date.now());
  // An own batch back from the stream is in JetStream, whoever published it (a peer's relay too).
  if (acceptance === 'own') backlog.acknowledged(positionOf(id.seq).number);
  if (acceptance !== 'new') return;
  let batch: DecodedBatch;
  try {
    batch = decodeBatchWithIds(payload);
  } catch (error) {
    log.error(
      { err: error, msgId },
      'a batch on the stream could not be read: its events are not counted',
    );
    return;
  }
  const { events, ids } = batch;
  if (events.length === 0) return;
  // A batch of a version that sent no ids: this message's events are counted without a mark.
  if (ids === null) peerIds = null;
  for (const event of events) peerEvents.push(event);
  if (ids !== null && peerIds !== null) for (const id of ids) peerIds.push(id);
  flushTimer ??= setTimeout(flushPeerEvents, FLUSH_MS);
};

const onHeartbeat = (instanceId: string, body: Uint8Array): void => {
  try {
    const beat = JSON.parse(Buffer.from(body).toString('utf8')) as Heartbeat;
    if (Number.isSafeInteger(beat.lastSeq) && beat.lastSeq > 0)
      membership.heartbeat(instanceId, beat, Date.now());
  } catch {
    log.warn({ instanceId }, 'an unreadable heartbeat: skipped');
  }
};

const link = startNatsLink({
  url: data.natsUrl,
  names,
  instanceId: self,
  incarnation,
  streamMaxBytes: data.streamMaxBytes,
  log,
  onBatch,
  onHeartbeat,
  onConnected: () => {
    relayOwnAll = true;
    void relayTurn();
  },
});

const publishOwn = (seq: number, payload: Uint8Array): void => {
  if (!link.connected() || inFlight >= MAX_IN_FLIGHT) return; // the relay takes it later
  inFlight++;
  void link
    .publish(ownSubject, payload, messageIdOf(self, seq))
    .then(
      () => {
        backlog.acknowledged(positionOf(seq).number);
        published.push(seq);
        if (published.length > MAX_PUBLISHED_PENDING) published.shift();
      },
      (error: unknown) => log.debug({ err: error, seq }, 'publish failed; the relay retries it'),
    )
    .finally(() => inFlight--);
};

const notices = new BroadcastChannel(data.channel);
notices.onmessage = (message: unknown) => {
  const notice = (message as { data: BatchNotice }).data;
  switch (notice.type) {
    case 'batch-committed': {
      const { number } = positionOf(notice.seq);
      decided.accept(number);
      backlog.committed(number, Date.now());
      publishOwn(notice.seq, notice.payload);
      return;
    }
    case 'batch-failed':
      failed.add(notice.seq);
      return;
    default:
      assertNever(notice);
  }
};

/** Publishes rows (relayed or settled), answering those JetStream acknowledged. */
async function publishRows(rows: readonly OutboxRecord[]): Promise<OutboxRecord[]> {
  const results = await Promise.allSettled(
    rows.map((row) =>
      link.publish(
        names.batchSubject(row.instanceId),
        row.payload,
        messageIdOf(row.instanceId, row.seq),
      ),
    ),
  );
  return rows.filter((_, i) => results[i]?.status === 'fulfilled');
}

/**
 * Failed batches: an empty row is written for each that has none (a batch that did commit keeps
 * its own; the primary key lets only one of the two exist, so a COMMIT still in flight fails
 * rather than be lost), then every one of them is published. Peers see no hole.
 */
async function settleFailed(): Promise<void> {
  if (failed.size === 0) return;
  const seqs = [...failed];
  await writeEmptyOutboxRows(sql, self, seqs);
  const now = Date.now();
  for (const seq of seqs) {
    failed.delete(seq);
    const { number } = positionOf(seq);
    decided.accept(number);
    backlog.committed(number, now);
  }
  if (!link.connected()) return; // the relay publishes them later
  const acked = await publishRows(await outboxRows(sql, self, seqs));
  acknowledgedRows(acked);
  for (const row of acked) published.push(row.seq);
}

let relaying = false;
let lastPrune = 0;
async function relayTurn(): Promise<void> {
  if (relaying) return;
  relaying = true;
  try {
    await settleFailed();
    if (Date.now() - lastPrune > PRUNE_EVERY_MS) {
      lastPrune = Date.now();
      const pruned = await pruneOutbox(sql, OUTBOX_MAX_AGE_MS, 10_000);
      if (pruned > 0) {
        log.warn({ pruned }, 'outbox rows older than 24 h dropped: no metrics window counts them');
        backlog.forgetCommittedBefore(Date.now() - OUTBOX_MAX_AGE_MS);
      }
    }
    if (!link.connected()) return;
    const ownAll = relayOwnAll;
    relayOwnAll = false;
    // A broker just back may refuse some publishes (its stream still recovering): try them again
    // at the next turn rather than after RELAY_AFTER_MS.
    let refused = false;
    const publishOrRetry = async (rows: readonly OutboxRecord[]): Promise<OutboxRecord[]> => {
      const acked = await publishRows(rows);
      acknowledgedRows(acked);
      refused ||= acked.length < rows.length;
      return acked;
    };
    for (let round = 0; round < RELAY_ROUNDS; round++) {
      const taken = await relayOutbox(
        sql,
        { self, selfFrom, olderThanMs: RELAY_AFTER_MS, ownAll, limit: RELAY_LIMIT },
        publishOrRetry,
      );
      if (taken > 0) log.debug({ taken }, 'relayed outbox rows');
      if (taken < RELAY_LIMIT || refused) break;
    }
    relayOwnAll ||= refused && ownAll;
  } catch (error) {
    relayOwnAll ||= link.connected();
    log.warn({ err: error }, 'outbox relay failed; trying again');
  } finally {
    relaying = false;
  }
}

let lastView = '';
const publishView = (view: ClusterView): void => {
  const text = JSON.stringify(view);
  if (text === lastView) return;
  lastView = text;
  post({ type: 'view', view });
};

let lastLag: NatsLag | null = null;
const publishLag = (lag: NatsLag): void => {
  if (lastLag !== null && sameNatsLag(lag, lastLag)) return;
  lastLag = lag;
  post({ type: 'nats-lag', lag });
};

let beating = false;
async function beat(): Promise<void> {
  if (beating) return;
  beating = true;
  try {
    const beatBody: Heartbeat = { lastSeq: batchSeqOf(incarnation, decided.prefix) };
    link.heartbeat(Buffer.from(JSON.stringify(beatBody)));
    const done = published;
    published = [];
    try {
      await deletePublished(sql, self, done);
    } catch (error) {
      // Kept for the next beat: the relay would republish them (harmless) if they stayed.
      published = done.concat(published);
      throw error;
    }
    const { held, alive } = await beatInPostgres(sql, self, holder);
    if (!held) log.error({ instanceId: self }, 'another process took this instance id');
    membership.alive(alive, Date.now());
    await link.checkCaughtUp();
  } catch (error) {
    log.warn({ err: error }, 'cluster heartbeat failed');
  } finally {
    publishView(membership.view(Date.now(), link.streaming()));
    beating = false;
  }
}

const beatTimer = setInterval(() => {
  // Apart from the beat, which may wait on a database that is down.
  publishLag(natsLagOf(backlog, link.consumerPosition(), Date.now()));
  void beat();
}, BEAT_MS);
const relayTimer = setInterval(() => void relayTurn(), RELAY_EVERY_MS);

port.on('message', (command: ClusterCommand) => {
  if (command.type !== 'stop') return;
  clearInterval(beatTimer);
  clearInterval(relayTimer);
  notices.close();
  void (async () => {
    try {
      // Let the last publishes land, then delete what they acknowledged.
      const deadline = Date.now() + 2_000;
      while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await deletePublished(sql, self, published).catch(() => undefined);
      if (flushTimer !== undefined) {
        clearTimeout(flushTimer);
        flushPeerEvents();
      }
      await link.close();
      await sql.end({ timeout: 2 });
    } catch (error) {
      log.warn({ err: error }, 'cluster thread stop');
    }
    metrics.close();
    post({ type: 'stopped' });
    port.close();
  })();
});

post({ type: 'ready', incarnation });
publishView(membership.view(Date.now(), false));
