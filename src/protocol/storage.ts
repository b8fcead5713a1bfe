/**
 * @module The storage pool's protocol: one named handler per operation, its input and its result.
 * Expected failures come back as data ({ ok: false, code }), never as thrown errors (STYLE 2).
 * The records these carry are declared in src/domain.
 */
import type { StorageClusterData } from './cluster.ts';
import type { ApiKeyFields, ApiKeyRecord, StoredApiKey } from '../domain/api-key.ts';
import type { TransitionWriter } from '../domain/cluster/leader-fence.ts';
import type { PendingNotification } from '../domain/alerts/pending-notification.ts';
import type { ContactPoint, ContactPointFields } from '../domain/contact-points/contact-point.ts';
import type { EventPage, EventRecord, NewEvent } from '../domain/event.ts';
import type { KeyLookup, NewestEvents } from '../domain/metrics/state/last-event-times.ts';
import type { MaintenanceDone } from '../domain/event-partitions.ts';
import type { InsertOutcome } from '../domain/idempotency.ts';
import type { BackfillRequest } from '../domain/rules/kinds/anomaly/anomaly-rules.ts';
import type {
  Acknowledgement,
  AlertDeliveries,
  AlertFilter,
  AlertRecord,
  AlertTransition,
  StoredTransition,
} from '../domain/alerts/alert.ts';
import type {
  ActiveRule,
  RuleFields,
  RuleFilter,
  RuleRecord,
  RuleStatistics,
} from '../domain/rules/rule.ts';
import type { RuleStatus } from '../domain/rules/rule-types.ts';
import type { PatternConfig } from '../domain/rules/kinds/pattern/pattern-config.ts';
import type { PatternReplay } from '../domain/rules/kinds/pattern/pattern-replay.ts';
import type {
  SilenceEnding,
  SilenceFields,
  SilenceFilter,
  SilenceRecord,
} from '../domain/silences/silence.ts';

export type Result<T, C extends string> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: C; readonly message: string };

/** The database failed or could not be reached; `message` is safe to show to a client. */
export type DbFailure = 'DB_FAILURE';

type RuleFailure = DbFailure | 'NOT_FOUND';

export interface StorageHandlers {
  /**
   * Receipt times of the newest stored event, and of the newest of each type and source asked
   * (newest-events-repository.ts says how far it looks).
   */
  newestEvents(input: KeyLookup): Promise<Result<NewestEvents, DbFailure>>;
  /** An ANOMALY series' bucket values from the stored events, oldest first (its back-fill). */
  anomalyHistory(input: BackfillRequest): Promise<Result<readonly number[], DbFailure>>;
  /**
   * Group commit: one statement for the whole batch; outcomes in input order (plain ids unless
   * an event carries an idempotency key).
   */
  insertEvents(input: {
    readonly events: readonly NewEvent[];
    /** Send the metrics actor DetailedMetricEvents (an ACTIVE PATTERN rule reads them). */
    readonly detail?: boolean;
  }): Promise<Result<readonly InsertOutcome[], DbFailure>>;
  /**
   * The PATTERN rule test: the stored events of the REPLAY_MINUTES before `now` replayed through
   * the rule's matcher (pattern-replay.ts).
   */
  replayPattern(input: {
    readonly config: PatternConfig;
    readonly now: number;
  }): Promise<Result<PatternReplay, DbFailure>>;
  /** Deletes at most `limit` idempotency keys stored before `before` (epoch ms); answers how many. */
  pruneIdempotencyKeys(input: {
    readonly before: number;
    readonly limit: number;
  }): Promise<Result<number, DbFailure>>;
  /**
   * Retention (issue 23): creates the partitions of events due at `now` and drops those older than
   * `retentionDays` (null: keeps everything); event-partitions.ts plans which.
   */
  maintainEventPartitions(input: {
    readonly now: number;
    readonly retentionDays: number | null;
  }): Promise<Result<MaintenanceDone, DbFailure>>;
  /** Deletes at most `limit` count rows of time no longer kept; answers how many. */
  pruneEventCounts(input: { readonly limit: number }): Promise<Result<number, DbFailure>>;
  /**
   * Deletes at most `limit` RESOLVED alerts resolved before `before` (epoch ms), with the digests
   * no alert names any more; answers how many alerts.
   */
  pruneAlerts(input: {
    readonly before: number;
    readonly limit: number;
  }): Promise<Result<number, DbFailure>>;
  listEvents(input: {
    readonly eventType: string | null;
    readonly page: number;
    readonly size: number;
  }): Promise<Result<EventPage, DbFailure>>;
  getEvent(input: { readonly id: number }): Promise<Result<EventRecord, DbFailure | 'NOT_FOUND'>>;
  ping(input: Record<string, never>): Promise<Result<true, DbFailure>>;

  /** Refused with RULE_LIMIT when `maxRules` rules already exist. */
  createRule(input: {
    readonly rule: RuleFields;
    readonly maxRules: number;
  }): Promise<Result<RuleRecord, DbFailure | 'NAME_TAKEN' | 'RULE_LIMIT'>>;
  getRule(input: { readonly id: number }): Promise<Result<RuleRecord, RuleFailure>>;
  listRules(input: {
    readonly filter: RuleFilter;
  }): Promise<Result<readonly RuleRecord[], DbFailure>>;
  topTriggeredRules(input: {
    readonly limit: number;
  }): Promise<Result<readonly RuleRecord[], DbFailure>>;
  /** Replaces the fields if the rule is still at `expectedVersion`; bumps version, regenerates DRL. */
  updateRule(input: {
    readonly id: number;
    readonly expectedVersion: number;
    readonly rule: RuleFields;
  }): Promise<Result<RuleRecord, RuleFailure | 'NAME_TAKEN' | 'VERSION_CHANGED'>>;
  setRuleStatus(input: {
    readonly id: number;
    readonly status: RuleStatus;
  }): Promise<Result<RuleRecord, RuleFailure>>;
  deleteRule(input: { readonly id: number }): Promise<Result<true, RuleFailure>>;
  ruleStatistics(input: Record<string, never>): Promise<Result<RuleStatistics, DbFailure>>;
  /** Regenerates every rule's DRL and hash; versions unchanged. Answers how many rules. */
  regenerateDrls(input: Record<string, never>): Promise<Result<number, DbFailure>>;

  /**
   * Stores the transitions in one transaction, each rule's in the order given, counting the fired
   * incidents on their rules and writing their notifications to the outbox (claimed by the
   * writer); answers what was stored for each, in the order given. A writer with an epoch
   * (cluster mode): FENCED, nothing stored, when the lease no longer names its holder and epoch.
   * Absent: a writer that claims nothing (tools, tests).
   */
  recordTransitions(input: {
    readonly transitions: readonly AlertTransition[];
    readonly writer?: TransitionWriter;
  }): Promise<Result<readonly StoredTransition[], DbFailure | 'FENCED'>>;
  /**
   * Claims for the writer the notifications other processes stored and did not deliver: in a
   * cluster, those of earlier epochs (FENCED when its lease no longer holds); alone, those of any
   * other process. Oldest first.
   */
  claimOutbox(input: {
    readonly writer: TransitionWriter;
    readonly limit: number;
  }): Promise<Result<readonly PendingNotification[], DbFailure | 'FENCED'>>;
  /** Takes or renews a lease for ttlMs (database clock); the epoch held, or null: held by another. */
  takeLease(input: {
    readonly name: string;
    readonly holder: string;
    readonly ttlMs: number;
  }): Promise<Result<number | null, DbFailure>>;
  /** Ends the holder's lease now (clean shutdown), so that another instance takes it at once. */
  releaseLease(input: {
    readonly name: string;
    readonly holder: string;
  }): Promise<Result<true, DbFailure>>;
  /** The rule change counter (rules-repository.ts ruleChangeSeq). */
  ruleChanges(input: Record<string, never>): Promise<Result<number, DbFailure>>;
  /** The metrics reset counter (metrics-resets-repository.ts): what it stands at. */
  metricsResets(input: Record<string, never>): Promise<Result<number, DbFailure>>;
  /** Moves the metrics reset counter on (a reset made here); answers the value it now holds. */
  countMetricsReset(input: Record<string, never>): Promise<Result<number, DbFailure>>;
  getAlert(input: { readonly id: number }): Promise<Result<AlertRecord, DbFailure | 'NOT_FOUND'>>;
  /** The first acknowledgement stays: `changed` is false when the alert already had one. */
  acknowledgeAlert(input: {
    readonly id: number;
    readonly ack: Acknowledgement;
  }): Promise<
    Result<{ readonly alert: AlertRecord; readonly changed: boolean }, DbFailure | 'NOT_FOUND'>
  >;
  /** Writes the delivery results of many alerts, one statement. */
  recordDeliveries(input: {
    readonly results: readonly AlertDeliveries[];
  }): Promise<Result<true, DbFailure>>;
  listAlerts(input: {
    readonly filter: AlertFilter;
    readonly page: number;
    readonly size: number;
  }): Promise<Result<{ readonly rows: readonly AlertRecord[]; readonly total: number }, DbFailure>>;
  /** Every contact point with its secrets: only the front thread's directory and handlers read it. */
  listContactPoints(
    input: Record<string, never>,
  ): Promise<Result<readonly ContactPoint[], DbFailure>>;
  getContactPoint(input: {
    readonly id: number;
  }): Promise<Result<ContactPoint, DbFailure | 'NOT_FOUND'>>;
  /** Creates (`id` null) or replaces one; `isDefault` true takes the default from another. */
  saveContactPoint(input: {
    readonly id: number | null;
    readonly fields: ContactPointFields;
  }): Promise<Result<ContactPoint, DbFailure | 'NOT_FOUND' | 'NAME_TAKEN'>>;
  deleteContactPoint(input: {
    readonly id: number;
  }): Promise<Result<true, DbFailure | 'NOT_FOUND'>>;
  /** Ids of the rules not ACTIVE (or deleted) that have an open incident. */
  inactiveRulesFiring(input: Record<string, never>): Promise<Result<readonly number[], DbFailure>>;
  /**
   * ACTIVE rules (all, or those of `ids`) with their last hour of alert times and open incident,
   * for the evaluator.
   */
  activeRules(input: {
    readonly now: number;
    readonly ids?: readonly number[];
  }): Promise<Result<readonly ActiveRule[], DbFailure>>;

  /** Refused with KEY_LIMIT when `maxKeys` keys (revoked ones included) exist. */
  createApiKey(input: {
    readonly fields: ApiKeyFields;
    readonly prefix: string;
    readonly hash: string;
    readonly maxKeys: number;
  }): Promise<Result<ApiKeyRecord, DbFailure | 'KEY_LIMIT'>>;
  listApiKeys(input: Record<string, never>): Promise<Result<readonly ApiKeyRecord[], DbFailure>>;
  /** Every key with its hash: for the front thread's key store only. */
  storedApiKeys(input: Record<string, never>): Promise<Result<readonly StoredApiKey[], DbFailure>>;
  revokeApiKey(input: {
    readonly id: number;
  }): Promise<Result<ApiKeyRecord, DbFailure | 'NOT_FOUND'>>;
  touchApiKeys(input: {
    readonly uses: readonly { readonly id: number; readonly at: number }[];
  }): Promise<Result<true, DbFailure>>;

  /**
   * Refused with UNKNOWN_RULE when `ruleId` names no rule, with SILENCE_LIMIT when `maxOpen`
   * silences are not expired at `now` (epoch ms, the request's time).
   */
  createSilence(input: {
    readonly fields: SilenceFields;
    readonly now: number;
    readonly maxOpen: number;
  }): Promise<Result<SilenceRecord, DbFailure | 'UNKNOWN_RULE' | 'SILENCE_LIMIT'>>;
  getSilence(input: {
    readonly id: number;
  }): Promise<Result<SilenceRecord, DbFailure | 'NOT_FOUND'>>;
  /** Newest first; the state filter is taken at `now`. */
  listSilences(input: {
    readonly filter: SilenceFilter;
    readonly now: number;
    readonly page: number;
    readonly size: number;
  }): Promise<
    Result<{ readonly rows: readonly SilenceRecord[]; readonly total: number }, DbFailure>
  >;
  /** Ends the silence at `now`: what that did (silences-repository.ts endSilence). */
  endSilence(input: {
    readonly id: number;
    readonly now: number;
  }): Promise<Result<SilenceEnding, DbFailure | 'NOT_FOUND'>>;
}

export type StorageOperation = keyof StorageHandlers;
export type StorageInput<K extends StorageOperation> = Parameters<StorageHandlers[K]>[0];
export type StorageOutput<K extends StorageOperation> = Awaited<ReturnType<StorageHandlers[K]>>;

/** What every storage worker receives in workerData. */
export interface StorageWorkerData {
  readonly databaseUrl: string;
  readonly schema: string;
  readonly connections: number;
  readonly queryTimeoutMs: number;
  readonly logLevel: string;
  /** Name of the BroadcastChannel on which committed events go to the metrics actor. */
  readonly metricsChannel: string;
  /** Cluster mode (NATS_URL set): each batch gets a number and an outbox row. Absent: one instance. */
  readonly cluster?: StorageClusterData;
}

/**
 * The reads pool's handlers (workers/reads.worker.ts): the expensive reads a client can ask for,
 * on connections and a queue apart from ingest's (docs/security.md), with the same shapes.
 */
export type ReadHandlers = Pick<StorageHandlers, 'replayPattern' | 'listEvents'>;
export type ReadOperation = keyof ReadHandlers;

/** What every reads worker receives in workerData. */
export interface ReadsWorkerData extends Pick<
  StorageWorkerData,
  'databaseUrl' | 'schema' | 'connections' | 'queryTimeoutMs' | 'logLevel'
> {
  /** CPU-heavy reads (replays): the thread runs at the lowest priority, behind ingest. */
  readonly background: boolean;
}
