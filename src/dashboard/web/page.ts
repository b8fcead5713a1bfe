/** @module The paged answer of list endpoints (`content`, `number`, `totalPages`...), as read here. */
export interface Page<T> {
  readonly content: readonly T[];
  readonly number: number;
  readonly totalPages: number;
  readonly totalElements: number;
  readonly first: boolean;
  readonly last: boolean;
}
