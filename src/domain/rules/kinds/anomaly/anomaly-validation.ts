/**
 * @module Validates an ANOMALY ruleConfig: every key checked, every problem named with why (and a
 * did-you-mean for a misspelt key or value), defaults applied; the normalised AnomalyConfig out.
 */
import {
  LIFECYCLE_KEYS,
  MAX_LIFECYCLE_SECONDS,
  type LifecycleKeys,
} from '../../alerts/lifecycle-keys.ts';
import { suggest } from '../../../suggest.ts';
import {
  ANOMALY_ALGORITHMS,
  ANOMALY_DEFAULTS,
  ANOMALY_KEYS,
  ANOMALY_METRICS,
  BUCKET_MINUTES,
  DIRECTIONS,
  FILTERABLE_METRICS,
  MAX_ALERT_WINDOW_BUCKETS,
  MAX_BOUNDS,
  MAX_HISTORY_MINUTES,
  MAX_SEASON_SLOTS,
  SEASONALITIES,
  SEASON_MINUTES,
  defaultHistoryMinutes,
  type AnomalyConfig,
} from './anomaly-config.ts';
import { timezoneProblem } from './timezone.ts';

export type AnomalyValidation =
  | { readonly ok: true; readonly config: AnomalyConfig }
  | { readonly ok: false; readonly errors: readonly string[] };

/** Keys of other grammars (the research note's, THRESHOLD's) mapped to what ANOMALY calls them. */
const KEY_ALIASES: Readonly<Record<string, string>> = {
  bucket: 'bucketMinutes',
  alertWindow: 'alertWindowMinutes',
  windowMinutes: 'alertWindowMinutes',
  threshold: 'minFraction',
  minHistory: 'minHistoryMinutes',
  season: 'seasonality',
  timeZone: 'timezone',
  tz: 'timezone',
};
/** Metric names of THRESHOLD rules people carry over, mapped to the ANOMALY metric they mean. */
const METRIC_ALIASES: Readonly<Record<string, string>> = {
  totalEvents: 'eventRate',
  eventsPerSecond: 'eventRate',
  eventsByType: 'eventRate',
  eventsBySource: 'eventRate',
  count: 'eventRate',
};

const MAX_KEY_CHARACTERS = 255;
const KNOWN_KEYS: readonly string[] = [...ANOMALY_KEYS, ...LIFECYCLE_KEYS];

/** A value as a message shows it: JSON cut short, objects and arrays by kind. */
function shown(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  // undefined, functions and symbols have no JSON: never in a parsed body, but typed as possible.
  const text = JSON.stringify(value) ?? typeof value;
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Reads one config object key by key, collecting every problem. */
class AnomalyReader {
  readonly errors: string[] = [];
  constructor(private readonly raw: Readonly<Record<string, unknown>>) {}

  has(key: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.raw, key);
  }

  fail(message: string): undefined {
    this.errors.push(message);
    return undefined;
  }

  unknownKeys(): void {
    for (const key of Object.keys(this.raw)) {
      if (KNOWN_KEYS.includes(key)) continue;
      if (key === 'filter') {
        this.fail(
          `Unknown property 'filter': set eventType or source on the top level of ruleConfig`,
        );
        continue;
      }
      const close = KEY_ALIASES[key] ?? suggest(key, KNOWN_KEYS);
      this.fail(
        close === null
          ? `Unknown property '${key}'. ANOMALY keys are ${KNOWN_KEYS.join(', ')}`
          : `Unknown property '${key}'. Did you mean '${close}'?`,
      );
    }
  }

  /** One of `values`, with a did-you-mean; `fallback` when absent (undefined: required). */
  choice<T extends string>(
    key: string,
    values: readonly T[],
    fallback: T | undefined,
    aliases: Readonly<Record<string, string>> = {},
  ): T | undefined {
    if (!this.has(key)) {
      return (
        fallback ?? this.fail(`Missing required property '${key}': one of ${values.join(', ')}`)
      );
    }
    const value = this.raw[key];
    if (typeof value !== 'string') {
      return this.fail(
        `Property '${key}' must be a string (one of ${values.join(', ')}), got ${shown(value)}`,
      );
    }
    if ((values as readonly string[]).includes(value)) return value as T;
    const close = aliases[value] ?? suggest(value, values);
    return this.fail(
      close === null
        ? `Invalid ${key} ${shown(value)}: must be one of ${values.join(', ')}`
        : `Invalid ${key} ${shown(value)}. Did you mean '${close}'?`,
    );
  }

  /** A finite number in [min, max] (`integer`: a whole one); `fallback` when absent. */
  number(
    key: string,
    fallback: number,
    min: number,
    max: number,
    options: { integer?: boolean; above?: boolean; why?: string } = {},
  ): number | undefined {
    if (!this.has(key)) return fallback;
    const value = this.raw[key];
    const kind = options.integer === true ? 'an integer' : 'a number';
    const range =
      options.above === true ? `above ${min} and at most ${max}` : `from ${min} to ${max}`;
    const why = options.why === undefined ? '' : ` (${options.why})`;
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      (options.integer === true && !Number.isInteger(value)) ||
      (options.above === true ? value <= min : value < min) ||
      value > max
    ) {
      return this.fail(`Invalid ${key} ${shown(value)}: must be ${kind} ${range}${why}`);
    }
    return value + 0;
  }

  /** A non-empty key of the filter, absent when not given. */
  filterKey(key: 'eventType' | 'source'): string | undefined {
    if (!this.has(key)) return undefined;
    const value = this.raw[key];
    if (typeof value !== 'string' || value === '' || value.length > MAX_KEY_CHARACTERS) {
      return this.fail(
        `Invalid ${key} ${shown(value)}: must be a non-empty string of at most ${MAX_KEY_CHARACTERS} characters`,
      );
    }
    return value;
  }

  /** One of BUCKET_MINUTES; a number outside them is answered with the nearest allowed one. */
  bucketMinutes(): number | undefined {
    if (!this.has('bucketMinutes')) return ANOMALY_DEFAULTS.bucketMinutes;
    const value = this.raw['bucketMinutes'];
    const allowed: readonly number[] = BUCKET_MINUTES;
    if (typeof value === 'number' && allowed.includes(value)) return value;
    const why = `must be one of ${allowed.join(', ')} (divisors of an hour, so that buckets start on local hours)`;
    if (typeof value !== 'number' || !Number.isFinite(value))
      return this.fail(`Invalid bucketMinutes ${shown(value)}: ${why}`);
    const nearest = allowed.reduce((a, b) => (Math.abs(b - value) < Math.abs(a - value) ? b : a));
    return this.fail(`Invalid bucketMinutes ${shown(value)}: ${why}. Did you mean ${nearest}?`);
  }

  lifecycle(): LifecycleKeys {
    const out: { pendingSeconds?: number; keepFiringSeconds?: number } = {};
    for (const key of LIFECYCLE_KEYS) {
      if (!this.has(key)) continue;
      const value = this.number(key, 0, 0, MAX_LIFECYCLE_SECONDS, { integer: true });
      if (value !== undefined) out[key] = value;
    }
    return out;
  }
}

/** Validates an ANOMALY ruleConfig (a plain object: the caller checked that). */
export function validateAnomalyConfig(raw: Readonly<Record<string, unknown>>): AnomalyValidation {
  const r = new AnomalyReader(raw);
  r.unknownKeys();
  const metric = r.choice('metric', ANOMALY_METRICS, undefined, METRIC_ALIASES);
  const eventType = r.filterKey('eventType');
  const source = r.filterKey('source');
  if (metric !== undefined && (eventType !== undefined || source !== undefined)) {
    if (!FILTERABLE_METRICS.includes(metric)) {
      r.fail(
        `${metric} is read over all events: eventType and source filter only ${FILTERABLE_METRICS.join(' and ')} (the live buckets keep latency and users per minute, not per type or source)`,
      );
    } else if (eventType !== undefined && source !== undefined) {
      r.fail(
        'Set eventType or source, not both: the live minute buckets count events per type and per source, not per pair',
      );
    }
  }
  const bucket = r.bucketMinutes();
  const algorithm = r.choice('algorithm', ANOMALY_ALGORITHMS, ANOMALY_DEFAULTS.algorithm, {
    agile: 'robust',
    mad: 'robust',
    median: 'robust',
    ewma: 'basic',
    zscore: 'basic',
    daily: 'seasonal',
    weekly: 'seasonal',
  });
  const seasonal = algorithm === 'seasonal';
  for (const key of ['seasonality', 'timezone'] as const) {
    if (!seasonal && r.has(key) && algorithm !== undefined)
      r.fail(`${key} applies to the seasonal algorithm only, not to ${algorithm}`);
  }
  const seasonality = seasonal
    ? r.choice('seasonality', SEASONALITIES, ANOMALY_DEFAULTS.seasonality, { hourly: 'daily' })
    : undefined;
  let timezone: string | undefined;
  if (seasonal) {
    const value = r.has('timezone') ? raw['timezone'] : ANOMALY_DEFAULTS.timezone;
    const problem = timezoneProblem(value);
    if (problem === null) timezone = value as string;
    else r.fail(problem);
  }
  if (seasonality !== undefined && bucket !== undefined) {
    const slots = SEASON_MINUTES[seasonality] / bucket;
    if (slots > MAX_SEASON_SLOTS) {
      r.fail(
        `A ${seasonality} season of ${bucket}-minute buckets has ${slots} slots, more than the ${MAX_SEASON_SLOTS} a series may hold: use bucketMinutes of at least ${SEASON_MINUTES[seasonality] / MAX_SEASON_SLOTS}`,
      );
    }
  }
  const bounds = r.number('bounds', ANOMALY_DEFAULTS.bounds, 0, MAX_BOUNDS, {
    above: true,
    why: 'the band is expected ± bounds robust standard deviations',
  });
  const direction = r.choice('direction', DIRECTIONS, ANOMALY_DEFAULTS.direction, {
    up: 'above',
    high: 'above',
    down: 'below',
    low: 'below',
    either: 'both',
  });
  const b = bucket ?? ANOMALY_DEFAULTS.bucketMinutes;
  let alertWindowMinutes = r.number('alertWindowMinutes', 3 * b, b, MAX_ALERT_WINDOW_BUCKETS * b, {
    integer: true,
    why: `from one to ${MAX_ALERT_WINDOW_BUCKETS} buckets of ${b} minutes`,
  });
  if (alertWindowMinutes !== undefined && bucket !== undefined && alertWindowMinutes % b !== 0) {
    alertWindowMinutes = r.fail(
      `Invalid alertWindowMinutes ${alertWindowMinutes}: must be a whole number of ${b}-minute buckets, e.g. ${Math.max(1, Math.round(alertWindowMinutes / b)) * b}`,
    );
  }
  const minFraction = r.number('minFraction', ANOMALY_DEFAULTS.minFraction, 0, 1, {
    above: true,
    why: 'the share of the alert window’s buckets that must lie outside the band',
  });
  const minExpected = r.number('minExpected', ANOMALY_DEFAULTS.minExpected, 0, Number.MAX_VALUE);
  const minDeviation = r.number('minDeviation', ANOMALY_DEFAULTS.minDeviation, 0, Number.MAX_VALUE);
  const minHistoryMinutes = r.number(
    'minHistoryMinutes',
    defaultHistoryMinutes(algorithm ?? 'robust', b, seasonality),
    0,
    MAX_HISTORY_MINUTES,
    { integer: true, why: 'at most 21 days are back-filled from stored events' },
  );
  const lifecycle = r.lifecycle();
  if (
    r.errors.length > 0 ||
    metric === undefined ||
    bucket === undefined ||
    algorithm === undefined ||
    bounds === undefined ||
    direction === undefined ||
    alertWindowMinutes === undefined ||
    minFraction === undefined ||
    minExpected === undefined ||
    minDeviation === undefined ||
    minHistoryMinutes === undefined
  ) {
    return { ok: false, errors: r.errors };
  }
  return {
    ok: true,
    config: {
      metric,
      ...(eventType === undefined ? {} : { eventType }),
      ...(source === undefined ? {} : { source }),
      bucketMinutes: bucket,
      algorithm,
      ...(seasonality === undefined ? {} : { seasonality }),
      ...(timezone === undefined ? {} : { timezone }),
      bounds,
      direction,
      alertWindowMinutes,
      minFraction,
      minExpected,
      minDeviation,
      minHistoryMinutes,
      ...lifecycle,
    },
  };
}
