/**
 * @module Paging (spec 2.4, DESIGN 3): `page` and `size` parsed from the query (defaults 0 and 20,
 * size clamped to 100 in this one place) and the exact page object built around a page of rows.
 */
import { Type, type TArray, type TObject, type TSchema } from '@sinclair/typebox';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

export const PagingQuerySchema = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: '0-based page number' })),
  size: Type.Optional(
    Type.Integer({
      minimum: 1,
      default: DEFAULT_PAGE_SIZE,
      description: `page size; above ${MAX_PAGE_SIZE} it is reduced to ${MAX_PAGE_SIZE}`,
    }),
  ),
});

export interface Paging {
  readonly page: number;
  readonly size: number;
}

const INTEGER = /^[+]?\d{1,15}$/;

/** Field errors for bad values, or the paging to use. */
export function parsePaging(query: Pick<URLSearchParams, 'get'>): Paging | Record<string, string> {
  const errors: Record<string, string> = {};
  const read = (name: 'page' | 'size', dflt: number, min: number): number => {
    const raw = query.get(name);
    if (raw === null) return dflt;
    if (!INTEGER.test(raw) || Number(raw) < min) {
      errors[name] = `${name} must be an integer >= ${min}`;
      return dflt;
    }
    return Number(raw);
  };
  const page = read('page', 0, 0);
  const size = Math.min(read('size', DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);
  return Object.keys(errors).length > 0 ? errors : { page, size };
}

export const isPaging = (value: Paging | Record<string, string>): value is Paging =>
  typeof value.page === 'number';

const SORTED = { sorted: true, unsorted: false, empty: false } as const;

export interface Page<T> {
  content: readonly T[];
  pageable: {
    pageNumber: number;
    pageSize: number;
    sort: typeof SORTED;
    offset: number;
    paged: true;
    unpaged: false;
  };
  totalElements: number;
  totalPages: number;
  last: boolean;
  first: boolean;
  size: number;
  number: number;
  numberOfElements: number;
  empty: boolean;
  sort: typeof SORTED;
}

export function toPage<T>(rows: readonly T[], total: number, { page, size }: Paging): Page<T> {
  const totalPages = Math.ceil(total / size);
  return {
    content: rows,
    pageable: {
      pageNumber: page,
      pageSize: size,
      sort: SORTED,
      offset: page * size,
      paged: true,
      unpaged: false,
    },
    totalElements: total,
    totalPages,
    last: page >= totalPages - 1,
    first: page === 0,
    size,
    number: page,
    numberOfElements: rows.length,
    empty: rows.length === 0,
    sort: SORTED,
  };
}

const Sort = Type.Object({
  sorted: Type.Boolean(),
  unsorted: Type.Boolean(),
  empty: Type.Boolean(),
});

/** The fields of a page besides its `content` (spec 2.4). */
export const PageFields = {
  pageable: Type.Object({
    pageNumber: Type.Integer(),
    pageSize: Type.Integer(),
    sort: Sort,
    offset: Type.Integer(),
    paged: Type.Boolean(),
    unpaged: Type.Boolean(),
  }),
  totalElements: Type.Integer(),
  totalPages: Type.Integer(),
  last: Type.Boolean(),
  first: Type.Boolean(),
  size: Type.Integer(),
  number: Type.Integer(),
  numberOfElements: Type.Integer(),
  empty: Type.Boolean(),
  sort: Sort,
};

/** Response schema of a page whose items follow `item` (OpenAPI, and typed answers in tests). */
type PageProperties<T extends TSchema> = { content: TArray<T> } & typeof PageFields;

export const PageSchema = <T extends TSchema>(item: T): TObject<PageProperties<T>> =>
  Type.Object<PageProperties<T>>({ content: Type.Array(item), ...PageFields });
