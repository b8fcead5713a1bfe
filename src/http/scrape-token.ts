/**
 * @module METRICS_SCRAPE_TOKEN (front thread): a Prometheus server may read GET /metrics with this
 * token as `Authorization: Bearer <token>` instead of an API key of scope `read`. Compared in
 * constant time, through digests of equal length: the answer tells nothing of how much matched.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { bearerToken } from './authorize.ts';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** The check of a route's `acceptsToken`; undefined when no token is set (keys only). */
export function scrapeTokenCheck(
  token: string | undefined,
): ((authorization: string) => boolean) | undefined {
  if (token === undefined) return undefined;
  const expected = digest(token);
  return (authorization) => {
    const presented = bearerToken(authorization);
    return presented !== undefined && timingSafeEqual(digest(presented), expected);
  };
}
