// The storage workers' connections: JIT off. A deep page's plan costs past jit_above_cost (its
// OFFSET comes from a subquery, which the planner guesses at a tenth of the index), and LLVM then
// spent 40 to 150 ms compiling a statement that runs in 5 ms at 10,000,000 events.
import t from 'tap';
import { connect } from '../../src/db/connect.ts';
import { testDatabaseUrl } from '../support/database.ts';

t.test('a service connection runs with JIT off', async (t) => {
  const sql = connect({ url: testDatabaseUrl(), schema: 'public', max: 1, queryTimeoutMs: 5000 });
  t.teardown(() => sql.end({ timeout: 5 }));
  const [row] = await sql<{ jit: string }[]>`SHOW jit`;
  t.equal(row?.jit, 'off');
});
