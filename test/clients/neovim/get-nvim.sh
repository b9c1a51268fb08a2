#!/usr/bin/env bash
# Fetches a newer Neovim from Debian into a private folder, without installing anything, and
# prints the path of a command that runs it. .ci/run uses it to test the Neovim samples on 0.10
# and 0.12 besides the system's Neovim; by hand:
#
#   PI_NVIM="nvim,$(test/clients/neovim/get-nvim.sh 0.12)" npx vitest run test/clients/neovim.test.ts
#
# VERSION: 0.10 (Debian trixie: 0.10.4) or 0.12 (Debian forky: 0.12.x); no Debian suite has 0.11.
# DIR (default: $TMPDIR/pi-session-nvim): where the packages are unpacked; reused when present.
#
# Where from: the machine's own apt configuration. The Debian sources of the running release (in
# Dir::Etc::SourceList and Dir::Etc::SourceParts, one-line `*.list` and deb822 `*.sources` files:
# normally /etc/apt/sources.list and /etc/apt/sources.list.d/) are copied with only the suite
# swapped for VERSION's, so the same mirror, keyring (Signed-By) and options are used. Nothing in
# this repository names a mirror.
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

case "$(dpkg --print-architecture)" in
  amd64) triplet=x86_64-linux-gnu loader=ld-linux-x86-64.so.2 ;;
  arm64) triplet=aarch64-linux-gnu loader=ld-linux-aarch64.so.1 ;;
  *) echo "get-nvim.sh: no loader known for architecture $(dpkg --print-architecture)" >&2; exit 2 ;;
esac

# The suites that name the running Debian release in its sources; other repositories (a vendor's
# `nodistro`, `-updates`, `-security`, `-backports`) are left out.
codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
release_suites=" $codename stable oldstable testing unstable sid "
eval "$(apt-config shell source_list Dir::Etc::SourceList/f source_parts Dir::Etc::SourceParts/d)"
source_list="${source_list:-/etc/apt/sources.list}"
source_parts="${source_parts:-/etc/apt/sources.list.d/}"

mkdir -p "$base/apt/sources.list.d" "$base/apt/preferences.d" "$base/apt/lists/partial" "$base/apt/cache/archives/partial" "$base/debs" "$base/root"
rm -f "$base"/apt/sources.list.d/*

# One-line format: `deb [options] URI SUITE COMPONENT…`; keeps the options (signed-by=…).
one_line() {
  awk -v suites="$release_suites" -v target="$suite" '
    { sub(/#.*/, "") }
    $1 != "deb" { next }
    {
      i = 2
      options = ""
      if ($2 ~ /^\[/) {
        while (i <= NF && $i !~ /\]$/) { options = options $i " "; i++ }
        options = options $i " "; i++
      }
      uri = $i; release = $(i + 1); main = 0
      for (j = i + 2; j <= NF; j++) if ($j == "main") main = 1
      if (main && index(suites, " " release " ")) print "deb " options uri " " target " main"
    }
  ' "$1"
}

# deb822 format: stanzas of `Field: value` with indented continuation lines (Signed-By may hold a
# whole key); a stanza of the release with component main is copied with Suites and Components
# replaced, every other field (URIs, Signed-By, Architectures, …) as written.
deb822() {
  awk -v suites="$release_suites" -v target="$suite" '
    function flush(   i, keep) {
      if (n > 0 && types ~ /(^| )deb( |$)/ && enabled != "no" && components ~ /(^| )main( |$)/ && release) {
        for (i = 1; i <= n; i++) {
          if (field[i] == "suites" || field[i] == "components" || field[i] == "types") continue
          print text[i]
        }
        print "Types: deb"
        print "Suites: " target
        print "Components: main"
        print ""
      }
      n = 0; types = ""; enabled = ""; components = ""; release = 0
    }
    function value(line) { sub(/^[^:]*:[ \t]*/, "", line); return line }
    /^#/ { next }
    /^[ \t]*$/ { flush(); next }
    /^[ \t]/ { text[n] = text[n] "\n" $0; next }
    {
      n++
      text[n] = $0
      name = tolower($0); sub(/:.*/, "", name); field[n] = name
      v = value($0); gsub(/[ \t]+/, " ", v)
      if (name == "types") types = v
      else if (name == "enabled") enabled = tolower(v)
      else if (name == "components") components = v
      else if (name == "suites") {
        count = split(v, list, " ")
        for (k = 1; k <= count; k++) if (index(suites, " " list[k] " ")) release = 1
      }
    }
    END { flush() }
  ' "$1"
}

[ -f "$source_list" ] && one_line "$source_list" >>"$base/apt/sources.list.d/machine.list"
for file in "$source_parts"*.list; do [ -f "$file" ] && one_line "$file" >>"$base/apt/sources.list.d/machine.list"; done
for file in "$source_parts"*.sources; do [ -f "$file" ] && deb822 "$file" >>"$base/apt/sources.list.d/machine.sources"; done
if ! grep -qs . "$base"/apt/sources.list.d/*; then
  echo "get-nvim.sh: no Debian source for '$codename' with component main in $source_list or $source_parts (*.list, *.sources)" >&2
  exit 1
fi

apt_opts=(
  -o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$base/apt/sources.list.d"
  -o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=$base/apt/preferences.d"
  -o "Dir::State::Lists=$base/apt/lists" -o "Dir::Cache=$base/apt/cache" -o Dir::State::Status=/dev/null
  -o Debug::NoLocking=1 -o APT::Sandbox::User=root -o Acquire::Retries=3 -o Acquire::Languages=none
)
apt-get "${apt_opts[@]}" -qq update >&2
# Everything neovim needs, down to libc, from that suite alone.
mapfile -t packages < <(apt-cache "${apt_opts[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
  --no-breaks --no-replaces --no-enhances neovim | grep -v '^ ' | grep -v '^<' | sort -u)
(cd "$base/debs" && apt-get "${apt_opts[@]}" -qq download "${packages[@]}" >&2)
for deb in "$base"/debs/*.deb; do dpkg-deb -x "$deb" "$base/root"; done

lib="$base/root/usr/lib/$triplet"
cat >"$wrapper" <<EOF
#!/bin/sh
VIMRUNTIME="$base/root/usr/share/nvim/runtime" exec "$lib/$loader" --library-path "$lib:$base/root/usr/lib" "$base/root/usr/bin/nvim" --cmd "set runtimepath+=$base/root/usr/lib/nvim" "\$@"
EOF
chmod +x "$wrapper"
"$wrapper" --version | head -1 >&2
echo "$wrapper"
