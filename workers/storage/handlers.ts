/**
 * @module The storage worker's one table of handlers: every area's (one file each, next to this
 * one), joined. Typed as StorageHandlerTable, so that the compiler refuses a table that misses an
 * operation of src/protocol/storage/ or handles one with other input or result types; each area
 * is held to its own interface in the same way (AreaTable), so none can add an operation either.
 */
import type { StorageHandlerTable } from '../../src/protocol/storage/index.ts';
import { alertHandlers } from './alerts.ts';
import { apiKeyHandlers } from './api-keys.ts';
import { clusterHandlers } from './cluster.ts';
import { contactPointHandlers } from './contact-points.ts';
import type { StorageContext } from './context.ts';
import { eventReadHandlers } from './events.ts';
import { ingestHandlers, type IngestDeps } from './ingest.ts';
import { maintenanceHandlers } from './maintenance.ts';
import { ruleHandlers } from './rules.ts';
import { silenceHandlers } from './silences.ts';

export const storageHandlers = (
  context: StorageContext,
  ingest: IngestDeps,
): StorageHandlerTable => ({
  ...ingestHandlers(context, ingest),
  ...eventReadHandlers(context),
  ...maintenanceHandlers(context),
  ...ruleHandlers(context),
  ...alertHandlers(context),
  ...apiKeyHandlers(context),
  ...clusterHandlers(context),
  ...contactPointHandlers(context),
  ...silenceHandlers(context),
});
