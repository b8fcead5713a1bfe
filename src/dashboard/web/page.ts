/** @module The paged answer of list endpoints (`content`, `number`, `totalPages`...), as read here. */
export interface Page<T> {
  readonly content: readonly T[];
  readonly number: number;
  readonly totalPages: number;
  readonly totalElements: number;
  readonly first: boolean;
  readonly last: boolean;
  /** The event search's keyset cursor (issue 34): null on the last page, absent elsewhere. */
  readonly nextCursor?: string | null;
  /** false: totalElements is an estimate. */
  readonly totalElementsExact?: boolean;
}
