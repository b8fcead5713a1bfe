// Which native uWebSockets.js build the loader picks for a Node ABI and a glibc (pure), and that
// the one picked for this very process loads as native code (never the JavaScript fallback).
import t from 'tap';
import type uWSTypes from 'uWebSockets.js';
import {
  chooseUwsBuild,
  noUwsBuildMessage,
  UWS_BUILDS,
  type UwsBuild,
  type UwsRuntime,
} from '../../src/http/uws-builds.ts';
import { currentRuntime, loadedUwsBuild, nativeUws } from '../../src/http/uws.ts';

const linux = (abi: number, glibc: string | undefined): UwsRuntime => ({
  abi,
  platform: 'linux',
  glibc,
});
const chosen = (runtime: UwsRuntime, builds?: readonly UwsBuild[]): string | null => {
  const build = chooseUwsBuild(runtime, builds);
  return build === null ? null : `${build.package}@${build.version}`;
};
const NEW = 'uWebSockets.js@20.57.0';
const OLD = '@trufflesuite/uws-js-unofficial@20.30.0';

void t.test('Node 20: the newest build on glibc >= 2.38, the older one below', async (t) => {
  t.equal(chosen(linux(115, '2.41')), NEW);
  t.equal(chosen(linux(115, '2.38')), NEW, 'exactly the minimum');
  t.equal(chosen(linux(115, '2.36')), OLD, 'Debian 12');
  t.equal(chosen(linux(115, '2.27')), OLD);
  t.equal(chosen(linux(115, '2.26')), null, 'below both');
});

void t.test('Node 22, 24, 25: only the newest build, and only on glibc >= 2.38', async (t) => {
  for (const abi of [127, 137, 141]) {
    t.equal(chosen(linux(abi, '2.39')), NEW, `ABI ${abi}`);
    t.equal(chosen(linux(abi, '3.0')), NEW, `ABI ${abi}, a glibc 3`);
    t.equal(chosen(linux(abi, '2.36')), null, `ABI ${abi} on Debian 12`);
  }
});

void t.test('an ABI no build ships, musl, an unreadable glibc: none', async (t) => {
  t.equal(chosen(linux(131, '2.41')), null, 'Node 23');
  t.equal(chosen(linux(83, '2.41')), null, 'Node 14');
  t.equal(chosen(linux(137, undefined)), null, 'no glibc (musl)');
  t.equal(chosen(linux(115, 'unknown')), null);
});

void t.test('macOS and Windows need no glibc', async (t) => {
  t.equal(chosen({ abi: 137, platform: 'darwin', glibc: undefined }), NEW);
  t.equal(chosen({ abi: 108, platform: 'win32', glibc: undefined }), OLD, 'Node 18');
});

void t.test('the order of the candidates decides between two that fit', async (t) => {
  t.equal(chosen(linux(115, '2.41'), [...UWS_BUILDS].reverse()), OLD);
  t.equal(chosen(linux(115, '2.41'), []), null);
});

void t.test('the message names the Node and glibc found and what to install', async (t) => {
  const message = noUwsBuildMessage(linux(137, '2.36'));
  t.match(message, /Node 24 on glibc 2\.36/);
  t.match(message, /Node 20, 22, 24, 25 on glibc >= 2\.38/);
  t.match(message, /Node 16, 18, 20 on glibc >= 2\.27/);
  t.match(message, /slow JavaScript fallback/);
  t.match(noUwsBuildMessage(linux(137, undefined)), /without glibc/);
});

void t.test('this process: the chosen build loads, as native code', async (t) => {
  const expected = chosen(currentRuntime());
  t.not(expected, null, `a build fits ${JSON.stringify(currentRuntime())}`);
  const uws = nativeUws();
  t.equal(loadedUwsBuild(), expected);
  t.match(uws.App.toString(), /\[native code\]/);
});

void t.test('a 30 KB request line reaches the routes on every build (not uWS 431)', async (t) => {
  const uws = nativeUws();
  const app = uws.App().any('/*', (res, req) => {
    res.end(String(req.getUrl().length));
  });
  const token = await new Promise<uWSTypes.us_listen_socket>((resolve, reject) =>
    app.listen('127.0.0.1', 0, (listen) =>
      listen ? resolve(listen) : reject(new Error('listen')),
    ),
  );
  t.teardown(() => uws.us_listen_socket_close(token));
  const path = `/${'a'.repeat(30_000)}`;
  const res = await fetch(`http://127.0.0.1:${uws.us_socket_local_port(token)}${path}`);
  t.equal(res.status, 200);
  t.equal(await res.text(), String(path.length));
});
