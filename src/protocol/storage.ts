/**
 * @module The storage pool's protocol: one named handler per operation, its input and its result.
 * Expected failures come back as data ({ ok: false, code }), never as thrown errors (STYLE 2).
 */
import type { Severity } from '../domain/event.ts';
import type { RuleFields } from '../domain/rules/rule-fields.ts';
import type { ActiveRule, FiredAlert } from '../domain/rules/rule-engine.ts';
import type {
  NotificationChannel,
  RuleConfig,
  RuleSeverity,
  RuleStatus,
  RuleType,
} from '../domain/rules/rule-types.ts';

export type Result<T, C extends string> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: C; readonly message: string };

/** The database failed or could not be reached; `message` is safe to show to a client. */
export type DbFailure = 'DB_FAILURE';

/** A validated event on its way to the table; times are epoch ms. */
export interface NewEvent {
  readonly eventType: string;
  readonly timestamp: number;
  readonly source: string;
  readonly userId: string | null;
  readonly sessionId: string | null;
  readonly severity: Severity;
  readonly tags: Readonly<Record<string, string>>;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly receivedAt: number;
}

/** An event as the API returns it (spec 2.1), already shaped by the storage worker. */
export interface EventRecord {
  readonly id: number;
  readonly eventId: string;
  readonly eventType: string;
  readonly timestamp: string;
  readonly source: string;
  readonly userId: string | null;
  readonly sessionId: string | null;
  readonly severity: Severity;
  readonly tags: Record<string, string>;
  readonly metadata: Record<string, unknown>;
  readonly receivedAt: string;
  readonly processingLatencyMs: number;
  readonly error: boolean;
}

export interface EventPage {
  readonly rows: readonly EventRecord[];
  readonly total: number;
}

/** A rule as the API returns it (spec 2.5); times are UTC local date-times without zone. */
export interface RuleRecord {
  readonly id: number;
  readonly name: string;
  readonly description: string | null;
  readonly ruleType: RuleType;
  readonly status: RuleStatus;
  readonly ruleConfig: RuleConfig;
  readonly generatedDrl: string;
  readonly drlHash: string;
  readonly severity: RuleSeverity;
  readonly priority: number;
  readonly notificationChannels: readonly NotificationChannel[];
  readonly notificationConfig: Readonly<Record<string, unknown>> | null;
  readonly suppressionWindowMinutes: number;
  readonly maxAlertsPerHour: number;
  readonly createdBy: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly lastTriggeredAt: string | null;
  readonly triggerCount: number;
  readonly version: number;
}

export type { RuleFields };

export interface RuleFilter {
  readonly status?: RuleStatus;
  readonly ruleType?: RuleType;
  /** Case-insensitive substring of name or description, taken literally. */
  readonly search?: string;
}

export interface RuleStatistics {
  readonly totalRules: number;
  readonly activeRules: number;
  readonly pausedRules: number;
  readonly archivedRules: number;
  readonly byType: Readonly<Record<RuleType, number>>;
}

type RuleFailure = DbFailure | 'NOT_FOUND';

/** The outcome of one notification channel for one alert. */
export interface DeliveryResult {
  readonly channel: string;
  readonly ok: boolean;
  readonly attempts: number;
  readonly status?: number;
  readonly error?: string;
  readonly at: string;
}

/** An alert as the API returns it; triggeredAt is an ISO 8601 instant. */
export interface AlertRecord {
  readonly id: number;
  readonly ruleId: number;
  readonly ruleName: string;
  readonly ruleVersion: number;
  readonly severity: RuleSeverity;
  readonly triggeredAt: string;
  readonly matchedConditions: readonly string[];
  readonly currentValues: Readonly<Record<string, number>>;
  readonly condition: string;
  readonly message: string;
  readonly deliveries: readonly DeliveryResult[];
}

export interface AlertFilter {
  readonly ruleId: number | null;
  readonly severity: RuleSeverity | null;
  /** Epoch ms: alerts triggered at or after it. */
  readonly since: number | null;
}

export interface StorageHandlers {
  /** Group commit: one statement for the whole batch; ids in input order. */
  insertEvents(input: {
    readonly events: readonly NewEvent[];
    /** The batcher's writer slot: concurrent batches add to different counter rows. */
    readonly shard: number;
  }): Promise<Result<readonly number[], DbFailure>>;
  listEvents(input: {
    readonly eventType: string | null;
    readonly page: number;
    readonly size: number;
  }): Promise<Result<EventPage, DbFailure>>;
  getEvent(input: { readonly id: number }): Promise<Result<EventRecord, DbFailure | 'NOT_FOUND'>>;
  ping(input: Record<string, never>): Promise<Result<true, DbFailure>>;

  createRule(input: {
    readonly rule: RuleFields;
  }): Promise<Result<RuleRecord, DbFailure | 'NAME_TAKEN'>>;
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

  /** Stores an alert and counts the trigger on its rule, atomically. */
  recordAlert(input: { readonly alert: FiredAlert }): Promise<Result<AlertRecord, DbFailure>>;
  recordDeliveries(input: {
    readonly id: number;
    readonly deliveries: readonly DeliveryResult[];
  }): Promise<Result<true, DbFailure>>;
  listAlerts(input: {
    readonly filter: AlertFilter;
    readonly page: number;
    readonly size: number;
  }): Promise<Result<{ readonly rows: readonly AlertRecord[]; readonly total: number }, DbFailure>>;
  /** ACTIVE rules (all, or those of `ids`) with their last hour of alert times, for the evaluator. */
  activeRules(input: {
    readonly now: number;
    readonly ids?: readonly number[];
  }): Promise<Result<readonly ActiveRule[], DbFailure>>;
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
}
