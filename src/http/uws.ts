/**
 * @module The one place uWebSockets.js is loaded (front thread, tests, benches): the native
 * binary chosen for this Node ABI and glibc (uws-builds.ts), loaded directly, so a missing or
 * unloadable binary is an error at start and never the packages' slow JavaScript fallback.
 * Everything else imports only types from 'uWebSockets.js'.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type uWSModule from 'uWebSockets.js';
import { chooseUwsBuild, noUwsBuildMessage, type UwsBuild, type UwsRuntime } from './uws-builds.ts';

export type Uws = typeof uWSModule;

const require = createRequire(import.meta.url);

/** This process: its Node ABI, platform, and the glibc it runs on (from the diagnostic report). */
export function currentRuntime(): UwsRuntime {
  const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } };
  return {
    abi: Number(process.versions.modules),
    platform: process.platform,
    glibc: report.header?.glibcVersionRuntime,
  };
}

/**
 * Request line and headers, in bytes, past which uWS answers 431 itself (an HTML page, before any
 * route). uWS 20.57 defaults to 4 KiB, which a long query or a large Authorization header passes;
 * 20.30 let about 100 KiB through. 64 KiB keeps what worked working and bounds the buffering.
 * uWS reads the variable once, when its binary loads; an operator's own value wins.
 */
const MAX_HEADERS_BYTES = '65536';

function load(build: UwsBuild): Uws {
  // eslint-disable-next-line no-restricted-properties -- uWS's own setting, read from the environment by its binary
  const env = process.env;
  env.UWS_HTTP_MAX_HEADERS_SIZE ??= MAX_HEADERS_BYTES;
  const main = require.resolve(build.package);
  const file = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  return require(path.join(path.dirname(main), build.binaryDir, file)) as Uws;
}

let loaded: { readonly uws: Uws; readonly build: UwsBuild } | null = null;

/** The native uWS for this runtime (loaded once); throws, naming what to install, when none fits. */
export function nativeUws(): Uws {
  if (loaded !== null) return loaded.uws;
  const runtime = currentRuntime();
  const build = chooseUwsBuild(runtime);
  if (build === null) throw new Error(noUwsBuildMessage(runtime));
  try {
    loaded = { uws: load(build), build };
  } catch (error) {
    throw new Error(
      `The native uWebSockets.js binary of ${build.package} ${build.version} did not load ` +
        `(${String(error)}). ${noUwsBuildMessage(runtime)}`,
      { cause: error },
    );
  }
  return loaded.uws;
}

/** The package and uWS version in use, for the start-up log; null before nativeUws(). */
export function loadedUwsBuild(): string | null {
  return loaded === null ? null : `${loaded.build.package}@${loaded.build.version}`;
}
