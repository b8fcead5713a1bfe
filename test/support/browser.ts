/**
 * Debian's Chromium driven by playwright-core (which downloads no browser) for the dashboard's
 * tests and soak: launched headless with a fresh profile, every request checked to stay on the
 * service's origin, every console error and page error collected, screenshots written under
 * .test-output/ (not committed). Where no Chromium is installed, `chromiumPath()` is null and the
 * callers skip with one line saying how to install it.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const NO_CHROMIUM = `no Chromium at ${CHROMIUM_PATH}: apt-get install -y chromium`;

/** The flags of research-next.md section 1: the closed network refuses background connections. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** How long a page action or wait may take before the test fails (playwright's default: 30 s). */
const BROWSER_WAIT_MS = 90_000;

/**
 * A browser test file's own timeout, past .taprc's 180 s: one file drives a dozen pages in one
 * browser, and on a busy machine (a backtest waits its turn) that alone can take 3 minutes.
 */
export const BROWSER_FILE_TIMEOUT_MS = 420_000;

export const SCREENSHOTS = path.resolve(import.meta.dirname, '../../.test-output/dashboard');

export const chromiumPath = (): string | null => (existsSync(CHROMIUM_PATH) ? CHROMIUM_PATH : null);

export interface BrowserSession {
  readonly context: BrowserContext;
  /** Console errors and uncaught page errors, in order. */
  readonly errors: string[];
  /** Requests for anything not on the service's origin (each was refused). */
  readonly outside: string[];
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  screenshot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

export async function openBrowser(
  base: string,
  options: { colorScheme?: 'light' | 'dark' } = {},
): Promise<BrowserSession> {
  const executablePath = chromiumPath();
  if (executablePath === null) throw new Error(NO_CHROMIUM);
  const profile = await mkdtemp(path.join(tmpdir(), 'vigil-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 800 },
    colorScheme: options.colorScheme ?? 'light',
  });
  // A busy machine (CI's two cores, a backtest's low-priority thread) can take longer than
  // playwright's 30 s default to show what a test waits for; the file's own timeout still bounds it.
  context.setDefaultTimeout(BROWSER_WAIT_MS);
  const errors: string[] = [];
  const outside: string[] = [];
  const origin = new URL(base).origin;
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin || url.startsWith('data:')) return route.continue();
    outside.push(url);
    return route.abort('blockedbyclient');
  });
  const watch = (page: Page): void => {
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
  };
  context.pages().forEach(watch);
  context.on('page', watch);
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    context,
    errors,
    outside,
    async newPage(viewport) {
      const page =
        context.pages().find((p) => p.url() === 'about:blank') ?? (await context.newPage());
      if (viewport !== undefined) await page.setViewportSize(viewport);
      return page;
    },
    async screenshot(page, name) {
      await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
