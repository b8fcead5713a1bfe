/** The columns and row of one autocannon summary, shared by the GET (metrics) and fan-out tables. */
import type { LoadSummary } from '../load-generators/run-load.ts';
import { num } from './print-table.ts';

export const LOAD_COLUMNS = [
  { title: 'scenario' },
  { title: 'c', align: 'right' },
  { title: 'req/s', align: 'right' },
  { title: 'p50 ms', align: 'right' },
  { title: 'p99 ms', align: 'right' },
  { title: 'non-2xx', align: 'right' },
  { title: 'errors', align: 'right' },
] as const;

export const loadRow = (s: LoadSummary, extra: readonly string[] = []): string[] => [
  s.name,
  String(s.connections),
  num(s.reqPerSec),
  num(s.p50Ms, 2),
  num(s.p99Ms, 2),
  String(s.non2xx),
  String(s.errors),
  ...extra,
];
