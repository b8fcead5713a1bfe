/**
 * @module Alert notifications (DESIGN 6), the public face of src/notify: deliverAlert and its
 * types, the DeliveryLimiter bounding them, and NotifyOptions built from the Config. Runs on the front thread.
 */
export type { AlertPayload, DeliveryResult } from '../domain/rules/alerts/alert.ts';
export {
  DROPPED_REASON,
  deliverAlert,
  type ContactPointLookup,
  type NotifyRule,
} from './deliver.ts';
export {
  createDeliveryLimiter,
  type DeliveryLimiter,
  type DeliveryLimits,
} from './delivery-limiter.ts';
export { isHostAllowed } from './host-allowed.ts';
export {
  NOTIFY_RETRY,
  notifyOptionsFrom,
  parseAllowedHosts,
  type NotifyConfig,
  type NotifyOptions,
} from './notify-options.ts';
