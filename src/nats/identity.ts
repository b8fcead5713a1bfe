/**
 * @module Who this instance is in cluster mode (main thread, at start), and which cluster it is in.
 *
 * The instance id names its subjects and its outbox rows, so it must be stable across restarts
 * (a restarted instance's unpublished rows are then its own orphans, relayed at once) and unique
 * among live instances (the database refuses a second live holder). In order:
 * 1. VIGIL_INSTANCE_ID, as given;
 * 2. else `<VIGIL_DATA_DIR>/instance-id`, made once as `<host>-<8 random hex>`: stable for as long
 *    as the data directory is kept (a container's volume);
 * 3. else, when the data directory cannot be written (a read-only container without a volume),
 *    `<host>-<PORT>`: stable across restarts on the same host and port.
 *
 * The cluster name prefixes the stream, its subjects and its consumers. By default it is derived
 * from the database's host, port and name and the schema, so two deployments on one NATS server
 * (staging and production, two schemas of one database) never read each other's batches.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { readSecretFile, writeSecretFile } from '../secret-file.ts';

export interface ClusterIdentity {
  readonly instanceId: string;
  readonly cluster: string;
}

/** Instance ids and cluster names are one NATS subject token: no dot, space, `*` or `>`. */
export const NAME_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

const token = (text: string): string => text.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 40);

export const instanceIdFile = (dataDir: string): string => path.join(dataDir, 'instance-id');

/** `vigil_<12 hex>` of the database's host, port, name and the schema (never its credentials). */
export function defaultClusterName(databaseUrl: string, schema: string): string {
  const url = new URL(databaseUrl);
  const where = `${url.hostname}:${url.port || '5432'}${url.pathname}#${schema}`;
  return `vigil_${createHash('sha256').update(where).digest('hex').slice(0, 12)}`;
}

export async function resolveIdentity(
  config: Config,
  databaseUrl: string,
  log: Logger,
): Promise<ClusterIdentity> {
  const cluster = config.VIGIL_CLUSTER ?? defaultClusterName(databaseUrl, config.DATABASE_SCHEMA);
  return { instanceId: await resolveInstanceId(config, log), cluster };
}

async function resolveInstanceId(config: Config, log: Logger): Promise<string> {
  if (config.VIGIL_INSTANCE_ID !== undefined) return config.VIGIL_INSTANCE_ID;
  const file = instanceIdFile(config.VIGIL_DATA_DIR);
  try {
    const kept = await readSecretFile(file);
    if (kept !== null && new RegExp(NAME_PATTERN).test(kept)) return kept;
    if (kept !== null) throw new Error(`${file} does not hold an instance id (${NAME_PATTERN})`);
    await mkdir(config.VIGIL_DATA_DIR, { recursive: true, mode: 0o755 });
    const id = `${token(hostname())}-${randomBytes(4).toString('hex')}`;
    await writeSecretFile(file, id);
    log.info({ file, instanceId: id }, 'made this instance id');
    return id;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EROFS' && code !== 'EPERM') throw error;
    const id = `${token(hostname())}-${config.PORT === 0 ? `pid${process.pid}` : config.PORT}`;
    log.warn(
      { file, instanceId: id },
      'the data directory cannot be written: the instance id is derived from host and port',
    );
    return id;
  }
}
