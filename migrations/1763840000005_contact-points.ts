/**
 * Contact points (issue 17): named notification destinations that hold the secrets rules used to
 * carry. Every rule whose notificationConfig has a webhook `url`, a Slack `webhookUrl` or e-mail
 * `to` gets one contact point per such channel, named `rule-<id>-<type>`, holding those settings
 * (url and headers; webhookUrl; to); the rule's channel entry becomes `<type>:rule-<id>-<type>`
 * and its notificationConfig keeps only what a rule may still set (webhook timeoutMs, Slack
 * channel, e-mail subject), or becomes null when nothing is left. Nothing configured is lost.
 */
import type { MigrationBuilder } from 'node-pg-migrate';

/** Per type: the key whose presence makes a contact point, and the keys that move into it. */
const MOVES = [
  { type: 'webhook', marker: 'url', keys: ['url', 'headers'] },
  { type: 'slack', marker: 'webhookUrl', keys: ['webhookUrl'] },
  { type: 'email', marker: 'to', keys: ['to'] },
] as const;

const section = (type: string): string => `r.notification_config -> '${type}'`;

export const up = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    CREATE TABLE contact_points (
      id serial PRIMARY KEY,
      name text NOT NULL CONSTRAINT contact_points_name_key UNIQUE,
      type text NOT NULL CHECK (type IN ('email', 'slack', 'webhook')),
      is_default boolean NOT NULL DEFAULT false,
      settings jsonb NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX contact_points_one_default ON contact_points (type) WHERE is_default;
  `);
  for (const { type, marker, keys } of MOVES) {
    const picked = keys.map((k) => `'${k}', ${section(type)} -> '${k}'`).join(', ');
    pgm.sql(`
      INSERT INTO contact_points (name, type, settings)
      SELECT 'rule-' || r.id || '-${type}', '${type}', jsonb_strip_nulls(jsonb_build_object(${picked}))
      FROM rules r
      WHERE jsonb_typeof(${section(type)}) = 'object' AND ${section(type)} ? '${marker}'
      ORDER BY r.id;
    `);
  }
  const stripped = MOVES.flatMap(({ type, keys }) => keys.map((k) => `#- '{${type},${k}}'`)).join(
    ' ',
  );
  pgm.sql(`
    WITH moved AS (
      SELECT r.id,
        (SELECT jsonb_agg(CASE WHEN cp.name IS NULL THEN to_jsonb(e.entry)
                               ELSE to_jsonb(e.entry || ':' || cp.name) END ORDER BY e.n)
         FROM jsonb_array_elements_text(r.notification_channels) WITH ORDINALITY AS e(entry, n)
         LEFT JOIN contact_points cp ON cp.name = 'rule-' || r.id || '-' || e.entry
        ) AS channels,
        (SELECT jsonb_object_agg(s.key, s.value)
         FROM jsonb_each(r.notification_config ${stripped}) AS s
         WHERE s.value <> '{}'::jsonb
        ) AS config
      FROM rules r
      WHERE EXISTS (SELECT 1 FROM contact_points cp WHERE cp.name LIKE 'rule-' || r.id || '-%')
    )
    UPDATE rules r
    SET notification_channels = coalesce(moved.channels, '[]'::jsonb),
        notification_config = moved.config
    FROM moved WHERE moved.id = r.id;
  `);
};

/** Puts the moved settings back into the rules they came from, then drops the table. */
export const down = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    UPDATE rules r
    SET notification_config = coalesce(r.notification_config, '{}'::jsonb) || (
          SELECT jsonb_object_agg(cp.type,
                   coalesce(r.notification_config -> cp.type, '{}'::jsonb) || cp.settings)
          FROM contact_points cp WHERE cp.name LIKE 'rule-' || r.id || '-%'),
        notification_channels = (
          SELECT jsonb_agg(to_jsonb(split_part(e.entry, ':rule-', 1)) ORDER BY e.n)
          FROM jsonb_array_elements_text(r.notification_channels) WITH ORDINALITY AS e(entry, n))
    WHERE EXISTS (SELECT 1 FROM contact_points cp WHERE cp.name LIKE 'rule-' || r.id || '-%');
    DROP TABLE contact_points;
  `);
};
