/**
 * @module Content negotiation for an encoded answer (RFC 9110 12.5.3): does an Accept-Encoding
 * header accept gzip (or br)? `gzip`, `x-gzip` or `*` with a q-value above 0 does, unless gzip
 * itself is listed with q=0.
 */
import { LRUCache } from 'lru-cache';

const qValue = (params: string[]): number => {
  for (const param of params) {
    const [name, value] = param.split('=', 2).map((part) => part.trim());
    if (name?.toLowerCase() === 'q') {
      const q = Number(value);
      return Number.isFinite(q) ? q : 0;
    }
  }
  return 1;
};

/**
 * Clients send the same few header values over and over (each browser its own): their answers
 * are kept, so a dashboard polling GET /metrics does not parse its header on every request. The
 * header is the client's to choose, so the cache is bounded.
 */
const answers = new LRUCache<string, boolean>({ max: 64 });

export type Coding = 'gzip' | 'br';

/** The names a coding goes by (x-gzip is gzip's old alias). */
const NAMES: Readonly<Record<Coding, readonly string[]>> = { gzip: ['gzip', 'x-gzip'], br: ['br'] };

export const acceptsGzip = (header: string): boolean => accepts(header, 'gzip');

export function accepts(header: string, coding: Coding): boolean {
  if (header === '') return false;
  const key = coding === 'gzip' ? header : `br\n${header}`;
  let answer = answers.get(key);
  if (answer === undefined) {
    answer = parse(header, NAMES[coding]);
    answers.set(key, answer);
  }
  return answer;
}

function parse(header: string, names: readonly string[]): boolean {
  let named: number | undefined;
  let any: number | undefined;
  for (const item of header.split(',')) {
    const [coding = '', ...params] = item.split(';');
    const name = coding.trim().toLowerCase();
    if (names.includes(name)) named = Math.max(named ?? 0, qValue(params));
    else if (name === '*') any = qValue(params);
  }
  return (named ?? any ?? 0) > 0;
}
