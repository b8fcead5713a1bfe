/**
 * @module What an event search reads and answers (issue 34), as the reads pool carries them
 * between the front thread and a reads worker (src/protocol/event-search.ts).
 */
import type { EventRecord } from '../event.ts';
import type { EventCursor } from './cursor.ts';
import type { EventFilter } from './filter.ts';

export interface SearchInput {
  readonly filter: EventFilter;
  readonly page: number;
  readonly size: number;
  /** Keyset: the page starts after this event (page is then ignored). */
  readonly cursor: EventCursor | null;
  /** The export's pages need no total. */
  readonly withTotal: boolean;
  /** How long a filtered total may count before it gives an estimate (EVENT_SEARCH_COUNT_MS). */
  readonly countBudgetMs: number;
}

export interface SearchPage {
  readonly rows: readonly EventRecord[];
  /** Matches in all; an estimate when totalExact is false; 0 when no total was asked. */
  readonly total: number;
  readonly totalExact: boolean;
  /** More matches follow the last row (the answer's nextCursor). */
  readonly more: boolean;
}

export interface HistogramInput {
  readonly filter: EventFilter;
  /** Epoch ms; the buckets are [from + i * bucketMs, from + (i + 1) * bucketMs). */
  readonly from: number;
  readonly bucketMs: number;
  readonly buckets: number;
}
