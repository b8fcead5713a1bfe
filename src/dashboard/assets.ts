/**
 * @module The dashboard's files held in memory, each with its gzip and brotli encodings made once
 * at start, a strong ETag per encoding and its cache policy: the page answers synchronously,
 * never reading a file per request. The index page names every asset by a version (a hash of all
 * of them), so assets can be cached for a year and a new build is fetched at once.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { pageFiles, VENDOR_FILES, type AssetFile } from './asset-files.ts';
import { apiReference } from './api-reference.ts';
import { indexPage } from './index-page.ts';

export interface Encoded {
  readonly body: Buffer;
  readonly etag: string;
}

export interface Asset {
  readonly type: string;
  readonly cacheControl: string;
  readonly identity: Encoded;
  readonly gzip: Encoded;
  readonly br: Encoded;
  /** Extra headers (the index page's Content-Security-Policy). */
  readonly headers: Readonly<Record<string, string>>;
}

export interface Dashboard {
  /** URL path (`/`, `/assets/<version>/app/main.js`) -> asset. */
  readonly assets: ReadonlyMap<string, Asset>;
  /** URL path -> an asset too large to encode at every start: encoded at its first request. */
  readonly lazy: ReadonlyMap<string, () => Promise<Asset>>;
  /** Whether the page's own modules were found (`npm run build` makes them). */
  readonly built: boolean;
}

const TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The page's entry module (src/dashboard/web/main.ts) and stylesheet, under app/ as tsc lays them out (rootDir src). */
export const ENTRY = 'app/dashboard/web/main.js';
export const STYLESHEET = 'app/dashboard/web/style.css';

// Browsers ask for a source map only with developer tools open; none is served, so none is named.
const withoutSourceMap = (text: string): string =>
  text.replace(/^\/\/# sourceMappingURL=.*$/gm, '');

const hashOf = (body: Buffer): string =>
  createHash('sha256').update(body).digest('base64url').slice(0, 22);

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/**
 * Asynchronous: the compression (brotli at its best, a second or two of CPU for all files) runs on
 * libuv's thread pool, while start-up goes on with PostgreSQL, migrations and threads.
 */
export async function encodeAsset(
  body: Buffer,
  type: string,
  cacheControl: string,
  headers: Readonly<Record<string, string>> = {},
  brotliQuality: number = constants.BROTLI_MAX_QUALITY,
): Promise<Asset> {
  const hash = hashOf(body);
  const [gzipped, brotli] = await Promise.all([
    gzipAsync(body, { level: 9 }),
    brotliAsync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: brotliQuality,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
  ]);
  return {
    type,
    cacheControl,
    headers,
    identity: { body, etag: `"${hash}"` },
    gzip: { body: gzipped, etag: `"${hash}-gz"` },
    br: { body: brotli, etag: `"${hash}-br"` },
  };
}

function read(file: AssetFile): { urlPath: string; body: Buffer; type: string } {
  // By the served name: vendor .mjs files are served as .js.
  const ext = path.extname(file.urlPath);
  const text = readFileSync(file.file, 'utf8');
  return {
    urlPath: file.urlPath,
    body: Buffer.from(ext === '.js' ? withoutSourceMap(text) : text),
    type: TYPES[ext] ?? 'application/octet-stream',
  };
}

/** Reads and encodes every file (a few hundred KB, once at start). */
export async function loadDashboard(pageDir?: string): Promise<Dashboard> {
  const page = pageFiles(pageDir).map(read);
  const vendor = VENDOR_FILES.map(read);
  const all = [...page, ...vendor];
  const version = createHash('sha256');
  for (const file of all) version.update(file.urlPath).update(file.body);
  const prefix = `/assets/${version.digest('hex').slice(0, 12)}/`;
  const assets = new Map<string, Asset>();
  const encoded = await Promise.all(
    all.map((file) => encodeAsset(file.body, file.type, IMMUTABLE)),
  );
  all.forEach((file, i) => assets.set(prefix + file.urlPath, encoded[i] as Asset));
  const imports: Record<string, string> = {};
  for (const v of VENDOR_FILES) if (v.bare !== undefined) imports[v.bare] = prefix + v.urlPath;
  const built = page.some((file) => file.urlPath === ENTRY);
  const index = indexPage({
    imports,
    entry: built ? prefix + ENTRY : null,
    stylesheets: [prefix + 'vendor/uplot.css', prefix + STYLESHEET],
  });
  assets.set(
    '/',
    await encodeAsset(Buffer.from(index.html), TYPES['.html'] as string, 'no-cache', index.headers),
  );
  const reference = apiReference();
  assets.set(
    reference.pagePath,
    await encodeAsset(
      Buffer.from(reference.html),
      TYPES['.html'] as string,
      'no-cache',
      reference.headers,
    ),
  );
  return {
    assets,
    lazy: new Map([[reference.bundlePath, once(() => encodeBundle(reference.bundleFile))]]),
    built,
  };
}

/** The first call's promise, for every call; a failed one is tried again at the next. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make().catch((error: unknown) => {
      made = undefined;
      throw error;
    });
    return made;
  };
}

/**
 * A few MB: read at its first request, not at every start, and with brotli's quality 5 (half a
 * second of a libuv thread) rather than 11 (ten seconds).
 */
async function encodeBundle(file: string): Promise<Asset> {
  const body = Buffer.from(withoutSourceMap(await readFile(file, 'utf8')));
  return encodeAsset(body, TYPES['.js'] as string, IMMUTABLE, {}, 5);
}
