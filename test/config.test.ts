import t from 'tap';
import { ConfigError, ConfigSchema, loadConfig, mayHoldSecret } from '../src/config.ts';
import { docRow, docRows } from './support/doc-tables.ts';

t.test('defaults apply and values are converted from strings', async (t) => {
  const config = loadConfig({ PORT: '9000', STORAGE_WORKERS: '3' });
  t.equal(config.PORT, 9000);
  t.equal(config.STORAGE_WORKERS, 3);
  t.equal(config.INGEST_QUEUE_MAX, 20000);
  t.equal(config.DATABASE_URL, undefined);
  t.ok(Object.isFrozen(config));
});

t.test('every bad variable is named at once', async (t) => {
  try {
    loadConfig({
      PORT: 'eighty',
      STORAGE_WORKERS: '0',
      LOG_LEVEL: 'loud',
      DATABASE_SCHEMA: 'Robert"); DROP',
    });
    t.fail('expected a ConfigError');
  } catch (error) {
    t.type(error, ConfigError);
    const text = (error as ConfigError).message;
    for (const name of ['PORT', 'STORAGE_WORKERS', 'LOG_LEVEL', 'DATABASE_SCHEMA'])
      t.match(text, name);
  }
});

t.test('a body limit above the ingest queue in bytes is refused at start', async (t) => {
  t.throws(() => loadConfig({ MAX_BODY_BYTES: '4194304', INGEST_QUEUE_MAX_BYTES: '2097152' }), {
    message: /MAX_BODY_BYTES \(4194304\) must not exceed INGEST_QUEUE_MAX_BYTES \(2097152\)/,
  });
  t.equal(
    loadConfig({ MAX_BODY_BYTES: '2097152', INGEST_QUEUE_MAX_BYTES: '2097152' }).MAX_BODY_BYTES,
    2097152,
    'equal is fine',
  );
});

t.test('a bad credential-bearing variable is named without its value', async (t) => {
  const secret = 'hunter2-Xq9';
  const error = (() => {
    try {
      loadConfig({
        DATABASE_URL: `mysql://vigil:${secret}@db.internal/vigil`,
        SMTP_URL: `http://mailer:${secret}@smtp.internal`,
        PORT: 'eighty',
      });
    } catch (caught) {
      return caught;
    }
    return null;
  })();
  t.type(error, ConfigError);
  const text = (error as ConfigError).message;
  t.match(text, /DATABASE_URL: /, 'DATABASE_URL is named');
  t.match(text, /SMTP_URL: /, 'SMTP_URL is named');
  t.notMatch(text, secret, 'the password is not shown');
  t.notMatch(text, 'internal', 'nor anything else of the values');
  t.match(text, 'PORT="eighty"', 'a harmless value is still shown');
});

t.test('a bootstrap key shaped as a Vigil key is refused at start, without its value', (t) => {
  const key = `vgl_admin_${'A'.repeat(38)}`;
  const error = (() => {
    try {
      loadConfig({ VIGIL_BOOTSTRAP_ADMIN_KEY: key });
      return null;
    } catch (e) {
      return e;
    }
  })();
  t.type(error, ConfigError);
  t.match((error as ConfigError).message, /VIGIL_BOOTSTRAP_ADMIN_KEY must not start with vgl_/);
  t.notMatch((error as ConfigError).message, key, 'the key is not shown');
  t.equal(
    loadConfig({ VIGIL_BOOTSTRAP_ADMIN_KEY: `admin_${'A'.repeat(38)}` }).VIGIL_BOOTSTRAP_ADMIN_KEY,
    `admin_${'A'.repeat(38)}`,
    'any other key of the allowed characters is taken',
  );
  t.end();
});

t.test('which variables may hold a credential is a rule on names', async (t) => {
  const secretNames =
    'DATABASE_URL SMTP_URL VIGIL_BOOTSTRAP_ADMIN_KEY X_SECRET X_TOKEN SMTP_PASSWORD';
  for (const name of secretNames.split(' ')) t.ok(mayHoldSecret(name), `${name}: yes`);
  for (const name of 'PORT LOG_LEVEL NOTIFY_FROM VIGIL_DATA_DIR MAX_KEYS'.split(' '))
    t.notOk(mayHoldSecret(name), `${name}: no`);
});

const CONFIG_DOC = 'docs/configuration.md';

/** The variables a markdown file's configuration table names. */
const documentedIn = (file: string): string[] =>
  docRows(file)
    .filter((cells) => /^`[A-Z][A-Z0-9_]+`$/.test(cells[0] ?? ''))
    .map((cells) => (cells[0] ?? '').slice(1, -1));

t.test('docs/configuration.md documents every environment variable with its default', async (t) => {
  for (const [name, schema] of Object.entries(ConfigSchema.properties)) {
    const dflt = (schema as { default?: string | number }).default;
    const row = docRow(CONFIG_DOC, name);
    t.ok(row, `${name} has a row in the configuration table`);
    if (dflt !== undefined) t.equal(row?.[1], `\`${dflt}\``, `${name}'s default is in its row`);
  }
});

t.test('docs/configuration.md documents no variable the configuration does not read', async (t) => {
  t.same(documentedIn(CONFIG_DOC).sort(), Object.keys(ConfigSchema.properties).sort());
});

t.test("the README's short table names real variables, as the full table does", async (t) => {
  const inReadme = documentedIn('README.md');
  t.ok(inReadme.length >= 5, "the README's configuration table is found");
  for (const name of inReadme) {
    t.ok(name in ConfigSchema.properties, `${name} is read by the configuration`);
    t.same(docRow('README.md', name), docRow(CONFIG_DOC, name), `${name}: the same row in both`);
  }
});
