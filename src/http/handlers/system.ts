/**
 * @module Health and status endpoints (spec 4.1, DESIGN 8): health is UP only when the database
 * answers within the query timeout (one probe shared by concurrent callers, its answer reused for
 * HEALTH_CACHE_MS).
 */
import type { StoragePool } from '../../actors/storage-pool.ts';
import { HealthSchema, ServiceInfoSchema } from '../../schemas/event-responses.ts';
import { SERVICE_NAME, SERVICE_VERSION } from '../../version.ts';
import type { HealthAnswer, HealthCheck } from '../health-check.ts';
import type { Reply } from '../reply.ts';
import type { Route } from '../route-types.ts';

export interface SystemDeps {
  /** The shared, briefly cached database probe (src/http/health-check.ts). */
  readonly health: HealthCheck;
  /** VIGIL_AUTH, shown by the status endpoint so that an open service says so. */
  readonly authentication: 'on' | 'off';
}

/** One probe of the database through the pool, within the query timeout; never rejects. */
export async function pingDatabase(pool: StoragePool, timeoutMs: number): Promise<HealthAnswer> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('database did not answer in time'), timeoutMs);
  });
  const ping = pool.run('ping', {}).then(
    (r) => (r.ok ? null : r.message),
    (error: unknown) => (error instanceof Error ? error.message : 'storage unavailable'),
  );
  return Promise.race([ping, timeout]).finally(() => clearTimeout(timer));
}

async function health(deps: SystemDeps): Promise<Reply> {
  const timestamp = String(Date.now());
  const reason = await deps.health.check();
  return reason === null
    ? { status: 200, body: { status: 'UP', timestamp } }
    : { status: 503, body: { status: 'DOWN', timestamp, reason } };
}

export const systemRoutes = (deps: SystemDeps): Route[] => [
  {
    method: 'GET',
    path: '/api/v1/events/health',
    scope: 'public',
    body: 'none',
    doc: {
      summary: 'UP when the database answers, else 503 DOWN with the reason',
      responses: { 200: HealthSchema, 503: HealthSchema },
    },
    handle: () => health(deps),
  },
  {
    method: 'GET',
    path: '/api/v1/events/test',
    scope: 'public',
    body: 'none',
    doc: {
      summary: 'Service name and version, and whether API keys are required',
      responses: { 200: ServiceInfoSchema },
    },
    handle: () => ({
      status: 200,
      body: {
        status: 'running',
        service: SERVICE_NAME,
        version: SERVICE_VERSION,
        authentication: deps.authentication,
      },
    }),
  },
];
