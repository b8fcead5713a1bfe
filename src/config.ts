/**
 * @module Configuration: every environment variable, its default and its meaning, parsed once
 * (typebox) and frozen. Nothing else reads process.env; threads get the parsed Config.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

const Int = (minimum: number, maximum: number, dflt: number, description: string) =>
  Type.Integer({ minimum, maximum, default: dflt, description });

export const ConfigSchema = Type.Object({
  PORT: Int(0, 65535, 8080, 'HTTP and WebSocket port (0 picks a free one).'),
  HOST: Type.String({ default: '0.0.0.0', description: 'Address the HTTP server binds to.' }),
  DATABASE_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      description:
        'PostgreSQL connection URL. Absent: an embedded PostgreSQL is started under VIGIL_DATA_DIR.',
    }),
  ),
  DATABASE_SCHEMA: Type.String({
    default: 'public',
    pattern: '^[a-z_][a-z0-9_]{0,62}$',
    description: 'Schema holding Vigil tables (created by the migrations when missing).',
  }),
  VIGIL_DATA_DIR: Type.String({
    default: './.vigil',
    description: 'Where the embedded PostgreSQL keeps its data (kept across restarts).',
  }),
  EMBEDDED_PG_PORT: Int(
    1,
    65535,
    54329,
    'Port of the embedded PostgreSQL (not 5432, which may be taken).',
  ),
  STORAGE_WORKERS: Int(
    1,
    64,
    2,
    'Storage worker threads, each with its own PostgreSQL connections.',
  ),
  DB_CONNECTIONS_PER_WORKER: Int(1, 32, 4, 'PostgreSQL connections per storage worker.'),
  DB_QUERY_TIMEOUT_MS: Int(100, 600000, 5000, 'A storage operation that takes longer fails (500).'),
  INGEST_BATCH_MAX: Int(1, 10000, 500, 'Most events written by one group-commit INSERT.'),
  INGEST_BATCH_WAIT_MS: Int(
    0,
    1000,
    2,
    'While a batch is being written, how long the next may wait for more events (0: one event-loop turn).',
  ),
  INGEST_QUEUE_MAX: Int(
    10000,
    10000000,
    20000,
    'Events accepted but not yet committed; beyond it: 503.',
  ),
  INGEST_QUEUE_MAX_BYTES: Int(
    1048576,
    17179869184,
    268435456,
    'Bytes of request bodies accepted but not yet committed; beyond it: 503.',
  ),
  IDEMPOTENCY_WINDOW_HOURS: Int(
    1,
    8760,
    24,
    'How long an idempotency key is remembered: a repeat within it stores nothing.',
  ),
  EVENTS_RETENTION_DAYS: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 36500,
      description:
        'Days of events kept: older partitions (days, months or years of timestamps) are dropped whole; unset: all kept.',
    }),
  ),
  ALERTS_RETENTION_DAYS: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 36500,
      description:
        'Days a resolved alert is kept (open incidents always are); unset: every alert is kept.',
    }),
  ),
  MAX_CONNECTIONS: Int(
    1,
    1000000,
    10000,
    'HTTP requests in progress plus authenticated STOMP sessions; beyond it: 503.',
  ),
  // Sockets before an accepted STOMP CONNECT: a pool of their own, so that opening sockets
  // without a key cannot take the places keyed requests need (issue 29).
  MAX_UNAUTH_SOCKETS: Int(
    1,
    1000000,
    512,
    'WebSockets open without an accepted STOMP CONNECT (outside MAX_CONNECTIONS); beyond it: 503.',
  ),
  MAX_UNAUTH_SOCKETS_PER_IP: Int(
    1,
    1000000,
    64,
    'Of those, from one remote address (IPv4 address or IPv6 /64); beyond it: 429.',
  ),
  EVENTS_MAX_FUTURE_HOURS: Int(
    1,
    876000,
    24,
    'How far ahead of the server clock an event timestamp may be; beyond it: 400.',
  ),
  MAX_RULES: Int(1, 1000000, 10000, 'Most rules stored, archived ones included; beyond it: 422.'),
  MAX_BODY_BYTES: Int(1024, 67108864, 1048576, 'Largest request body; larger: 413.'),
  BATCH_MAX_EVENTS: Int(
    1,
    10000,
    1000,
    'Most events in one POST /api/v1/events/batch (or CloudEvents batch), and log records in one POST /v1/logs.',
  ),
  OTLP_EVENT_TYPE_ATTRIBUTE: Type.Optional(
    Type.String({
      pattern: '^\\S{1,255}$',
      description:
        'POST /v1/logs: the log record attribute naming the event type when a record has neither eventName nor event.name; unset: the scope name.',
    }),
  ),
  METRICS_BROADCAST_MS: Int(100, 60000, 1000, 'Period of the /topic/metrics STOMP broadcast.'),
  METRICS_REFRESH_MS: Int(
    50,
    1000,
    250,
    'How often the metrics actor recomputes the snapshot that GET /api/v1/metrics serves.',
  ),
  RULE_EVALUATION_MS: Int(
    100,
    60000,
    1000,
    'How often the ACTIVE rules are evaluated against the live metrics.',
  ),
  BACKTEST_TIME_BUDGET_MS: Int(
    1,
    600000,
    30000,
    'Time one backtest may take; past it the answer says what was done, truncated.',
  ),
  BACKTEST_MAX_RUNNING: Int(
    1,
    64,
    3,
    'Backtests running at once, READS_ADMIN_RESERVED of them for admin keys only; more: 503.',
  ),
  BACKTEST_MAX_PER_KEY: Int(1, 64, 1, 'Backtests one API key may run at once; more: 429.'),
  READS_WORKERS: Int(
    1,
    16,
    1,
    'Threads of each reads pool (one replays PATTERN rule tests, one reads event pages): apart from the storage workers.',
  ),
  READS_CONNECTIONS_PER_WORKER: Int(
    1,
    32,
    4,
    'PostgreSQL connections per thread of each reads pool, apart from those of the storage workers.',
  ),
  RULE_TEST_MAX_RUNNING: Int(
    1,
    64,
    3,
    'PATTERN rule tests replaying stored events at once, READS_ADMIN_RESERVED for admin keys; more: 503.',
  ),
  RULE_TEST_MAX_PER_KEY: Int(
    1,
    64,
    1,
    'PATTERN rule tests with a replay one API key may run at once; more: 429.',
  ),
  EVENT_PAGES_MAX_RUNNING: Int(
    1,
    256,
    8,
    'Event pages (GET /api/v1/events...) read at once, READS_ADMIN_RESERVED for admin keys; more: 503.',
  ),
  EVENT_PAGES_MAX_PER_KEY: Int(1, 256, 4, 'Event pages one API key may read at once; more: 429.'),
  EVENT_EXPORT_MAX_ROWS: Int(
    1,
    100_000_000,
    1_000_000,
    'Most rows one GET /api/v1/events/export streams; a larger limit is reduced to it.',
  ),
  EVENT_SEARCH_COUNT_MS: Int(
    1,
    60_000,
    100,
    'How long a filtered GET /api/v1/events counts its total before it answers an estimate.',
  ),
  STOMP_TAIL_MAX_PER_SECOND: Int(
    1,
    100_000,
    200,
    'Events per second one /topic/events subscription gets; beyond it they are dropped and counted.',
  ),
  HEALTH_CACHE_MS: Int(
    0,
    60000,
    1000,
    'How long the public health check reuses its last database probe (concurrent calls share one).',
  ),
  READS_ADMIN_RESERVED: Int(
    0,
    64,
    1,
    'Of each *_MAX_RUNNING above, how many only admin keys may take (read keys cannot lock them out).',
  ),
  EVALUATION_CPU_STATS: Type.Boolean({
    default: false,
    description:
      "Also measure each rule evaluation's time on a CPU (Linux scheduler statistics): onCpu of GET /api/v1/rules/evaluation-stats; off: null.",
  }),
  INGEST_STAGE_TIMINGS: Type.Boolean({
    default: false,
    description:
      'Time each single-event ingest stage (queue, batch wait, hand-off, statement, COMMIT, answer): GET /api/v1/ingest-stages. Each batch then runs in an explicit transaction.',
  }),
  METRICS_MAX_EVENT_TYPES: Int(
    1,
    1000000,
    1000,
    'Event types counted by name; further new types count under (other).',
  ),
  METRICS_MAX_SOURCES: Int(
    1,
    1000000,
    1000,
    'Sources counted by name; further new sources count under (other).',
  ),
  METRICS_CHECKPOINT_SECONDS: Int(
    0,
    3600,
    10,
    'Period of the metrics checkpoint to PostgreSQL (also written at stop and reset); 0: only then.',
  ),
  METRICS_MAX_TRACKED_USERS: Int(
    10,
    10000000,
    100000,
    'Users tracked one by one (topUsers, exact uniqueUsers); past it uniqueUsers is estimated.',
  ),
  SMTP_URL: Type.Optional(
    Type.String({
      pattern: '^smtps?://',
      description:
        'SMTP server for email alerts (smtp:// or smtps://). Absent: email deliveries fail, saying so.',
    }),
  ),
  NOTIFY_ALLOWED_HOSTS: Type.String({
    default: '',
    description:
      'Comma-separated hosts webhook and Slack alerts may reach (name or *.suffix); empty: any host.',
  }),
  NOTIFY_ALLOW_PRIVATE: Type.Boolean({
    default: false,
    description:
      'Let webhook and Slack alerts reach loopback, private, link-local and other non-public addresses.',
  }),
  NOTIFY_CONCURRENCY: Int(1, 1024, 32, 'Most notification deliveries in flight at once.'),
  NOTIFY_QUEUE_MAX: Int(
    0,
    100000,
    1000,
    'Most deliveries waiting for a slot; further ones are dropped, counted and logged.',
  ),
  NOTIFY_TIMEOUT_MS: Int(100, 120000, 5000, 'Timeout of one notification attempt.'),
  NOTIFY_FROM: Type.String({
    default: 'vigil@localhost',
    description: 'From address of alert emails.',
  }),
  VIGIL_AUTH: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'on',
    description:
      "API keys required ('on'); 'off' opens every route to anyone, for local development only.",
  }),
  VIGIL_BOOTSTRAP_ADMIN_KEY: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9_-]{32,256}$',
      description:
        'An admin key accepted as given (32-256 of A-Z a-z 0-9 _ -), for scripts, CI and containers.',
    }),
  ),
  VIGIL_KEY_SECRET: Type.Optional(
    Type.String({
      minLength: 32,
      maxLength: 1024,
      description:
        'Secret keying the stored API key hashes; unset: made once in VIGIL_DATA_DIR/key-secret.',
    }),
  ),
  VIGIL_ALLOWED_ORIGINS: Type.String({
    default: '',
    description:
      "Comma-separated browser origins allowed by CORS and on /ws, besides the service's own.",
  }),
  METRICS_SCRAPE_TOKEN: Type.Optional(
    Type.String({
      pattern: '^\\S{32,1024}$',
      description:
        'A token Prometheus may send as Authorization: Bearer to read GET /metrics (32+ characters, no spaces); unset: a read key only.',
    }),
  ),
  RATE_LIMIT_INGEST_PER_SECOND: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      maximum: 10000000,
      description: 'Default events/s of an ingest key created without its own limit; unset: none.',
    }),
  ),
  RATE_LIMIT_REQUESTS_PER_SECOND: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      maximum: 10000000,
      description:
        'Default requests/s of a read or admin key created without a limit; unset: none.',
    }),
  ),
  NATS_URL: Type.Optional(
    Type.String({
      pattern: '^(nats|tls)://',
      description:
        'NATS server (JetStream on) joining the instances that share DATABASE_URL; unset: one instance.',
    }),
  ),
  VIGIL_INSTANCE_ID: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9_-]{1,64}$',
      description:
        'This instance in a cluster; unset: kept in VIGIL_DATA_DIR/instance-id, else <host>-<PORT>.',
    }),
  ),
  VIGIL_CLUSTER: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9_-]{1,64}$',
      description:
        'Names the NATS stream and subjects; unset: derived from the database (host, port, name) and schema.',
    }),
  ),
  NATS_STREAM_MAX_BYTES: Int(
    1048576,
    1099511627776,
    1073741824,
    "Cap of the cluster's JetStream stream of committed batches (oldest dropped past it).",
  ),
  LEASE_TTL_MS: Int(
    2000,
    60000,
    5000,
    "Cluster mode: how long the rule leader's lease lasts unrenewed before another instance may take it over.",
  ),
  LEASE_RENEW_MS: Int(
    100,
    10000,
    1000,
    'Cluster mode: how often the rule leader renews its lease (and the others try to take it).',
  ),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info', description: 'pino log level.' },
  ),
  SHUTDOWN_GRACE_MS: Int(
    0,
    600000,
    10000,
    'How long SIGTERM waits for in-flight work before forcing exit 1.',
  ),
});

export type Config = Readonly<Static<typeof ConfigSchema>>;

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Variables that may hold a credential, by name so a new one is covered without a list to keep:
 * URLs (user:password@), keys, secrets, tokens, passwords. Their values are never echoed.
 */
export const mayHoldSecret = (name: string): boolean =>
  /(_URL|_KEY|_SECRET|_TOKEN|PASSWORD)$/.test(name);

/** `NAME=value`, or just `NAME` when the value may be a credential. */
const named = (name: string, value: unknown): string =>
  mayHoldSecret(name) ? name : `${name}=${JSON.stringify(value ?? null)}`;

/** Parses the environment; throws ConfigError naming every bad variable at once. */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const known = Object.keys(ConfigSchema.properties);
  const raw: Record<string, unknown> = {};
  for (const key of known) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const withDefaults = Value.Default(ConfigSchema, Value.Convert(ConfigSchema, raw));
  const problems = [...Value.Errors(ConfigSchema, withDefaults)].map(
    (e) => `${named(e.path.slice(1), raw[e.path.slice(1)])}: ${e.message}`,
  );
  if (problems.length > 0) throw new ConfigError(problems);
  const config = withDefaults as Static<typeof ConfigSchema>;
  // A body larger than the whole queue would be accepted only when nothing else waits: under load,
  // never. Said at start rather than found as endless 503s.
  if (config.MAX_BODY_BYTES > config.INGEST_QUEUE_MAX_BYTES) {
    throw new ConfigError([
      `MAX_BODY_BYTES (${config.MAX_BODY_BYTES}) must not exceed INGEST_QUEUE_MAX_BYTES (${config.INGEST_QUEUE_MAX_BYTES})`,
    ]);
  }
  // Instances share their committed batches and PostgreSQL is their only durable store: each
  // one's own embedded database would leave the others' batches without a home.
  if (config.NATS_URL !== undefined && config.DATABASE_URL === undefined) {
    throw new ConfigError([
      'NATS_URL needs DATABASE_URL: the instances of a cluster share one PostgreSQL',
    ]);
  }
  // The leader stops evaluating LEASE_RENEW_MS before its lease can expire: two renewals at least
  // must fit in a lease, or one late answer would pause evaluation.
  if (config.LEASE_RENEW_MS * 2 > config.LEASE_TTL_MS) {
    throw new ConfigError([
      `LEASE_RENEW_MS (${config.LEASE_RENEW_MS}) must be at most half of LEASE_TTL_MS (${config.LEASE_TTL_MS})`,
    ]);
  }
  // `vgl_` marks the keys Vigil makes (scope and checksum): a bootstrap key shaped so would be
  // refused as mistyped on every request. Its value is a secret: not quoted.
  if (config.VIGIL_BOOTSTRAP_ADMIN_KEY?.startsWith('vgl_') === true) {
    throw new ConfigError([
      'VIGIL_BOOTSTRAP_ADMIN_KEY must not start with vgl_ (the prefix of the keys Vigil makes, ' +
        'which carry a checksum): choose another value, e.g. `openssl rand -hex 32`',
    ]);
  }
  // A reserve as large as a bound would leave read keys no slot at all: a mistake, said at start.
  const bounds = [
    'BACKTEST_MAX_RUNNING',
    'RULE_TEST_MAX_RUNNING',
    'EVENT_PAGES_MAX_RUNNING',
  ] as const;
  const tooSmall = bounds.filter((name) => config[name] <= config.READS_ADMIN_RESERVED);
  if (tooSmall.length > 0) {
    throw new ConfigError(
      tooSmall.map(
        (name) =>
          `${name} (${config[name]}) must exceed READS_ADMIN_RESERVED (${config.READS_ADMIN_RESERVED})`,
      ),
    );
  }
  return Object.freeze(config);
}
