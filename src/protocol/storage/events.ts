/** @module The storage pool's reads of stored events (pages, one event, newest, replays). */
import type { EventPage, EventRecord } from '../../domain/event.ts';
import type { KeyLookup, NewestEvents } from '../../domain/metrics/state/last-event-times.ts';
import type { BackfillRequest } from '../../domain/rules/kinds/anomaly/anomaly-rules.ts';
import type { PatternConfig } from '../../domain/rules/kinds/pattern/pattern-config.ts';
import type { PatternReplay } from '../../domain/rules/kinds/pattern/pattern-replay.ts';
import type { DbFailure, Result } from './result.ts';

export interface EventReadHandlers {
  /**
   * Receipt times of the newest stored event, and of the newest of each type and source asked
   * (newest-events-repository.ts says how far it looks).
   */
  newestEvents(input: KeyLookup): Promise<Result<NewestEvents, DbFailure>>;
  /** An ANOMALY series' bucket values from the stored events, oldest first (its back-fill). */
  anomalyHistory(input: BackfillRequest): Promise<Result<readonly number[], DbFailure>>;
  /**
   * The PATTERN rule test: the stored events of the REPLAY_MINUTES before `now` replayed through
   * the rule's matcher (pattern-replay.ts).
   */
  replayPattern(input: {
    readonly config: PatternConfig;
    readonly now: number;
  }): Promise<Result<PatternReplay, DbFailure>>;
  listEvents(input: {
    readonly eventType: string | null;
    readonly page: number;
    readonly size: number;
  }): Promise<Result<EventPage, DbFailure>>;
  getEvent(input: { readonly id: number }): Promise<Result<EventRecord, DbFailure | 'NOT_FOUND'>>;
}
