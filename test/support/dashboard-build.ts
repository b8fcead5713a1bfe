/**
 * Builds the dashboard's browser code (what `npm run build` does for it) before a test starts a
 * service that serves it: tests run from source through tsx, which compiles no browser modules.
 * Test files run two at a time, so the build holds a lock directory; the next file waits for it
 * (tsc is incremental: a build with nothing changed takes about a second).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PAGE_BUILD_DIR } from '../../src/dashboard/asset-files.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const LOCK = path.join(ROOT, 'dist', '.dashboard-build.lock');
/** A lock older than this was left by a killed run. */
const STALE_LOCK_MS = 120_000;

async function takeLock(): Promise<void> {
  mkdirSync(path.dirname(LOCK), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      return;
    } catch {
      const since = statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs;
      if (since !== undefined && Date.now() - since > STALE_LOCK_MS)
        rmSync(LOCK, { force: true, recursive: true });
      await sleep(200);
    }
  }
}

export async function buildDashboard(): Promise<void> {
  await takeLock();
  try {
    execFileSync(
      process.execPath,
      [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'src/dashboard/web/tsconfig.json'],
      { cwd: ROOT, stdio: 'inherit' },
    );
    copyFileSync(
      path.join(ROOT, 'src/dashboard/web/style.css'),
      path.join(PAGE_BUILD_DIR, 'dashboard/web/style.css'),
    );
  } finally {
    rmSync(LOCK, { force: true, recursive: true });
  }
}
