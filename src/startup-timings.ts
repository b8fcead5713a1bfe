/**
 * @module Where start-up time goes (main thread): named phases timed one after another, the rest
 * counted as `other`, for the "vigil listening" log line.
 */

export type StartupPhase = 'postgres' | 'migrations' | 'threads' | 'assets';

export interface StartupTimings {
  /** Counts the time since the previous lap (or the start) towards `phase`. */
  lap(phase: StartupPhase): void;
  /** Skips the time since the previous lap: it goes to `other`. */
  skip(): void;
  /** Total ms since the start, and per phase (rounded); `other` is what no phase claimed. */
  report(): { startupMs: number; phasesMs: Record<StartupPhase | 'other', number> };
}

export function startupTimings(now: () => number = () => performance.now()): StartupTimings {
  const start = now();
  let last = start;
  const phases: Record<StartupPhase, number> = {
    postgres: 0,
    migrations: 0,
    threads: 0,
    assets: 0,
  };
  return {
    lap(phase) {
      const at = now();
      phases[phase] += at - last;
      last = at;
    },
    skip() {
      last = now();
    },
    report() {
      const total = now() - start;
      const claimed = Object.values(phases).reduce((a, b) => a + b, 0);
      const round = (ms: number): number => Math.round(ms);
      return {
        startupMs: round(total),
        phasesMs: {
          postgres: round(phases.postgres),
          migrations: round(phases.migrations),
          threads: round(phases.threads),
          assets: round(phases.assets),
          other: round(total - claimed),
        },
      };
    },
  };
}
