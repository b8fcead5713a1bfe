// The API reference page (/api/v1/docs) in a real headless Chromium whose every request off the
// service's origin is refused: Scalar's bundle, served from its npm package, renders the served
// document with no request elsewhere and nothing refused by the page's Content-Security-Policy;
// the dashboard's header links to it.
import t from 'tap';
import { chromiumPath, NO_CHROMIUM, openBrowser } from '../support/browser.ts';
import { buildDashboard } from '../support/dashboard-build.ts';
import { TEST_ADMIN_KEY } from '../support/keys.ts';
import { startTestService } from '../support/service.ts';

if (chromiumPath() === null) t.plan(0, NO_CHROMIUM);
else await run();

async function run(): Promise<void> {
  t.setTimeout(360_000);
  // Before the service starts: it loads the dashboard's files once, at start-up.
  await buildDashboard();
  const svc = await startTestService(t);
  const browser = await openBrowser(svc.base);
  t.teardown(() => browser.close());

  await t.test(
    'the page and its bundle: public, same-origin only, cached by version',
    async (t) => {
      const res = await fetch(`${svc.base}/api/v1/docs`);
      t.equal(res.status, 200);
      t.match(res.headers.get('content-type'), /^text\/html/);
      const csp = res.headers.get('content-security-policy') ?? '';
      t.match(csp, /default-src 'none'/);
      t.match(csp, /script-src 'self'(;|$)/, 'no inline or outside script');
      t.match(csp, /connect-src 'self'/);
      const html = await res.text();
      const bundle = /<script src="(\/assets\/scalar-[^"]+\/standalone\.js)">/.exec(html)?.[1];
      t.ok(bundle, 'the page loads the bundle from this origin');
      const js = await fetch(svc.base + (bundle as string), {
        headers: { 'accept-encoding': 'br' },
      });
      t.equal(js.status, 200);
      t.equal(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      t.ok((await js.arrayBuffer()).byteLength > 100_000, 'the bundle');
    },
  );

  await t.test('Chromium renders every operation, offline', async (t) => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await page.goto(`${svc.base}/api/v1/docs`);
    // The first tag opens with its operations; the other tags are listed, folded.
    await page
      .getByText('UP when the database answers, else 503 DOWN with the reason')
      .first()
      .waitFor();
    await page
      .getByText('Ingest one event; 202 once it is stored', { exact: false })
      .first()
      .waitFor();
    const text = await page.locator('body').innerText();
    for (const tag of ['metrics', 'rules', 'alerts', 'silences', 'keys', 'contact-points'])
      t.match(text, new RegExp(`^${tag}$`, 'm'), `tag ${tag} listed`);
    await browser.screenshot(page, 'api-reference');
    t.same(violations, [], 'nothing refused by the CSP');
    t.same(browser.outside, [], 'no request off the origin');
    t.same(browser.errors, [], 'no console or page errors');
  });

  await t.test('the dashboard header links to the reference', async (t) => {
    const page = await browser.newPage();
    await page.goto(svc.base + '/#/overview');
    await page.fill('input[name=apiKey]', TEST_ADMIN_KEY);
    await page.click('button[type=submit]');
    await page.waitForSelector('[data-live=live]');
    const link = page.locator('header nav a[href="/api/v1/docs"]');
    t.equal(await link.count(), 1);
    t.equal(await link.textContent(), 'API');
  });
}
