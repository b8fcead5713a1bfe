/**
 * @module The HTTP API's reference page at /api/v1/docs: Scalar's standalone bundle, from its npm
 * package, rendering GET /api/v1/openapi.json. Everything comes from this origin: the
 * Content-Security-Policy lets the page load, send to and frame nothing else, and the
 * configuration turns off what would reach Scalar's servers (fonts, telemetry, agent, MCP).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MODULES } from './asset-files.ts';

export const API_REFERENCE_PATH = '/api/v1/docs';
export const OPENAPI_JSON_PATH = '/api/v1/openapi.json';

const PACKAGE_DIR = path.join(MODULES, '@scalar', 'api-reference');

/** Scalar's configuration (its `data-configuration` attribute). */
const CONFIGURATION = {
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  hideClientButton: true,
  documentDownloadType: 'both',
};

export interface ApiReference {
  readonly pagePath: string;
  readonly html: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Where the page loads the bundle from: versioned, so it may be cached for a year. */
  readonly bundlePath: string;
  readonly bundleFile: string;
}

const escapeAttribute = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function apiReference(): ApiReference {
  const { version } = JSON.parse(readFileSync(path.join(PACKAGE_DIR, 'package.json'), 'utf8')) as {
    version: string;
  };
  const bundlePath = `/assets/scalar-${version}/standalone.js`;
  // A JSON data block, not a script: nothing inline runs, so script-src needs no hash.
  const html =
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<title>Vigil HTTP API</title><link rel="icon" href="data:,"></head><body>' +
    `<script id="api-reference" type="application/json" data-url="${OPENAPI_JSON_PATH}" ` +
    `data-configuration="${escapeAttribute(JSON.stringify(CONFIGURATION))}"></script>` +
    `<script src="${bundlePath}"></script></body></html>`;
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    // Scalar's components set their styles at run time.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    pagePath: API_REFERENCE_PATH,
    html,
    headers: {
      'Content-Security-Policy': csp,
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
    },
    bundlePath,
    bundleFile: path.join(PACKAGE_DIR, 'dist', 'browser', 'standalone.js'),
  };
}
