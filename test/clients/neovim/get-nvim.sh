#!/usr/bin/env bash
# Fetches a newer Neovim from Debian into a private folder, without installing anything, and
# prints the path of a command that runs it. For trying the Neovim samples on newer versions:
#
#   PI_NVIM="nvim,$(test/clients/neovim/get-nvim.sh 0.12)" npx vitest run test/clients/neovim.test.ts
#
# VERSION: 0.10 (Debian trixie: 0.10.4) or 0.12 (Debian forky: 0.12.x); no Debian suite has 0.11.
# DIR (default: $TMPDIR/pi-session-nvim): where the packages are unpacked; reused when present.
#
# Those Neovims need a newer glibc than Debian bookworm's, so the wrapper runs nvim through the
# suite's own ld-linux with the unpacked libraries (the processes it starts use the system's), and
# adds the unpacked tree-sitter parsers to 'runtimepath'. Headless use only: the 0.10+ terminal UI
# re-executes its own binary (--embed), which the ld-linux wrapper does not survive; for a screen,
# run `nvim --headless --listen SOCK FILE` and attach with `nvim --remote-ui --server SOCK`.
set -euo pipefail

version="${1:?usage: get-nvim.sh 0.10|0.12 [DIR]}"
case "$version" in
  0.10) suite=trixie ;;
  0.12) suite=forky ;;
  *) echo "get-nvim.sh: no Debian suite known for Neovim $version (0.10 or 0.12)" >&2; exit 2 ;;
esac
base="${2:-${TMPDIR:-/tmp}/pi-session-nvim}/$suite"
wrapper="$base/nvim"
if [ -x "$wrapper" ] && "$wrapper" --version >/dev/null 2>&1; then
  echo "$wrapper"
  exit 0
fi

mkdir -p "$base/apt/lists/partial" "$base/apt/cache/archives/partial" "$base/debs" "$base/root"
echo "deb http://deb.debian.org/debian $suite main" >"$base/apt/sources.list"
apt_opts=(
  -o "Dir::Etc::SourceList=$base/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$base/apt/lists" -o "Dir::Cache=$base/apt/cache" -o Dir::State::Status=/dev/null
  -o Debug::NoLocking=1 -o APT::Sandbox::User=root
)
apt-get "${apt_opts[@]}" -qq update >&2
# Everything neovim needs, down to libc, from that suite alone.
mapfile -t packages < <(apt-cache "${apt_opts[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
  --no-breaks --no-replaces --no-enhances neovim | grep -v '^ ' | grep -v '^<' | sort -u)
(cd "$base/debs" && apt-get "${apt_opts[@]}" -qq download "${packages[@]}" >&2)
for deb in "$base"/debs/*.deb; do dpkg-deb -x "$deb" "$base/root"; done

lib="$base/root/usr/lib/x86_64-linux-gnu"
cat >"$wrapper" <<EOF
#!/bin/sh
VIMRUNTIME="$base/root/usr/share/nvim/runtime" exec "$lib/ld-linux-x86-64.so.2" --library-path "$lib:$base/root/usr/lib" "$base/root/usr/bin/nvim" --cmd "set runtimepath+=$base/root/usr/lib/nvim" "\$@"
EOF
chmod +x "$wrapper"
"$wrapper" --version | head -1 >&2
echo "$wrapper"
