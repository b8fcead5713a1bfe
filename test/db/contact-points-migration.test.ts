// Migration 1763840000005 on real PostgreSQL (issue 17): rules stored before contact points, with
// URLs, headers and recipients in notificationConfig, end up naming contact points that hold those
// settings; their notificationConfig keeps only what a rule may still set, so nothing configured is
// lost and every migrated rule passes today's validation.
import t from 'tap';
import { migrateUp } from '../../src/db/migrate.ts';
import { notificationConfigErrors } from '../../src/domain/rules/alerts/notification-config.ts';
import { createLogger } from '../../src/log.ts';
import { createDatabaseBefore, withMigrationGate } from '../support/database.ts';
import { storeLegacyNotifyingRule } from '../support/legacy-rules.ts';

// The schema as it was before this migration: every earlier one applied.
const { url, schema, sql } = await createDatabaseBefore(t, '1763840000005_contact-points.ts');

const hook = {
  url: 'https://hooks.example.com/vigil',
  headers: { Authorization: 'Bearer s3cret' },
  timeoutMs: 3000,
};
const slackUrl = 'https://hooks.slack.com/services/T0/B0/xyz';
const all = await storeLegacyNotifyingRule({ sql }, 'all three', ['email', 'slack', 'webhook'], {
  webhook: hook,
  slack: { webhookUrl: slackUrl, channel: '#ops' },
  email: { to: ['ops@example.com'], subject: 'Checkout' },
});
const slackOnly = await storeLegacyNotifyingRule({ sql }, 'slack only', ['slack'], {
  slack: { webhookUrl: slackUrl },
});
const unlisted = await storeLegacyNotifyingRule({ sql }, 'section not listed', [], {
  webhook: { url: 'http://10.0.0.5/hook' },
});
const silent = await storeLegacyNotifyingRule({ sql }, 'no channels', [], null);

await withMigrationGate(url, () => migrateUp(url, schema, createLogger('warn', 'test')));

interface Rule {
  id: number;
  notification_channels: string[];
  notification_config: Record<string, unknown> | null;
}
const rule = async (id: number): Promise<Rule> => {
  const [row] = await sql<Rule[]>`
    SELECT id, notification_channels, notification_config FROM rules WHERE id = ${id}`;
  return row as Rule;
};

void t.test('each URL-bearing section became a contact point named after its rule', async (t) => {
  const points = await sql`SELECT name, type, is_default, settings FROM contact_points ORDER BY id`;
  t.same(
    points.map((p) => ({ ...p })),
    [
      {
        name: `rule-${all}-webhook`,
        type: 'webhook',
        is_default: false,
        settings: { url: hook.url, headers: hook.headers },
      },
      {
        name: `rule-${unlisted}-webhook`,
        type: 'webhook',
        is_default: false,
        settings: { url: 'http://10.0.0.5/hook' },
      },
      {
        name: `rule-${all}-slack`,
        type: 'slack',
        is_default: false,
        settings: { webhookUrl: slackUrl },
      },
      {
        name: `rule-${slackOnly}-slack`,
        type: 'slack',
        is_default: false,
        settings: { webhookUrl: slackUrl },
      },
      {
        name: `rule-${all}-email`,
        type: 'email',
        is_default: false,
        settings: { to: ['ops@example.com'] },
      },
    ],
  );
});

void t.test('the rules name them and keep only non-secret settings', async (t) => {
  t.same(await rule(all), {
    id: all,
    notification_channels: [
      `email:rule-${all}-email`,
      `slack:rule-${all}-slack`,
      `webhook:rule-${all}-webhook`,
    ],
    notification_config: {
      webhook: { timeoutMs: 3000 },
      slack: { channel: '#ops' },
      email: { subject: 'Checkout' },
    },
  });
  t.same(await rule(slackOnly), {
    id: slackOnly,
    notification_channels: [`slack:rule-${slackOnly}-slack`],
    notification_config: null,
  });
  t.same(await rule(unlisted), {
    id: unlisted,
    notification_channels: [],
    notification_config: null,
  });
  t.same(await rule(silent), { id: silent, notification_channels: [], notification_config: null });
  const rows = await sql<Rule[]>`SELECT id, notification_channels, notification_config FROM rules`;
  for (const row of rows) {
    t.same(notificationConfigErrors(row.notification_config), {}, `rule ${row.id} is valid today`);
    t.notMatch(JSON.stringify(row), /s3cret|hooks\./, `rule ${row.id} holds no secret`);
  }
});
