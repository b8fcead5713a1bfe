// Bytes per partition of the PATTERN matcher (docs/rules.md): heap after holding N partial
// sequences, divided by N. Run: node --expose-gc --import tsx bench/pattern-memory.ts
import type { DetailedMetricEvent } from '../src/domain/event.ts';
import { PatternMatcher } from '../src/domain/rules/pattern/pattern-matcher.ts';
import { validatePatternConfig } from '../src/domain/rules/pattern/pattern-validation.ts';

const N = 100_000;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const checked = validatePatternConfig({
  partitionBy: 'userId',
  withinMinutes: 5,
  steps: [
    {
      eventType: 'login',
      where: [{ field: 'metadata.success', operator: 'EQUALS', value: false }],
      times: { min: 3 },
    },
    { eventType: 'login', where: [{ field: 'metadata.success', operator: 'EQUALS', value: true }] },
  ],
});
if (!checked.ok) throw new Error(checked.errors.join());
const users = Array.from({ length: N }, (_, i) => `user-${i}`);
for (const failures of [Number(process.argv[2] ?? 3)]) {
  gc();
  const before = process.memoryUsage().heapUsed;
  const matcher = new PatternMatcher(checked.config);
  let id = 0;
  for (let f = 0; f < failures; f++)
    for (const userId of users) {
      const e: DetailedMetricEvent = {
        id: ++id,
        eventType: 'login',
        source: 'web',
        userId,
        sessionId: null,
        severity: 'INFO',
        tags: {},
        metadata: { success: false },
        receivedAt: 1000 + id,
        latencyMs: 0,
      };
      matcher.observe(e);
    }
  gc();
  const bytes = (process.memoryUsage().heapUsed - before) / matcher.size();
  console.log(
    `${failures} failed login(s) held per key: ${Math.round(bytes)} B per partition (${matcher.size()} keys)`,
  );
}
