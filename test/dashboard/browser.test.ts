// The dashboard in a real headless Chromium (issue 19): sign in, live numbers that change after
// events are posted, an alert that appears and resolves, a rule made in the editor (after a
// validation message for a bad one), enabled and disabled, events paged through, and an overview
// that keeps its history over a reload. Issue 34's fixes: legends with the newest values before
// any hover, the firing badge, each alert in one table, no Acknowledge on a resolved alert, no name
// error before typing, "Add condition" without "Group", a backtest of every condition zoomed to
// its data, PENDING with its reason on the rules list. Every view is saved as a screenshot under .test-output/;
// the page must log no console error and fetch nothing outside the service. Every wait is for
// something the page shows, never for a length of time.
import t from 'tap';
import type { Page } from 'playwright-core';
import {
  BROWSER_FILE_TIMEOUT_MS,
  chromiumPath,
  NO_CHROMIUM,
  openBrowser,
} from '../support/browser.ts';
import { buildDashboard } from '../support/dashboard-build.ts';
import { keyHeaders, TEST_ADMIN_KEY } from '../support/keys.ts';
import { startTestService, type TestService } from '../support/service.ts';

if (chromiumPath() === null) t.plan(0, NO_CHROMIUM);
else {
  t.setTimeout(BROWSER_FILE_TIMEOUT_MS);
  await run();
}

async function run(): Promise<void> {
  await buildDashboard();
  const svc = await startTestService(t, {
    METRICS_REFRESH_MS: '100',
    METRICS_BROADCAST_MS: '200',
    RULE_EVALUATION_MS: '200',
  });
  const browser = await openBrowser(svc.base);
  t.teardown(() => browser.close());
  const page = await browser.newPage();
  /** Errors the page may log on purpose (a refused key), removed once checked. */
  const expectedErrors = (pattern: RegExp): void => {
    const kept = browser.errors.filter((e) => !pattern.test(e));
    browser.errors.splice(0, browser.errors.length, ...kept);
  };

  t.test(
    'sign in: a wrong key is refused with the server message, the admin key works',
    async (t) => {
      await page.goto(svc.base + '/');
      await page.fill('input[name=apiKey]', 'not-a-key');
      await page.click('button[type=submit]');
      const refusal = await page.waitForSelector('.sign-in [role=alert]');
      t.match(await refusal.textContent(), /key/i);
      expectedErrors(/status of 401/);
      await browser.screenshot(page, 'sign-in');
      await page.fill('input[name=apiKey]', TEST_ADMIN_KEY);
      await page.click('button[type=submit]');
      await page.waitForSelector('[data-live=live]');
      t.match(await page.textContent('.who'), '(admin)');
    },
  );

  t.test('live numbers change after events are posted', async (t) => {
    await page.waitForSelector('[data-stat=total-events]');
    t.equal(await page.textContent('[data-stat=total-events]'), '0');
    await postEvents(svc, 12, { eventType: 'checkout', source: 'web', severity: 'ERROR' }, 3);
    await page.waitForSelector('[data-stat=total-events]:text-is("12")');
    await page.waitForSelector('[data-stat=error-rate]:text-is("25.0 %")');
    const bars = await page.textContent('section[aria-label="Top event types"]');
    t.match(bars, 'checkout');
    await everyChartDraws(page);
    // Before any hover the legends show the newest values, not "--".
    await page.waitForSelector(
      'section[aria-label="Events per second"] .u-series:nth-child(2) .u-value',
    );
    const legend = await page
      .locator('section[aria-label="Events per second"] .u-value')
      .allTextContents();
    t.notOk(legend.includes('--'), `legend ${legend.join(' | ')}`);
    t.equal(await page.getAttribute('.firing-badge', 'data-firing'), '0', 'no alert firing');
    await browser.screenshot(page, 'overview');
  });

  t.test('an alert appears, is acknowledged, and resolves', async (t) => {
    const rule = await createRule(svc, {
      name: 'Browser alert',
      ruleType: 'THRESHOLD',
      severity: 'HIGH',
      ruleConfig: { metric: 'eventsByType[alarm]', operator: 'GREATER_THAN', threshold: 0 },
      suppressionWindowMinutes: 0,
    });
    await page.click('a[href="#/alerts"]');
    await page.waitForSelector('#open-alerts');
    await postEvents(svc, 1, { eventType: 'alarm', source: 'web' });
    const open = 'table[aria-label="Open alerts"] tr[data-state=FIRING]';
    await page.waitForSelector(open);
    t.match(await page.textContent(open), 'Browser alert');
    await page.waitForSelector('.firing-badge[data-firing="1"]');
    t.notOk(
      await page.$('table[aria-label="Alert history"] tr[data-state=FIRING]'),
      'a FIRING alert is in the open table only',
    );
    await page.click(`${open} button`);
    await page.waitForSelector(`${open} >> text=ack by`);
    await browser.screenshot(page, 'alerts-firing');
    // Pausing the rule resolves its incident (rules.md "Lifecycle"), published on /topic/alerts.
    const paused = await svc.request(`/api/v1/rules/${rule}/disable`, { method: 'POST' });
    t.equal(paused.status, 200);
    await page.waitForSelector('table[aria-label="Alert history"] tr[data-state=RESOLVED]');
    await page.waitForSelector('table[aria-label="Open alerts"]', { state: 'detached' });
    t.match(await page.textContent('#open-alerts'), 'Open (0)');
    await page.waitForSelector('.firing-badge[data-firing="0"]');
    await browser.screenshot(page, 'alerts-resolved');
  });

  t.test('a resolved alert that nobody acknowledged offers no Acknowledge', async (t) => {
    const rule = await createRule(svc, {
      name: 'Browser unacked',
      ruleType: 'THRESHOLD',
      severity: 'LOW',
      ruleConfig: { metric: 'eventsByType[unacked]', operator: 'GREATER_THAN', threshold: 0 },
      suppressionWindowMinutes: 0,
    });
    await postEvents(svc, 1, { eventType: 'unacked', source: 'web' });
    const open =
      'table[aria-label="Open alerts"] tr[data-state=FIRING]:has-text("Browser unacked")';
    await page.waitForSelector(`${open} button:has-text("Acknowledge")`);
    const paused = await svc.request(`/api/v1/rules/${rule}/disable`, { method: 'POST' });
    t.equal(paused.status, 200);
    const row =
      'table[aria-label="Alert history"] tr[data-state=RESOLVED]:has-text("Browser unacked")';
    await page.waitForSelector(row);
    t.notOk(await page.$(`${row} button`), 'no Acknowledge on a resolved alert');
    // The history filters by rule.
    await page.selectOption('select[name=ruleId]', String(rule));
    await page.waitForSelector('table[aria-label="Alert history"] tr:has-text("Browser alert")', {
      state: 'detached',
    });
    t.ok(await page.$(row), 'the rule filter keeps its alert');
    await page.selectOption('select[name=ruleId]', '');
  });

  t.test(
    'the editor shows the server validation, creates a rule; enable and disable',
    async (t) => {
      await page.click('a[href="#/rules"]');
      await page.click('text=New rule');
      // Nothing typed yet: a hint, no error.
      await page.waitForSelector('[data-unnamed=true]');
      t.notOk(await page.$('.validation'), 'no "Give the rule a name" before anything is typed');
      await page.fill('input[name=name]', 'Browser rule');
      await page.fill('input[name="ruleConfig.threshold"]', 'lots');
      const problem = await page.waitForSelector('.validation >> text=Invalid threshold type');
      t.match(await problem.textContent(), 'expected a number');
      await browser.screenshot(page, 'editor-invalid');
      await page.fill('input[name="ruleConfig.threshold"]', '50');
      // A composite: the leaf becomes the first condition of an AND with a second one.
      await page.click('.leaf >> text=Group');
      await page.click('text=Add condition');
      await page.fill('input[name="ruleConfig.conditions[1].metric"]', 'latencyP95');
      await page.fill('input[name="ruleConfig.conditions[1].threshold"]', '800');
      await page.waitForSelector('[data-valid=true]');
      t.match(await page.textContent('details pre'), '"logicalOperator": "AND"');
      await browser.screenshot(page, 'editor-valid');
      await page.click('text=Create rule');
      const row = 'tr:has-text("Browser rule")';
      await page.waitForSelector(`${row}[data-status=ACTIVE]`);
      await page.click(`${row} >> text=Disable`);
      await page.waitForSelector(`${row}[data-status=PAUSED]`);
      await page.click(`${row} >> text=Enable`);
      await page.waitForSelector(`${row}[data-status=ACTIVE]`);
      const stored = (await (await svc.request('/api/v1/rules')).json()) as {
        name: string;
        ruleConfig: { logicalOperator?: string };
      }[];
      t.equal(stored.find((r) => r.name === 'Browser rule')?.ruleConfig.logicalOperator, 'AND');
      await browser.screenshot(page, 'rules');
    },
  );

  t.test(
    'the editor backtests a draft: a chart and the transitions it would have made',
    async (t) => {
      await page.click('a[href="#/rules"]');
      await page.click('text=New rule');
      await page.fill('input[name=name]', 'Backtested rule');
      await page.fill('input[name="ruleConfig.metric"]', 'eventsByType[checkout]');
      await page.fill('input[name="ruleConfig.threshold"]', '0');
      // A second condition without "Group" first.
      await page.click('.add-condition');
      await page.fill('input[name="ruleConfig.conditions[1].metric"]', 'eventsBySource[web]');
      await page.fill('input[name="ruleConfig.conditions[1].threshold"]', '0');
      await page.waitForSelector('[data-valid=true]');
      await page.click('.backtest button:has-text("Backtest")');
      const answer = await page.waitForSelector('.backtest-result, .backtest .error');
      t.match(
        await answer.getAttribute('class'),
        'backtest-result',
        (await answer.textContent()) ?? '',
      );
      // The checkout events posted above are stored: the rule would have fired on them.
      const fired = await page.waitForSelector(
        'table[aria-label="Backtest transitions"] tr[data-transition=FIRING]',
      );
      t.match(await fired.textContent(), 'eventsByType[checkout]');
      await page.waitForSelector('.backtest-chart[data-points]');
      const points = Number(await page.getAttribute('.backtest-chart', 'data-points'));
      t.ok(points > 100, `the chart holds the day (${points} points)`);
      t.equal(await page.getAttribute('.backtest-chart', 'data-series'), '2', 'both conditions');
      t.match(await page.getAttribute('.backtest-chart', 'data-zoom'), /^\d+-\d+$/, 'zoomed');
      t.ok(await page.$('.backtest-chart canvas'), 'drawn by uPlot');
      await browser.screenshot(page, 'editor-backtest');
      await page.click('text=Cancel');
    },
  );

  t.test(
    'a stored ANOMALY rule is backtested from the list by its id: the chart of its band',
    async (t) => {
      // LEARNING for a week: it never fires live, so the other views are not disturbed.
      await createRule(svc, {
        name: 'Browser anomaly',
        ruleType: 'ANOMALY',
        severity: 'LOW',
        ruleConfig: { metric: 'eventRate', bucketMinutes: 1, minHistoryMinutes: 10_080 },
      });
      await page.click('a[href="#/alerts"]');
      await page.click('a[href="#/rules"]');
      await page.click('tr:has-text("Browser anomaly") >> button:has-text("Backtest")');
      await page.click('.stored-backtest .backtest button:has-text("Backtest")');
      const answer = await page.waitForSelector(
        '.stored-backtest .backtest-result, .stored-backtest .error',
      );
      t.match(
        await answer.getAttribute('class'),
        'backtest-result',
        (await answer.textContent()) ?? '',
      );
      await page.waitForSelector('.stored-backtest .backtest-chart[data-kind=band]');
      t.ok(await page.$('.stored-backtest .backtest-chart canvas'), 'drawn by uPlot');
      await browser.screenshot(page, 'rules-backtest-anomaly');
      await page.click('.stored-backtest button:has-text("Close")');
    },
  );

  t.test('rules: the state now, PENDING with its reason', async (t) => {
    const rule = await createRule(svc, {
      name: 'Browser pending',
      ruleType: 'THRESHOLD',
      severity: 'LOW',
      ruleConfig: {
        metric: 'eventsByType[slow.burn]',
        operator: 'GREATER_THAN',
        threshold: 0,
        pendingSeconds: 3600,
      },
    });
    await postEvents(svc, 1, { eventType: 'slow.burn', source: 'web' });
    for (let state = ''; state !== 'PENDING';) {
      const res = await svc.request(`/api/v1/rules/${rule}/status`);
      state = ((await res.json()) as { state: string }).state;
      if (state !== 'PENDING') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await page.click('a[href="#/alerts"]');
    await page.click('a[href="#/rules"]');
    const row = `tr[data-rule="${rule}"]`;
    await page.waitForSelector(`${row} [data-rule-state=PENDING]`);
    t.match(await page.textContent(row), /pending since/);
    await browser.screenshot(page, 'rules-pending');
  });

  t.test('events: load more, one event as JSON, send a test event', async (t) => {
    await postEvents(svc, 60, { eventType: 'page.view', source: 'web', userId: 'u1' });
    await page.click('a[href="#/events"]');
    await page.waitForSelector('.pager[data-rows="50"]');
    await page.click('.pager >> text=Load more');
    await page.waitForSelector('.pager:not([data-rows="50"])');
    const rows = await eventIds(page);
    t.equal(new Set(rows).size, rows.length, 'no event twice');
    const first = await page.textContent('tr[data-event] button');
    await page.click('tr[data-event] button');
    const json = await page.waitForSelector('section[aria-label="Event JSON"] pre');
    t.match(await json.textContent(), `"eventId": "${first}"`);
    await page.fill('input[name=eventType]', 'dashboard.test');
    await page.click('.send-event button[type=submit]');
    await page.waitForSelector('.send-event >> text=Stored as evt_');
    await browser.screenshot(page, 'events');
  });

  t.test('a reload keeps the overview history, even with no live feed', async (t) => {
    // The WebSocket answers nothing here: whatever the charts draw comes from the history endpoint.
    let blockLive = true;
    await page.routeWebSocket(/\/ws$/, (ws) => {
      if (!blockLive) ws.connectToServer();
    });
    // From another document: going from #/events to #/overview alone would not reload the page.
    await page.goto('about:blank');
    await page.goto(svc.base + '/#/overview');
    await everyChartDraws(page);
    t.ok((await page.$('[data-stat=total-events]')) === null, 'no push arrived');
    blockLive = false;
    await page.reload();
    await page.waitForSelector('[data-live=live]');
    await everyChartDraws(page);
    const before = Number(await page.getAttribute('.chart-box', 'data-points'));
    // Points only grow (until the ring is full): a count other than before is a push drawn.
    await page.waitForSelector(`.chart-box:not([data-points="${before}"])`);
    t.pass('the pushes continue the history');
  });

  t.test('phone screen and dark theme: no sideways scrolling', async (t) => {
    const phone = await browser.newPage({ width: 390, height: 844 });
    await phone.emulateMedia({ colorScheme: 'dark' });
    // sessionStorage is per tab: a new tab signs in again.
    await signIn(phone, svc.base + '/#/overview', TEST_ADMIN_KEY);
    await phone.waitForSelector('[data-stat=total-events]');
    const width = Number(await phone.evaluate('document.documentElement.scrollWidth'));
    t.ok(width <= 390, `page width ${width}`);
    await browser.screenshot(phone, 'overview-phone-dark');
    await phone.close();
  });

  t.test('keyboard only: sign in with Enter, reach the rules with Tab', async (t) => {
    const kb = await browser.newPage();
    await kb.goto(svc.base + '/');
    await kb.waitForSelector('input[name=apiKey]:focus');
    await kb.keyboard.type(TEST_ADMIN_KEY);
    await kb.keyboard.press('Enter');
    await kb.waitForSelector('[data-live=live]');
    let focused = '';
    for (let i = 0; i < 10 && focused !== 'Rules'; i++) {
      await kb.keyboard.press('Tab');
      focused = (await kb.locator(':focus').textContent()) ?? '';
    }
    t.equal(focused, 'Rules', 'the Rules link takes the focus');
    await kb.keyboard.press('Enter');
    await kb.waitForSelector('table[aria-label=Rules]');
    await kb.close();
  });

  t.test('a read key sees no admin action', async (t) => {
    const res = await svc.request('/api/v1/keys', {
      json: { name: 'browser-read', scope: 'read' },
    });
    const { key } = (await res.json()) as { key: string };
    const reader = await browser.newPage();
    await signIn(reader, svc.base + '/#/rules', key);
    await reader.waitForSelector('tr[data-rule]');
    t.match(await reader.textContent('.who'), '(read)');
    t.ok((await reader.$('text=Disable')) === null, 'no Disable');
    t.ok((await reader.$('text=New rule')) === null, 'no New rule');
    t.ok(await reader.$('text=Try a rule'));
    await reader.close();
    // The key works for reading only: the page never tried an admin call with it.
    t.equal((await svc.request('/api/v1/rules', { headers: keyHeaders(key) })).status, 200);
  });

  t.test('no console errors, nothing fetched from outside the service', async (t) => {
    // Before the event search API (issue 34) is merged, the explorer's histogram is a 404.
    if (!(await hasSearchApi(svc))) expectedErrors(/status of 404/);
    t.same(browser.errors, []);
    t.same(browser.outside, []);
  });
}

/** The event search of issue 34 is served (its histogram endpoint answers). */
async function hasSearchApi(svc: TestService): Promise<boolean> {
  const res = await svc.request('/api/v1/events/histogram?buckets=10');
  await res.arrayBuffer();
  return res.status === 200;
}

/** Every chart draws at least one point (chart.ts keeps the count in data-points). */
async function everyChartDraws(page: Page): Promise<void> {
  await page.waitForSelector('.chart-box[data-points]');
  await page.waitForSelector('.chart-box[data-points="0"]', { state: 'detached' });
}

async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(url);
  await page.fill('input[name=apiKey]', key);
  await page.click('button[type=submit]');
  await page.waitForSelector('[data-live=live]');
}

async function postEvents(
  svc: TestService,
  count: number,
  fields: Record<string, string>,
  errors = 0,
): Promise<void> {
  const batch = Array.from({ length: count }, (_, i) => ({
    ...fields,
    ...(i < errors ? { severity: 'ERROR' } : i >= errors && errors > 0 ? { severity: 'INFO' } : {}),
  }));
  const res = await svc.request('/api/v1/events/batch', { json: batch });
  if (res.status !== 202) throw new Error(`batch: ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
}

async function createRule(svc: TestService, body: Record<string, unknown>): Promise<number> {
  const res = await svc.request('/api/v1/rules', { json: body });
  if (res.status !== 201) throw new Error(`rule: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: number }).id;
}

/** The eventIds of the rows shown, in order. */
async function eventIds(page: Page): Promise<(string | null)[]> {
  return Promise.all(
    (await page.$$('tr[data-event]')).map((row) => row.getAttribute('data-event')),
  );
}
