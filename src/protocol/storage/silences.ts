/** @module The storage pool's silence operations. */
import type {
  SilenceEnding,
  SilenceFields,
  SilenceFilter,
  SilenceRecord,
} from '../../domain/silences/silence.ts';
import type { DbFailure, Result } from './result.ts';

export interface SilenceHandlers {
  /**
   * Refused with UNKNOWN_RULE when `ruleId` names no rule, with SILENCE_LIMIT when `maxOpen`
   * silences are not expired at `now` (epoch ms, the request's time).
   */
  createSilence(input: {
    readonly fields: SilenceFields;
    readonly now: number;
    readonly maxOpen: number;
  }): Promise<Result<SilenceRecord, DbFailure | 'UNKNOWN_RULE' | 'SILENCE_LIMIT'>>;
  getSilence(input: {
    readonly id: number;
  }): Promise<Result<SilenceRecord, DbFailure | 'NOT_FOUND'>>;
  /** Newest first; the state filter is taken at `now`. */
  listSilences(input: {
    readonly filter: SilenceFilter;
    readonly now: number;
    readonly page: number;
    readonly size: number;
  }): Promise<
    Result<{ readonly rows: readonly SilenceRecord[]; readonly total: number }, DbFailure>
  >;
  /** Ends the silence at `now`: what that did (silences-repository.ts endSilence). */
  endSilence(input: {
    readonly id: number;
    readonly now: number;
  }): Promise<Result<SilenceEnding, DbFailure | 'NOT_FOUND'>>;
}
