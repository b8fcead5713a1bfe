// SockJS in a real headless Chromium (issue 32): sockjs-client's browser build and @stomp/stompjs's
// UMD build, loaded into a page of another origin (http://localhost:<port>, listed in
// VIGIL_ALLOWED_ORIGINS) as a Spring-style dashboard served elsewhere is, so every XHR is a
// credentialed cross-origin request the browser checks. Each transport forced once: STOMP connects
// with the key as passcode, gets the snapshot at SUBSCRIBE, a /topic/metrics push, and the answer
// to SEND /app/subscribe. Skipped, saying how to install it, where there is no Chromium.
import path from 'node:path';
import t from 'tap';
import { REAL_TIMERS } from '../../src/timers.ts';
import { chromiumPath, NO_CHROMIUM, openBrowser } from '../support/browser.ts';
import { freePort } from '../support/free-port.ts';
import { TEST_ADMIN_KEY } from '../support/keys.ts';
import { startTestService } from '../support/service.ts';
import { SOCKJS_TRANSPORTS } from '../stomp/sockjs-client.ts';

const modules = path.resolve(import.meta.dirname, '../../node_modules');
const LIBRARIES = [
  path.join(modules, 'sockjs-client/dist/sockjs.min.js'),
  path.join(modules, '@stomp/stompjs/bundles/stomp.umd.min.js'),
];

/**
 * The page's side, plain browser JavaScript on the libraries' globals: `connect` opens SockJS with
 * one transport and STOMP on it and subscribes to /topic/metrics (resolving at its RECEIPT),
 * `send` SENDs and resolves at its RECEIPT, `stop` disconnects. What arrived is kept on `test`.
 */
const PAGE_SCRIPT = `
window.test = { messages: [], errors: [] };
window.test.connect = async (base, transport, key) => {
  const test = window.test;
  let socket = null;
  const client = new StompJs.Client({
    webSocketFactory: () => (socket = new SockJS(base, null, { transports: transport })),
    connectHeaders: { passcode: key },
    reconnectDelay: 0,
    heartbeatIncoming: 0,
    heartbeatOutgoing: 0,
  });
  client.onStompError = (frame) => test.errors.push(frame.headers.message);
  const receipt = (id) => new Promise((resolve) => client.watchForReceipt(id, () => resolve()));
  test.send = async (destination, id) => {
    const done = receipt(id);
    client.publish({ destination, body: '{}', headers: { receipt: id } });
    await done;
  };
  test.stop = () => client.deactivate();
  await new Promise((resolve, reject) => {
    client.onConnect = () => resolve();
    client.onWebSocketClose = (e) => reject(new Error('closed ' + e.code + ' ' + e.reason));
    client.activate();
  });
  const subscribed = receipt('sub');
  client.subscribe(
    '/topic/metrics',
    (m) => test.messages.push({ destination: m.headers.destination, body: m.body }),
    { id: 'm', receipt: 'sub' },
  );
  await subscribed;
  return { transport: socket.transport, messages: test.messages.length };
};
`;

interface Arrived {
  readonly destination: string;
  readonly body: string;
}

if (chromiumPath() === null) t.plan(0, NO_CHROMIUM);
else await run();

async function run(): Promise<void> {
  const port = await freePort();
  // The page's origin: the same service by another name, so it is a cross-origin caller.
  const pageOrigin = `http://localhost:${port}`;
  const broadcast = { held: true, fire: (): void => {} };
  const svc = await startTestService(
    t,
    { PORT: String(port), VIGIL_ALLOWED_ORIGINS: pageOrigin, METRICS_BROADCAST_MS: '200' },
    {
      hooks: {
        broadcastTimers: {
          setInterval(tick, ms) {
            broadcast.fire = tick;
            return REAL_TIMERS.setInterval(() => {
              if (!broadcast.held) tick();
            }, ms);
          },
          clearInterval: (handle) => REAL_TIMERS.clearInterval(handle),
        },
      },
    },
  );
  const browser = await openBrowser(pageOrigin);
  t.teardown(() => browser.close());

  for (const transport of SOCKJS_TRANSPORTS) {
    await t.test(`Chromium, ${transport} forced: STOMP over SockJS`, async (t) => {
      const page = await browser.newPage();
      // The service's own origin is the one the browser helper lets through; allow this one too.
      await page.route(`${svc.base}/**`, (route) => route.continue());
      // Any page of that origin will do (one without a CSP): emptied, then the two libraries.
      await page.goto(`${pageOrigin}/api/v1/events/test`);
      await page.setContent('<!doctype html><title>SockJS test</title>');
      for (const path of LIBRARIES) await page.addScriptTag({ path });
      await page.addScriptTag({ content: PAGE_SCRIPT });

      const opened = await page.evaluate<{ transport: string; messages: number }>(
        `window.test.connect(${JSON.stringify(`${svc.base}/ws`)}, '${transport}', '${TEST_ADMIN_KEY}')`,
      );
      t.equal(opened.transport, transport, 'sockjs-client is on the forced transport');
      t.equal(opened.messages, 1, 'the snapshot at SUBSCRIBE');

      broadcast.fire();
      await page.waitForFunction('window.test.messages.length === 2');

      const after = await page.evaluate<Arrived[]>(
        `window.test.send('/app/subscribe', 'app').then(() => window.test.messages)`,
      );
      t.equal(after.length, 3, '/app/subscribe answered with the snapshot, before its RECEIPT');
      for (const m of after) {
        t.equal(m.destination, '/topic/metrics');
        t.match(JSON.parse(m.body), { summary: { totalEvents: Number } });
      }
      t.same(await page.evaluate('window.test.errors'), [], 'no STOMP ERROR');
      await page.evaluate('window.test.stop()');
      t.same(browser.errors, [], 'no console error');
      t.same(browser.outside, [], 'nothing fetched from elsewhere');
      await page.close();
    });
  }
}
