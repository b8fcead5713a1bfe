// The start-up breakdown of the "vigil listening" line, on an injected clock: each lap goes to its
// phase, skipped time and time after the last lap to `other`, and the total is the sum.
import t from 'tap';
import { startupTimings } from '../../src/startup-timings.ts';

void t.test('laps go to their phases; the rest is other', async (t) => {
  let now = 1000;
  const timings = startupTimings(() => now);
  now += 120;
  timings.lap('postgres');
  now += 300;
  timings.lap('migrations');
  now += 50;
  timings.skip();
  now += 700;
  timings.lap('threads');
  now += 10;
  timings.skip();
  now += 5.4;
  timings.lap('assets');
  now += 2;
  timings.lap('threads');
  now += 40;
  t.same(timings.report(), {
    startupMs: 1227,
    phasesMs: { postgres: 120, migrations: 300, threads: 702, assets: 5, other: 100 },
  });
});
