/**
 * @module Content negotiation for a gzip-encoded answer (RFC 9110 12.5.3): does an Accept-Encoding
 * header accept gzip? `gzip`, `x-gzip` or `*` with a q-value above 0 does, unless gzip itself is
 * listed with q=0.
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

export function acceptsGzip(header: string): boolean {
  if (header === '') return false;
  let answer = answers.get(header);
  if (answer === undefined) {
    answer = parse(header);
    answers.set(header, answer);
  }
  return answer;
}

function parse(header: string): boolean {
  let gzip: number | undefined;
  let any: number | undefined;
  for (const item of header.split(',')) {
    const [coding = '', ...params] = item.split(';');
    const name = coding.trim().toLowerCase();
    if (name === 'gzip' || name === 'x-gzip') gzip = Math.max(gzip ?? 0, qValue(params));
    else if (name === '*') any = qValue(params);
  }
  return (gzip ?? any ?? 0) > 0;
}
