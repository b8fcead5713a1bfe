/**
 * @module The answers of the two ingest routes by outcome (front thread), counted as they are
 * sent, for GET /metrics: `accepted` (202), else the error code answered, refusals the adapter
 * makes before the handler (401, 413, 415, 503...) included. A 202 costs one increment; a batch's
 * 202 also adds its `accepted` and `rejected` item counts, which its body already holds.
 */
import { ERROR_STATUS, type ErrorCode } from '../errors.ts';
import type { Reply, ReplyCounter } from './reply.ts';

const CODES = Object.keys(ERROR_STATUS) as ErrorCode[];
const INDEX_OF_CODE = new Map<unknown, number>(CODES.map((code, i) => [code, i]));
const INTERNAL_INDEX = INDEX_OF_CODE.get('INTERNAL') as number;

/** The refusals an ingest route can answer, exported even while 0 (the others only once seen). */
export const INGEST_REFUSALS: readonly ErrorCode[] = [
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'SOURCE_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'IDEMPOTENCY_KEY_REUSED',
  'RATE_LIMITED',
  'INTERNAL',
  'OVERLOADED',
  'TOO_MANY_CONNECTIONS',
  'SHUTTING_DOWN',
];

export interface OutcomeCount {
  /** `accepted`, or an error code in lower case (`overloaded`, `validation_failed`, ...). */
  readonly outcome: string;
  readonly count: number;
}

export class IngestAnswers implements ReplyCounter {
  accepted = 0;
  /** Batch route: items acknowledged and items refused within its 202 answers. */
  acceptedItems = 0;
  rejectedItems = 0;
  private readonly refused = new Float64Array(CODES.length);

  /** `itemised`: the batch route, whose 202 answers carry item counts. */
  constructor(private readonly itemised: boolean) {}

  count(reply: Reply): void {
    if (reply.status === 202) {
      this.accepted++;
      if (this.itemised) {
        const body = reply.body as { accepted: number; rejected: number };
        this.acceptedItems += body.accepted;
        this.rejectedItems += body.rejected;
      }
      return;
    }
    const code = (reply.body as { code?: unknown } | undefined)?.code;
    this.refused[INDEX_OF_CODE.get(code) ?? INTERNAL_INDEX]!++;
  }

  /** Requests refused, whatever the reason. */
  refusedTotal(): number {
    return this.refused.reduce((sum, n) => sum + n, 0);
  }

  /** `accepted`, the ingest refusals (zeros included), and any other code answered. */
  outcomes(): OutcomeCount[] {
    const counts: OutcomeCount[] = [{ outcome: 'accepted', count: this.accepted }];
    CODES.forEach((code, i) => {
      const count = this.refused[i] as number;
      if (count > 0 || INGEST_REFUSALS.includes(code))
        counts.push({ outcome: code.toLowerCase(), count });
    });
    return counts;
  }
}

/** One counter per ingest route. */
export interface IngestCounts {
  /** POST /api/v1/events: one event per request. */
  readonly single: IngestAnswers;
  /** POST /api/v1/events/batch. */
  readonly batch: IngestAnswers;
}

export const createIngestCounts = (): IngestCounts => ({
  single: new IngestAnswers(false),
  batch: new IngestAnswers(true),
});
