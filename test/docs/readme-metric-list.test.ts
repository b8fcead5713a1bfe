// The README's "Monitoring Vigil" list names every metric of docs/prometheus.md's tables and no
// other (test/service/prometheus-metrics.test.ts holds those tables to what GET /metrics exports).
// The README writes names without their `vigil_` prefix and groups them with braces:
// `ingest_queue_{events,bytes}` is ingest_queue_events and ingest_queue_bytes.
import t from 'tap';
import { docRows, docText } from '../support/doc-tables.ts';

/** `a_{b,c}_d` → a_b_d, a_c_d (one brace group per name, as the README writes them). */
const expand = (name: string): string[] => {
  const group = /\{([a-z_,]+)\}/.exec(name);
  if (group === null) return [name];
  return (group[1] ?? '').split(',').map((part) => name.replace(group[0], part));
};

t.test('the README lists exactly the metrics docs/prometheus.md documents', async (t) => {
  const section = docText('README.md').split('## Monitoring Vigil')[1]?.split('\n## ')[0] ?? '';
  t.ok(section.includes('GET /metrics'), 'the section is found');
  const listed = [...section.matchAll(/`([a-z_{},]+)`/g)]
    .map((m) => m[1] ?? '')
    .filter((name) => name.includes('_') && name !== 'vigil_')
    .flatMap(expand)
    .map((name) => `vigil_${name}`);
  const documented = docRows('docs/prometheus.md')
    .map((cells) => /^`(vigil_\w+)`$/.exec(cells[0] ?? '')?.[1])
    .filter((name): name is string => name !== undefined);
  t.ok(documented.length >= 30, 'the tables are found');
  t.same([...listed].sort(), [...new Set(documented)].sort(), 'the same names');
});
