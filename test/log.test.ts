// The log never shows the password of a URL: in a message, in a logged error's message, stack,
// cause or properties (an invalid URL's `input`), whatever the thread.
import t from 'tap';
import { redactUrlPasswords } from '../src/log.ts';
import { captureLog } from './support/captured-log.ts';

const SECRET = 'S3cr3t-pw';

t.test('the password of any URL in a text becomes ****', async (t) => {
  const cases: [string, string][] = [
    [
      `postgres://postgres:${SECRET}@127.0.0.1:5432/db`,
      'postgres://postgres:****@127.0.0.1:5432/db',
    ],
    [
      `at smtps://mail:${SECRET}@smtp.example.com:465 failed`,
      'at smtps://mail:****@smtp.example.com:465 failed',
    ],
    [`"postgresql://u:${SECRET}@h/db"`, '"postgresql://u:****@h/db"'],
    ['postgres://postgres@127.0.0.1/db', 'postgres://postgres@127.0.0.1/db'],
    ['https://hooks.example.com/a@b', 'https://hooks.example.com/a@b'],
    // Generous: a malformed URL quoted in an error is redacted too.
    [`postgres://u:${SECRET}/x@h/db`, 'postgres://u:****@h/db'],
    ['no url: user:pass@host', 'no url: user:pass@host'],
    // A quote is valid in a URL's password (WHATWG leaves it as is; postgres.js accepts it).
    ["postgres://vigil:it's-S3cr3t@db/x", 'postgres://vigil:****@db/x'],
  ];
  for (const [text, redacted] of cases) t.equal(redactUrlPasswords(text), redacted, text);
});

t.test('messages and errors are redacted in the log', async (t) => {
  const { log, lines } = captureLog('log-test');
  log.warn(`could not reach postgres://vigil:${SECRET}@db:5432/vigil`);
  log.info({ port: 1 }, `retrying smtp://mailer:${SECRET}@mail:25`);
  let invalid: unknown;
  try {
    new URL(`postgres://vigil:${SECRET}@db:99999999/vigil`);
  } catch (error) {
    invalid = error;
  }
  t.match(String((invalid as { input?: string }).input), SECRET, 'the URL error quotes its input');
  log.fatal({ err: invalid }, 'start-up failed');
  log.error(
    {
      err: new Error('migration failed', {
        cause: new Error(`connect postgres://vigil:${SECRET}@db/vigil refused`),
      }),
    },
    'start-up failed',
  );
  t.equal(lines.length, 4, 'every line was written');
  t.same(
    lines.filter((line) => line.includes(SECRET)),
    [],
    'no line has the password',
  );
  t.ok(
    lines.every((line) => line.includes('****@')),
    'each line still shows the URL, redacted',
  );
});
