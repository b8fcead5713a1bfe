/** The columns and row of one autocannon summary, shared by the tables of the HTTP benches. */
import type { LoadSummary } from '../load-generators/run-load.ts';
import { num } from './print-table.ts';

/** `connectionsTitle`: 'c' in the metrics and fan-out tables, 'connections' in the older ones. */
export const loadColumns = (connectionsTitle = 'c') =>
  [
    { title: 'scenario' },
    { title: connectionsTitle, align: 'right' },
    { title: 'req/s', align: 'right' },
    { title: 'p50 ms', align: 'right' },
    { title: 'p99 ms', align: 'right' },
    { title: 'non-2xx', align: 'right' },
    { title: 'errors', align: 'right' },
  ] as const;

export const LOAD_COLUMNS = loadColumns();

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
