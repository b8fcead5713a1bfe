// Bytes per partition of the PATTERN matcher (docs/rules.md): heap after holding N partial
// sequences of the login example, divided by N.
// Run: node --expose-gc --import tsx bench/pattern-memory.ts [failed logins held per key, default 3]
import { PatternMatcher } from '../src/domain/rules/kinds/pattern/pattern-matcher.ts';
import { validatePatternConfig } from '../src/domain/rules/kinds/pattern/pattern-validation.ts';
import { LOGIN_CONFIG, detailedEvent } from '../test/support/shared.ts';

const N = 100_000;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const checked = validatePatternConfig(LOGIN_CONFIG);
if (!checked.ok) throw new Error(checked.errors.join());
const users = Array.from({ length: N }, (_, i) => `user-${i}`);
{
  const failures = Number(process.argv[2] ?? 3);
  gc();
  const before = process.memoryUsage().heapUsed;
  const matcher = new PatternMatcher(checked.config);
  let id = 0;
  for (let f = 0; f < failures; f++)
    for (const userId of users) {
      matcher.observe(detailedEvent(++id, userId, 'login', 1000 + id, { success: false }));
    }
  gc();
  const bytes = (process.memoryUsage().heapUsed - before) / matcher.size();
  console.log(
    `${failures} failed login(s) held per key: ${Math.round(bytes)} B per partition (${matcher.size()} keys)`,
  );
}
