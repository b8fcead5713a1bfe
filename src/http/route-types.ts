/**
 * @module What a route is: method, path pattern, body policy, the schemas that document it and
 * its handler. Handlers see plain data and return a Reply; they never touch uWS.
 */
import type { TSchema } from '@sinclair/typebox';
import type { IngestStamps } from '../actors/ingest-stages.ts';
import type { Principal } from '../auth/principal.ts';
import type { KeyScope } from '../domain/api-key.ts';
import type { Reply, ReplyCounter } from './reply.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * Who may call a route: `public` needs no key; otherwise a key of that scope or a wider one
 * (`admin` includes `read` and `ingest`).
 */
export type Scope = 'public' | KeyScope;

/** The query string's parameters, read-only (requests without a query share one empty set). */
export type Query = Pick<URLSearchParams, 'get' | 'getAll' | 'forEach'>;

export interface Request {
  /** Path parameters by name (`/events/:eventId` -> { eventId }). */
  readonly params: Readonly<Record<string, string>>;
  readonly query: Query;
  /** The headers the route asked for (Route.headers), lower-case names; '' when absent. */
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON body (routes with `body: 'json'`), else undefined. */
  readonly body: unknown;
  /** The body as text, for checks that are cheaper on the raw JSON ('' for a bytes body). */
  readonly rawBody: string;
  /** The body's bytes when the route's `bytesBody` took this request's body unparsed. */
  readonly bytes?: Buffer;
  /** Epoch ms at which the front thread read the request. */
  readonly receivedAt: number;
  /** Whose key the request carried; null on public routes (and the open admin when auth is off). */
  readonly principal: Principal | null;
  /** The route answers gzip (Route.gzip) and the client's Accept-Encoding accepts it. */
  readonly acceptsGzip: boolean;
  /** Its stage timings (a `stamped` route while INGEST_STAGE_TIMINGS is on); else undefined. */
  readonly stamps: IngestStamps | undefined;
}

export interface RouteDoc {
  readonly summary: string;
  /** The OpenAPI operationId; absent: made from the method and path (openapi.ts). */
  readonly operationId?: string;
  readonly body?: TSchema;
  /** The request body's media type(s), all described by `body`; absent: JSON. */
  readonly bodyMediaType?: string | readonly string[];
  readonly query?: TSchema;
  /** Status -> response schema (or a description when there is no body). */
  readonly responses: Readonly<Record<number, TSchema | string>>;
  /** The media type(s) of its answers below 400 (errors are always JSON); absent: JSON. */
  readonly mediaType?: string | readonly string[];
}

/** Which requests of a `body: 'json'` route carry a body taken as bytes, whatever its media type. */
export interface BytesBody {
  /** Decided on the request's head: `header` reads a request header (lower-case name). */
  readonly when: (contentType: string, header: (name: string) => string) => boolean;
  /** Every header with this prefix is copied for such a request (`ce-`: CloudEvents attributes). */
  readonly headerPrefix?: string;
}

export interface Route {
  readonly method: Method;
  /** uWS pattern: `/api/v1/events/:eventId`. */
  readonly path: string;
  readonly scope: Scope;
  /** 'json': a JSON object or array body is required (415 / 400 otherwise); 'none': ignored. */
  readonly body: 'json' | 'none';
  /** Besides JSON, bodies the route reads as bytes (protobuf, CloudEvents binary mode). */
  readonly bytesBody?: BytesBody;
  /**
   * Request headers the handler reads (lower-case names): only these are copied, and only for
   * this route, since uWS's request is gone once the handler has to wait for the body.
   */
  readonly headers?: readonly string[];
  /** The handler may answer gzip: the adapter then reads Accept-Encoding into `acceptsGzip`. */
  readonly gzip?: true;
  /**
   * A credential the route takes besides a key of its scope, checked first on the Authorization
   * header (GET /metrics: METRICS_SCRAPE_TOKEN); true lets the request in without a principal.
   */
  readonly acceptsToken?: (authorization: string) => boolean;
  /** INGEST_STAGE_TIMINGS times its requests' stages (POST /api/v1/events only). */
  readonly stamped?: true;
  /** Counts every answer of the route by outcome (the ingest routes, for GET /metrics). */
  readonly answers?: ReplyCounter;
  readonly doc: RouteDoc;
  readonly handle: (request: Request) => Reply | Promise<Reply>;
}
