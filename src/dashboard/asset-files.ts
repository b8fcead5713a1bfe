/**
 * @module Which files make up the dashboard and where they are on disk: the page's own modules and
 * stylesheet (compiled by `npm run build` into dist/dashboard) and the vendor modules served from
 * node_modules, each with the URL path under /assets/<version>/ and the bare name the import map
 * gives it. Paths work both from source (tsx) and compiled (dist/src/dashboard).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FROM_SOURCE = import.meta.url.endsWith('.ts');
/** The package root: src/dashboard/ is two levels down, dist/src/dashboard/ three. */
const ROOT = fileURLToPath(new URL(FROM_SOURCE ? '../../' : '../../../', import.meta.url));

/** Where `npm run build` writes the page's modules (from src/dashboard/web). */
export const PAGE_BUILD_DIR = path.join(ROOT, 'dist', 'dashboard');
/**
 * The node_modules that holds the vendor packages, found as Node resolves a package from this
 * file (a build elsewhere, such as a test's scratch directory, still finds the installed ones).
 */
export const MODULES =
  (createRequire(import.meta.url).resolve.paths('preact') ?? []).find((dir) =>
    existsSync(path.join(dir, 'preact')),
  ) ?? path.join(ROOT, 'node_modules');

export interface AssetFile {
  /** Under /assets/<version>/. */
  readonly urlPath: string;
  readonly file: string;
}

/** A bare module name in the import map -> the vendor file it loads. */
export interface VendorModule extends AssetFile {
  readonly bare?: string;
}

/** Vendor files: runtime dependencies, loaded from this package's node_modules. */
export const VENDOR_FILES: readonly VendorModule[] = [
  { bare: 'preact', urlPath: 'vendor/preact.js', file: 'preact/dist/preact.mjs' },
  { bare: 'preact/hooks', urlPath: 'vendor/preact-hooks.js', file: 'preact/hooks/dist/hooks.mjs' },
  { bare: 'htm', urlPath: 'vendor/htm.js', file: 'htm/dist/htm.module.js' },
  { bare: 'htm/preact', urlPath: 'vendor/htm-preact.js', file: 'htm/preact/index.module.js' },
  { bare: 'uplot', urlPath: 'vendor/uplot.js', file: 'uplot/dist/uPlot.esm.js' },
  { urlPath: 'vendor/uplot.css', file: 'uplot/dist/uPlot.min.css' },
  ...filesUnder(path.join(MODULES, '@stomp/stompjs/esm6'), '.js').map((rel): VendorModule => ({
    ...(rel === 'index.js' ? { bare: '@stomp/stompjs' } : {}),
    urlPath: `vendor/stompjs/${rel}`,
    file: `@stomp/stompjs/esm6/${rel}`,
  })),
].map((vendor) => ({ ...vendor, file: path.join(MODULES, vendor.file) }));

/** The page's compiled modules and stylesheet; empty when the page is not built. */
export function pageFiles(dir: string = PAGE_BUILD_DIR): AssetFile[] {
  return [...filesUnder(dir, '.js'), ...filesUnder(dir, '.css')].map((rel) => ({
    urlPath: `app/${rel}`,
    file: path.join(dir, rel),
  }));
}

/** Paths (with `/`) relative to `dir` of its files ending in `ext`, sorted; none if no `dir`. */
function filesUnder(dir: string, ext: string): string[] {
  if (statSync(dir, { throwIfNoEntry: false })?.isDirectory() !== true) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((rel) => rel.endsWith(ext))
    .map((rel) => rel.split(path.sep).join('/'))
    .sort();
}
