// Issue 29: the public health check shares one database probe among concurrent callers and reuses
// its answer for maxAgeMs, so a flood without a key costs about one query per period; an outage
// shows at the first probe after that. The clock is injected; the service-level outage test
// (test/service/periodic-jobs-outage.test.ts) sees DOWN and UP through the real probe.
import t from 'tap';
import { createHealthCheck, type HealthAnswer } from '../../src/http/health-check.ts';

function probed() {
  let clock = 0;
  let probes = 0;
  let answer: () => Promise<HealthAnswer> = () => Promise.resolve(null);
  const pending: (() => void)[] = [];
  const check = createHealthCheck({
    maxAgeMs: 1000,
    now: () => clock,
    probe: () => {
      probes++;
      return new Promise<void>((resolve) => pending.push(resolve)).then(() => answer());
    },
  });
  return {
    check,
    probes: () => probes,
    answerWith: (next: () => Promise<HealthAnswer>) => void (answer = next),
    finish: () => pending.splice(0).forEach((resolve) => resolve()),
    advance: (ms: number) => void (clock += ms),
  };
}

t.test('concurrent callers share one probe; its answer is reused for maxAgeMs', async (t) => {
  const h = probed();
  const flood = Array.from({ length: 100 }, () => h.check.check());
  t.equal(h.probes(), 1, 'one probe for 100 callers');
  h.finish();
  t.same(await Promise.all(flood), Array(100).fill(null), 'all UP');
  h.advance(999);
  t.equal(await h.check.check(), null);
  t.equal(h.probes(), 1, 'reused within maxAgeMs');
});

t.test('an outage shows at the first probe past maxAgeMs, and the return too', async (t) => {
  const h = probed();
  const first = h.check.check();
  h.finish();
  await first;
  h.answerWith(() => Promise.resolve('database did not answer in time'));
  h.advance(1000);
  const down = h.check.check();
  t.equal(h.probes(), 2, 'a new probe once the answer is 1 s old');
  h.finish();
  t.equal(await down, 'database did not answer in time', 'DOWN, with the reason');
  h.answerWith(() => Promise.reject(new Error('connection refused')));
  h.advance(1000);
  const thrown = h.check.check();
  h.finish();
  t.equal(await thrown, 'connection refused', 'a probe that throws is DOWN too');
  h.answerWith(() => Promise.resolve(null));
  h.advance(1000);
  const up = h.check.check();
  h.finish();
  t.equal(await up, null, 'UP again');
});
