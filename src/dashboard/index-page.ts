/**
 * @module The dashboard's one HTML page and its Content-Security-Policy. Scripts run only from
 * this origin, plus the inline import map (import maps must be inline) allowed by its hash;
 * nothing may be loaded from, sent to or framed by another origin.
 */
import { createHash } from 'node:crypto';

export interface IndexPageInput {
  /** The import map: bare module name -> URL path. */
  readonly imports: Readonly<Record<string, string>>;
  /** The entry module's path; null when the page's modules are not built. */
  readonly entry: string | null;
  readonly stylesheets: readonly string[];
}

export interface IndexPage {
  readonly html: string;
  readonly headers: Readonly<Record<string, string>>;
}

const NOT_BUILT =
  '<main class="not-built"><h1>Vigil</h1><p>The dashboard is not built: run <code>npm run build</code> ' +
  '(<code>npm start</code> does) and restart the service.</p></main>';

/** Paths here are ours (no quotes or angle brackets), so they need no escaping. */
export function indexPage(input: IndexPageInput): IndexPage {
  const importMap = JSON.stringify({ imports: input.imports });
  const hash = createHash('sha256').update(importMap).digest('base64');
  const links = input.stylesheets.map((href) => `<link rel="stylesheet" href="${href}">`).join('');
  const entry = input.entry === null ? '' : `<script type="module" src="${input.entry}"></script>`;
  const html =
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<meta name="color-scheme" content="light dark"><title>Vigil</title>' +
    // No favicon request (and no 404 for one in the console).
    '<link rel="icon" href="data:,">' +
    `${links}<script type="importmap">${importMap}</script>${entry}</head>` +
    `<body><div id="app">${input.entry === null ? NOT_BUILT : ''}</div></body></html>`;
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'sha256-${hash}'`,
    "style-src 'self'",
    "img-src 'self' data:",
    // 'self' covers ws:/wss: to this host in CSP Level 3 browsers.
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
  return {
    html,
    headers: {
      'Content-Security-Policy': csp,
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
    },
  };
}
