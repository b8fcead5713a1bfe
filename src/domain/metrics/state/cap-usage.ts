/**
 * @module How full the metrics caps are (issue 29): the snapshot's `limits` and the Prometheus
 * counter of cap fills. Fills are carried across resets (a reset makes a new state), so the
 * counter only grows while the process lives.
 */
import type { CapUsage } from './key-registry.ts';
import type { MetricsState } from './metrics-state.ts';

/** The tracked-user cap: users are never named by a rule, so none is outside it. */
export type UserCapUsage = Omit<CapUsage, 'watched'>;

/** The snapshot's `limits`: plain data. */
export interface MetricsCapsUsage {
  readonly eventTypes: CapUsage;
  readonly sources: CapUsage;
  readonly users: UserCapUsage;
}

export type CapName = keyof MetricsCapsUsage;
export const CAP_NAMES: readonly CapName[] = ['eventTypes', 'sources', 'users'];

/** The fills of the states before the current one (each reset adds its state's). */
export class CarriedFills {
  private readonly carried: Record<CapName, number> = { eventTypes: 0, sources: 0, users: 0 };

  /** A state is being replaced (reset): its fills stay counted. */
  carry(state: MetricsState): void {
    const now = currentUsage(state, null);
    for (const name of CAP_NAMES) this.carried[name] += now[name].fills;
  }

  usage(state: MetricsState): MetricsCapsUsage {
    return currentUsage(state, this.carried);
  }
}

function currentUsage(
  state: MetricsState,
  carried: Readonly<Record<CapName, number>> | null,
): MetricsCapsUsage {
  const types = state.types.usage();
  const sources = state.sources.usage();
  const { users } = state;
  return {
    eventTypes: { ...types, fills: types.fills + (carried?.eventTypes ?? 0) },
    sources: { ...sources, fills: sources.fills + (carried?.sources ?? 0) },
    users: {
      cap: users.cap,
      used: users.tracked,
      overflowed: users.overflowed,
      fills: users.fills + (carried?.users ?? 0),
    },
  };
}
