/**
 * No file in the repository names a package registry's host (BRIEF: the project is installed
 * through the machine's own configured registries and mirrors, never a host written in a file).
 *
 * Files: `repositoryFiles()`, what git tracks plus what it would add, so the test fails before the
 * commit. Binary files (with a NUL byte) are skipped.
 *
 * The hosts are the patterns in HOSTS below, a subdomain of one counting too: the registries and
 * mirrors of npm, Yarn, JSR, Deno and the npm CDNs; Debian's archive, security, snapshot and
 * package pages, Ubuntu's archives and PPAs; PyPI, crates, RubyGems, the Go module proxy, Maven
 * Central, NuGet, Packagist, Hackage, LuaRocks, Anaconda, GNU and NonGNU ELPA, MELPA, Homebrew,
 * Alpine and Fedora mirrors, Docker Hub, GitHub's and Quay's container registries, Open VSX and
 * the VS Code Marketplace; and any URL whose host has a `registry` label.
 *
 * The patterns are written with `\.` (and the examples built with `${dot}`), so that this file does
 * not name the hosts it looks for.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, repositoryFiles } from "./helpers/repositoryFiles";

const HOSTS: RegExp[] = [
  /npmjs\.(?:com|org)/,
  /yarnpkg\.com/,
  /npmmirror\.com/,
  /npm\.pkg\.github\.com/,
  /unpkg\.com/,
  /jsdelivr\.net/,
  /jsr\.io/,
  /deno\.land/,
  /(?:deb|ftp(?:\.[a-z]{2})?|security|snapshot|httpredir|packages)\.debian\.org/,
  /(?:archive|security|ports|packages)\.ubuntu\.com/,
  /ppa\.launchpad(?:content)?\.net/,
  /pypi\.(?:org|python\.org)/,
  /pythonhosted\.org/,
  /crates\.io/,
  /rubygems\.org/,
  /(?:proxy|sum)\.golang\.org/,
  /pkg\.go\.dev/,
  /maven\.org/,
  /repo\.maven\.apache\.org/,
  /nuget\.org/,
  /packagist\.org/,
  /hackage\.haskell\.org/,
  /luarocks\.org/,
  /anaconda\.(?:org|com)/,
  /elpa\.(?:gnu|nongnu)\.org/,
  /melpa\.org/,
  /formulae\.brew\.sh/,
  /dl-cdn\.alpinelinux\.org/,
  /mirrors\.fedoraproject\.org/,
  /docker\.(?:io|com)/,
  /ghcr\.io/,
  /quay\.io/,
  /open-vsx\.org/,
  /marketplace\.visualstudio\.com/,
];

/** A host from the list, as a whole host or the end of one (not inside a longer name). */
const NAMED_HOST = new RegExp(`(?<![a-z0-9-])(?:${HOSTS.map((h) => h.source).join("|")})(?![a-z0-9-])`, "gi");
/** A URL whose host has a `registry` label. */
const REGISTRY_URL = /\b[a-z][a-z0-9+.-]*:\/\/(?:[a-z0-9-]+\.)*registry(?:[.-][a-z0-9-]+)*\.[a-z]{2,}\b/gi;

/** Every place in `text` that names a registry's host, as `line: match`. */
function registryHostsIn(text: string): string[] {
  const found: string[] = [];
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    for (const pattern of [NAMED_HOST, REGISTRY_URL]) {
      for (const match of line.matchAll(pattern)) found.push(`${i + 1}: ${match[0]}`);
    }
  });
  return found;
}

describe("no file names a package registry's host", () => {
  it("recognises the hosts it looks for, and leaves other names alone", () => {
    const dot = ".";
    const named = [
      `https://www${dot}npmjs${dot}com/package/x`,
      `registry${dot}npmjs${dot}org`,
      `deb http://deb${dot}debian${dot}org/debian forky main`,
      `http://ftp${dot}de${dot}debian${dot}org/debian`,
      `https://static${dot}crates${dot}io`,
      `https://registry${dot}terraform${dot}io/x`,
      `files${dot}pythonhosted${dot}org`,
    ];
    for (const text of named) expect(registryHostsIn(text), text).toHaveLength(1);
    const innocent = [
      "https://github.com/dense-analysis/ale",
      "this.registry.items.length",
      "the npm package @earendil-works/pi-coding-agent",
      "see the Debian package neovim in trixie",
      `notnpmjs${dot}community`,
    ];
    for (const text of innocent) expect(registryHostsIn(text), text).toEqual([]);
  });

  it("in any file of the repository", () => {
    const files = repositoryFiles();
    expect(files.length, "the repository's files were not found").toBeGreaterThan(50);
    const offenders: string[] = [];
    for (const file of files) {
      const bytes = readFileSync(join(REPO, file));
      if (bytes.includes(0)) continue;
      for (const where of registryHostsIn(bytes.toString("utf8"))) offenders.push(`${file}:${where}`);
    }
    expect(offenders, "name the package (npm `x`, Debian `y`) instead of its registry's page; take mirrors from the machine's configuration").toEqual([]);
  });
});
