/**
 * @module The reads pool's event-search operations (issue 34): GET /api/v1/events with filters,
 * its histogram and the export's pages run on reads workers (workers/reads.worker.ts), on
 * connections and a queue apart from ingest's.
 */
import type { HistogramInput, SearchInput, SearchPage } from '../domain/event-search/search.ts';
import type { DbFailure, Result } from './storage/result.ts';

export interface EventSearchHandlers {
  searchEvents(input: SearchInput): Promise<Result<SearchPage, DbFailure>>;
  eventHistogram(input: HistogramInput): Promise<Result<number[], DbFailure>>;
}
