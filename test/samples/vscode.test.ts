/**
 * The VS Code extension's package.json (client-samples/vscode), checked without installing
 * anything, so that `npm test` catches what would otherwise show only when a user installs it:
 *
 * - it contributes every setting the server reads, with the server's defaults, and every setting
 *   and command the extension itself uses;
 * - `main` names the file the bundler writes, and the VS Code versions it declares fit its dependencies.
 *
 * That it compiles and packages against its own dependencies, and runs in a real VS Code, is
 * checked by test/clients/vscode/ (`npm run test:vscode`), after `npm ci --prefix client-samples/vscode`.
 */

import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ALL_CODES, CODES } from "../../server/src/core/base/codes";
import { BUILD_CONTEXT_REQUEST, SHOW_CONTEXT_COMMAND } from "../../server/src/features/contextRequest";
import { NOT_IN_CONTEXT } from "../../server/src/features/fading";
import { DEFAULT_SETTINGS, readSettings, SETTINGS_SECTION } from "../../server/src/lsp/settings";

const SAMPLE = join(__dirname, "..", "..", "client-samples", "vscode");

interface Property {
  type?: string;
  default?: unknown;
  enum?: string[];
  description?: string;
  properties?: Record<string, Property>;
}
interface Manifest {
  main: string;
  engines: { vscode: string };
  activationEvents?: string[];
  contributes: {
    configuration: { properties: Record<string, Property> };
    commands?: { command: string; title: string }[];
    menus?: Record<string, { command: string }[]>;
    languages?: { id: string; extensions?: string[] }[];
  };
}

const manifest = JSON.parse(readFileSync(join(SAMPLE, "package.json"), "utf8")) as Manifest;
const lockfile = JSON.parse(readFileSync(join(SAMPLE, "package-lock.json"), "utf8")) as {
  packages: Record<string, { version?: string; engines?: Record<string, string> }>;
};
const source = readFileSync(join(SAMPLE, "src", "extension.ts"), "utf8");
const contributed = manifest.contributes.configuration.properties;

/** The lowest version a range like `^1.91.0` allows, as numbers. */
function lowest(range: string): number[] {
  const match = /(\d+)\.(\d+)\.(\d+)/.exec(range);
  if (!match) throw new Error(`not a version range: ${range}`);
  return match.slice(1).map(Number);
}
function atMost(a: number[], b: number[]): boolean {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return true;
}

describe("VS Code sample: package.json", () => {
  it("contributes every setting the server reads, with the server's default", () => {
    for (const [key, value] of Object.entries(DEFAULT_SETTINGS)) {
      const name = `${SETTINGS_SECTION}.${key}`;
      const property = contributed[name];
      expect(property, `${name} (server/src/lsp/settings.ts) is not in contributes.configuration of client-samples/vscode/package.json`).toBeDefined();
      expect(property!.default, `the default of ${name} in client-samples/vscode/package.json`).toEqual(value);
      expect(property!.type, `the type of ${name} in client-samples/vscode/package.json`).toBe(typeof value);
    }
  });

  it("offers a severity for exactly the codes the server reports, with values the server accepts", () => {
    const severity = contributed[`${SETTINGS_SECTION}.severity`];
    const codes = Object.keys(severity?.properties ?? {}).sort();
    expect(codes, "the codes under piSession.severity.properties").toEqual([...ALL_CODES, NOT_IN_CONTEXT].sort());
    for (const code of ALL_CODES) {
      expect(severity!.properties![code]!.description, `piSession.severity.properties["${code}"].description`).toBe(`Default: ${CODES[code].severity}`);
    }
    for (const [code, property] of Object.entries(severity!.properties!)) {
      for (const level of property.enum ?? []) {
        expect(readSettings({ severity: { [code]: level } }).severity[code], `the server ignores "${level}", which the settings offer for ${code}`).toBe(level);
      }
    }
  });

  it("contributes every setting the extension reads", () => {
    const read = [...source.matchAll(/config\.get(?:<[^>]*>)?\(\s*"([^"]+)"/g)].map((m) => `${SETTINGS_SECTION}.${m[1]}`);
    const watched = [...source.matchAll(/affectsConfiguration\(\s*"([^"]+)"/g)].map((m) => m[1]!);
    expect(read.length, 'no config.get("…") found in src/extension.ts: has the way it reads settings changed?').toBeGreaterThan(0);
    for (const name of read) expect(Object.keys(contributed), `src/extension.ts reads ${name}`).toContain(name);
    for (const name of watched) {
      expect(
        Object.keys(contributed).some((key) => key === name || key.startsWith(`${name}.`)),
        `src/extension.ts watches ${name}, which package.json does not contribute`,
      ).toBe(true);
    }
  });

  it("contributes every command the extension registers, and registers every command it contributes", () => {
    const calls = source.match(/registerCommand\(/g) ?? [];
    const registered = [...source.matchAll(/registerCommand\(\s*"([^"]+)"/g)].map((m) => m[1]!);
    expect(registered.length, "every registerCommand in src/extension.ts names its command with a string literal, so this test can read it").toBe(calls.length);
    const commands = (manifest.contributes.commands ?? []).map((c) => c.command);
    expect(commands.sort(), "contributes.commands").toEqual([...registered].sort());
    for (const entries of Object.values(manifest.contributes.menus ?? {})) {
      for (const entry of entries) expect(commands, "a menu entry names a command that is not contributed").toContain(entry.command);
    }
    // The language client registers the server's command itself; registering it too would fail at start.
    expect(registered).not.toContain(SHOW_CONTEXT_COMMAND);
    expect(source, "src/extension.ts must call the server's command by its name").toContain(`"${SHOW_CONTEXT_COMMAND}"`);
    expect(source, "src/extension.ts must send the server's request by its name").toContain(`"${BUILD_CONTEXT_REQUEST}"`);
  });

  it("points main at the file scripts/bundle.mjs writes for src/extension.ts, and type-checks that file", () => {
    const bundler = readFileSync(join(SAMPLE, "scripts", "bundle.mjs"), "utf8");
    expect(bundler, "scripts/bundle.mjs bundles src/extension.ts as `extension` into dist/").toMatch(
      /entryPoints: \{ extension: join\(here, "src", "extension\.ts"\) \}, outdir: join\(here, "dist"\)/,
    );
    expect(manifest.main).toBe("./dist/extension.js");
    const configPath = join(SAMPLE, "tsconfig.json");
    const read = ts.readConfigFile(configPath, ts.sys.readFile);
    expect(read.error, "client-samples/vscode/tsconfig.json does not parse").toBeUndefined();
    const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, SAMPLE, undefined, configPath);
    expect(
      parsed.fileNames.map((f) => resolve(f)),
      "tsconfig.json type-checks src/extension.ts",
    ).toContain(join(SAMPLE, "src", "extension.ts"));
  });

  it("declares a VS Code version its dependencies support, and activates on the files it serves", () => {
    const ours = lowest(manifest.engines.vscode);
    // vsce refuses to package when @types/vscode is newer than engines.vscode.
    const types = lockfile.packages["node_modules/@types/vscode"]?.version ?? "missing";
    expect(atMost(lowest(types), ours), `@types/vscode ${types} is newer than engines.vscode ${manifest.engines.vscode}`).toBe(true);
    const clientRange = lockfile.packages["node_modules/vscode-languageclient"]?.engines?.vscode ?? "missing";
    expect(atMost(lowest(clientRange), ours), `vscode-languageclient needs VS Code ${clientRange}, engines.vscode is ${manifest.engines.vscode}`).toBe(true);

    expect(manifest.activationEvents).toContain("onLanguage:jsonl");
    expect(manifest.contributes.languages?.find((l) => l.id === "jsonl")?.extensions).toContain(".jsonl");
    const pattern = /const SESSION_PATTERN = "([^"]+)"/.exec(source)?.[1];
    expect(pattern, "SESSION_PATTERN in src/extension.ts").toBe("**/.pi/agent/sessions/**/*.jsonl");
    expect(manifest.activationEvents).toContain(`workspaceContains:${pattern}`);
  });
});
