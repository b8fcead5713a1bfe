// TickTimer: every tick's wall time; its time on a CPU only when asked for, read from this
// thread's own scheduler statistics (Linux, like the machines the tests run on).
import t from 'tap';
import { OwnSchedClock, threadSchedTimes } from '../../src/telemetry/thread-schedstat.ts';
import { TickTimer } from '../../src/telemetry/tick-timer.ts';

/**
 * Work that keeps this thread on a CPU until its own schedstat shows it (the kernel updates it
 * at scheduler ticks), or a bounded number of readings if it never does (the test then fails).
 */
function spinOnCpu(clock: OwnSchedClock): number {
  const start = clock.read()?.onCpuNs;
  let turns = 0;
  while (clock.read()?.onCpuNs === start && turns < 100_000) turns++;
  return turns;
}

void t.test('without on-CPU time: wall times only, and the tick runs as is', (t) => {
  const timer = new TickTimer(false);
  t.equal(
    timer.time(() => 'fired'),
    'fired',
  );
  timer.time(() => 1);
  const summary = timer.summary(600);
  t.equal(summary.ticks, 2);
  t.equal(summary.onCpu, null);
  t.ok(summary.p50Ms >= 0 && summary.p50Ms <= summary.maxMs);
  timer.close();
  t.end();
});

// No comparison with the wall time: the kernel adds a running thread's time to schedstat only at
// scheduler ticks and switches, so a delta may hold up to a tick spent before the first reading.
void t.test('with on-CPU time: measured from this thread', (t) => {
  const clock = OwnSchedClock.open();
  if (clock === null) {
    t.fail('/proc/thread-self/schedstat cannot be opened here');
    t.end();
    return;
  }
  const timer = new TickTimer(true);
  timer.time(() => spinOnCpu(clock));
  const { onCpu, ticks } = timer.summary(1);
  t.equal(ticks, 1);
  if (onCpu === null) t.fail('no on-CPU time measured');
  else {
    t.ok(onCpu.maxMs > 0, 'the spin shows as time on a CPU');
    t.ok(onCpu.p50Ms <= onCpu.p99Ms && onCpu.p99Ms <= onCpu.maxMs, 'percentiles in order');
  }
  timer.close();
  clock.close();
  t.end();
});

void t.test(
  'the kept-open reader agrees with a one-off reading, and reads nothing once closed',
  (t) => {
    const clock = OwnSchedClock.open();
    if (clock === null) {
      t.fail('/proc/thread-self/schedstat cannot be opened here');
      t.end();
      return;
    }
    const before = clock.read();
    const oneOff = threadSchedTimes();
    const after = clock.read();
    if (before === null || oneOff === null || after === null) t.fail('a reading failed');
    else t.ok(before.onCpuNs <= oneOff.onCpuNs && oneOff.onCpuNs <= after.onCpuNs, 'monotonic');
    clock.close();
    t.equal(clock.read(), null);
    t.equal(threadSchedTimes('/nonexistent/schedstat'), null);
    t.end();
  },
);
