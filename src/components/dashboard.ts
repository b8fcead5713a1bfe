/**
 * @module The dashboard part: its files read and compressed on libuv's threads while the rest
 * starts, served at / once the app exists.
 */
import { loadDashboard, type Dashboard } from '../dashboard/assets.ts';
import { serveDashboard } from '../dashboard/serve.ts';
import type { OriginPolicy } from '../http/origins.ts';
import type { Logger } from '../log.ts';

export function startDashboardLoad(): Promise<Dashboard> {
  const load = loadDashboard();
  load.catch(() => undefined); // awaited by serveDashboardPart, unless an earlier step fails
  return load;
}

export async function serveDashboardPart(
  app: Parameters<typeof serveDashboard>[0],
  load: Promise<Dashboard>,
  log: Logger,
  origins: OriginPolicy,
): Promise<void> {
  const dashboard = await load;
  if (!dashboard.built) log.warn('the dashboard is not built (npm run build): / explains');
  serveDashboard(app, dashboard, log, origins);
}
