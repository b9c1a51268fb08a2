/**
 * What Neovim's registries would take, checked against this repository without Neovim:
 * client-samples/neovim/lsp/pi_session.lua (for nvim-lspconfig's `lsp/`) and
 * client-samples/neovim/mason/packages/pi-session-lsp/package.yaml (for mason-registry, at the
 * same path). Both name things that live elsewhere: the npm package and its version, its command,
 * and each other. That the config works in Neovim is test/clients/neovimLspconfig.test.ts.
 *
 * No YAML parser is among the dependencies, so `readBlockYaml` reads the block subset that
 * mason-registry's package files use (mappings and lists by indentation, plain or quoted scalars,
 * comments) and throws on anything else, so that it never reads a file differently from YAML.
 */

import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";

const REPO = join(__dirname, "..", "..");
const NEOVIM = join(REPO, "client-samples", "neovim");
const CONFIG = join(NEOVIM, "lsp", "pi_session.lua");
const PACKAGE_YAML = join(NEOVIM, "mason", "packages", "pi-session-lsp", "package.yaml");

type Yaml = string | Yaml[] | { [key: string]: Yaml };

/** A block-style YAML document of mappings, lists and one-line scalars; throws on any other YAML. */
function readBlockYaml(text: string): Yaml {
  const lines = text.split("\n").flatMap((raw, i) => {
    if (raw.includes("\t")) throw new Error(`line ${i + 1}: a tab`);
    // A # after a quote may be inside the quoted string, where it is no comment.
    if (/["'].*\s#/.test(raw)) throw new Error(`line ${i + 1}: a # after a quote`);
    const line = raw.replace(/\s+#.*$|^\s*#.*$/, "").trimEnd();
    return line === "" || (i === 0 && line === "---") ? [] : [{ n: i + 1, indent: line.length - line.trimStart().length, text: line.trim() }];
  });
  let at = 0;
  const scalar = (value: string, n: number): string => {
    const quoted = /^"([^"\\]*)"$|^'([^']*)'$/.exec(value);
    if (quoted) return quoted[1] ?? quoted[2]!;
    if (/^[[\]{}&*!|>%@`"']|: | #|:$/.test(value)) throw new Error(`line ${n}: not a plain scalar this reader knows: ${value}`);
    return value;
  };
  const block = (indent: number): Yaml => {
    const first = lines[at];
    if (!first || first.indent !== indent) throw new Error(`line ${first?.n ?? "end"}: expected a block at indentation ${indent}`);
    if (first.text.startsWith("- ")) {
      const list: Yaml[] = [];
      while (lines[at]?.indent === indent && lines[at]!.text.startsWith("- ")) {
        const { n, text } = lines[at++]!;
        list.push(scalar(text.slice(2).trim(), n));
      }
      return list;
    }
    const map: Record<string, Yaml> = {};
    while (lines[at]?.indent === indent) {
      const { n, text } = lines[at++]!;
      const match = /^([A-Za-z0-9_.-]+):(?: (.*))?$/.exec(text);
      if (!match) throw new Error(`line ${n}: not a "key: value" line: ${text}`);
      const [, key, value] = match;
      if (key! in map) throw new Error(`line ${n}: ${key} is given twice`);
      // A nested block is indented by two spaces, or (a list) not at all.
      if (value === undefined) map[key!] = block(lines[at]?.text.startsWith("- ") && lines[at]!.indent === indent ? indent : indent + 2);
      else map[key!] = scalar(value.trim(), n);
    }
    return map;
  };
  if (!text.startsWith("---\n")) throw new Error("a package file must start with ---");
  const doc = block(0);
  if (at < lines.length) throw new Error(`line ${lines[at]!.n}: unexpected indentation`);
  return doc;
}

const manifest = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
  name: string;
  version: string;
  license: string;
  description: string;
  bin: Record<string, string>;
};
const pkg = readBlockYaml(readFileSync(PACKAGE_YAML, "utf8")) as Record<string, Yaml>;
const config = readFileSync(CONFIG, "utf8");

describe("the block YAML reader", () => {
  it("reads mappings, lists and scalars, and refuses what it does not know", () => {
    expect(readBlockYaml('---\na: 1\nb:\n  - x\n  - "y z"\nc:\n  d: e # note\n')).toEqual({ a: "1", b: ["x", "y z"], c: { d: "e" } });
    expect(readBlockYaml("---\nb:\n- x\nc: y\n")).toEqual({ b: ["x"], c: "y" });
    for (const bad of [
      "a: 1\n",
      "---\na: [1, 2]\n",
      "---\na: |\n  text\n",
      "---\na: b: c\n",
      "---\na: 1\n   b: 2\n",
      "---\na: 1\na: 2\n",
      "---\na: &x 1\n",
      '---\na: "b #c"\n',
    ]) {
      expect(() => readBlockYaml(bad), JSON.stringify(bad)).toThrow();
    }
  });
});

describe("mason-registry's package.yaml", () => {
  it("installs this npm package at this version", () => {
    expect(pkg.name).toBe(manifest.name);
    expect(pkg.source).toEqual({ id: `pkg:npm/${manifest.name}@${manifest.version}` });
  });

  it("links the package's own command", () => {
    expect(Object.keys(manifest.bin)).toEqual(["pi-session-lsp"]);
    expect(pkg.bin).toEqual(Object.fromEntries(Object.keys(manifest.bin).map((command) => [command, `npm:${command}`])));
  });

  it("names the nvim-lspconfig config in lsp/", () => {
    expect(pkg.neovim).toEqual({ lspconfig: basename(CONFIG, ".lua") });
  });

  it("has the fields every package needs, with values the registry allows", () => {
    expect(pkg.licenses).toEqual([manifest.license]);
    expect(pkg.description).toBe(`${manifest.description}.`);
    expect(pkg.homepage).toMatch(/^https:\/\/\S+$/);
    expect(pkg.languages).toEqual(["JSON"]);
    expect(pkg.categories).toEqual(["LSP", "Linter"]);
    expect(Object.keys(pkg)).toEqual(["name", "description", "homepage", "licenses", "languages", "categories", "source", "bin", "neovim"]);
  });
});

describe("nvim-lspconfig's lsp/pi_session.lua", () => {
  it("starts the command the package installs, over stdio", () => {
    const cmd = /^ {2}cmd = \{ '([^']+)', '--stdio' \},$/m.exec(config);
    expect(cmd?.[1], "cmd = { 'COMMAND', '--stdio' }").toBe(Object.keys(manifest.bin)[0]);
  });

  it("starts as nvim-lspconfig's configs do", () => {
    expect(config.startsWith("---@brief\n")).toBe(true);
    expect(config).toContain("\n---@type vim.lsp.Config\nreturn {\n");
    expect(config).toMatch(/^ {2}filetypes = \{ 'jsonl' \},$/m);
  });
});
