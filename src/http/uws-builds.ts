/**
 * @module Which native uWebSockets.js build fits this runtime (pure): the packages Vigil installs,
 * the Node ABIs each ships binaries for and the glibc they need, and the choice among them.
 * docs/decisions.md says where each package comes from and why both are needed.
 */

export interface UwsBuild {
  /** The npm package, as resolved from package.json. */
  readonly package: string;
  /** The uWS version it builds, shown in messages; newer builds are preferred. */
  readonly version: string;
  /** process.versions.modules values it ships binaries for. */
  readonly abis: readonly number[];
  /** The oldest glibc its Linux binaries load on (`[major, minor]`). */
  readonly minGlibc: readonly [number, number];
  /** Where its `uws_<platform>_<arch>_<abi>.node` files are, relative to its main script. */
  readonly binaryDir: string;
}

/** What the running process is: `glibc` is undefined off Linux or on a libc other than glibc. */
export interface UwsRuntime {
  readonly abi: number;
  readonly platform: NodeJS.Platform;
  readonly glibc: string | undefined;
}

/** Newest first. ABI 115 = Node 20, 127 = 22, 137 = 24, 141 = 25. */
export const UWS_BUILDS: readonly UwsBuild[] = [
  {
    package: 'uWebSockets.js', // npm:@btc-vision/uwebsockets.js
    version: '20.57.0',
    abis: [115, 127, 137, 141],
    minGlibc: [2, 38],
    binaryDir: '.',
  },
  {
    package: '@trufflesuite/uws-js-unofficial',
    version: '20.30.0',
    abis: [93, 108, 115],
    minGlibc: [2, 27],
    binaryDir: '../binaries',
  },
];

const NODE_OF_ABI: Readonly<Record<number, string>> = {
  93: '16',
  108: '18',
  115: '20',
  127: '22',
  137: '24',
  141: '25',
};

function parseGlibc(version: string): [number, number] | null {
  const match = /^(\d+)\.(\d+)/.exec(version);
  return match === null ? null : [Number(match[1]), Number(match[2])];
}

function glibcFits(runtime: UwsRuntime, build: UwsBuild): boolean {
  // macOS and Windows binaries need no glibc; Linux ones do (none is built for musl).
  if (runtime.platform !== 'linux') return true;
  const have = runtime.glibc === undefined ? null : parseGlibc(runtime.glibc);
  if (have === null) return false;
  const [major, minor] = build.minGlibc;
  return have[0] > major || (have[0] === major && have[1] >= minor);
}

/** The newest build that has a binary for this ABI and loads on this glibc; null when none does. */
export function chooseUwsBuild(
  runtime: UwsRuntime,
  builds: readonly UwsBuild[] = UWS_BUILDS,
): UwsBuild | null {
  return (
    builds.find((build) => build.abis.includes(runtime.abi) && glibcFits(runtime, build)) ?? null
  );
}

/** Why nothing fits, and what to install instead: the start-up error's message. */
export function noUwsBuildMessage(
  runtime: UwsRuntime,
  builds: readonly UwsBuild[] = UWS_BUILDS,
): string {
  const node = NODE_OF_ABI[runtime.abi] ?? `with ABI ${runtime.abi}`;
  const libc =
    runtime.platform !== 'linux'
      ? runtime.platform
      : runtime.glibc === undefined
        ? 'a Linux without glibc (musl?)'
        : `glibc ${runtime.glibc}`;
  const options = builds.map((build) => {
    const nodes = build.abis.map((abi) => NODE_OF_ABI[abi] ?? String(abi)).join(', ');
    return `Node ${nodes} on glibc >= ${build.minGlibc.join('.')} (uWS ${build.version})`;
  });
  return (
    `No native uWebSockets.js build fits Node ${node} on ${libc}, and Vigil does not run on the ` +
    `slow JavaScript fallback. Install one of: ${options.join('; or ')}. ` +
    'For example Node 24 on Debian 13 or Ubuntu 24.04, or Node 20 on an older glibc.'
  );
}
