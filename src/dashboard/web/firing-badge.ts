/**
 * @module The header's firing-alerts badge: how many alerts are FIRING now, read from
 * GET /api/v1/alerts?state=FIRING and again on every /topic/alerts message; a link to the alerts.
 */
import { html } from 'htm/preact';
import { useEffect } from 'preact/hooks';
import type { VNode } from 'preact';
import { useLoad } from './fields.ts';
import type { Live } from './live.ts';
import type { Page } from './page.ts';
import type { Session } from './session.ts';
import type { AlertRecord } from '../../domain/rules/alerts/alert.ts';

export function FiringBadge({ session, live }: { session: Session; live: Live }): VNode {
  const { data, reload } = useLoad(
    () => session.api.get<Page<AlertRecord>>('/api/v1/alerts?state=FIRING&size=1'),
    [session],
  );
  useEffect(() => live.onAlert(reload), [live, reload]);
  const firing = data?.totalElements ?? 0;
  return html`<a
    href="#/alerts"
    class=${`firing-badge${firing > 0 ? ' firing' : ''}`}
    data-firing=${firing}
    title="Alerts firing now"
    >${firing} firing</a
  >`;
}
