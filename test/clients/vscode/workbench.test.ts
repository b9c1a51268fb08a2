/**
 * The VS Code extension in a real VS Code: code-server (the VS Code that runs in a browser) with
 * the extension's `.vsix` installed as a user installs it, opened in Debian's Chromium, on a
 * workspace that holds a Pi sessions folder. A test-only extension (probe/) drives the workbench
 * through the VS Code API, as the user's clicks would, and writes what VS Code saw; this file
 * compares that with the CLI on the same files.
 *
 * What it needs (`.ci/run` installs all of it): code-server, Node.js 24 and playwright-core from
 * test/clients/vscode/get-code-server.sh (PI_CODE_SERVER names its folder; default
 * $TMPDIR/pi-session-code-server), Debian's `chromium`, and the extension's own dependencies
 * (`npm ci --prefix client-samples/vscode`). A missing piece fails every test here with the command
 * that installs it.
 *
 * code-server listens on 127.0.0.1 only, on a free port, with no authentication; it and the
 * browser are killed when the tests end, or when a hard limit passes. One screenshot of the
 * workbench (the broken session with its problems) is kept in PI_CI_LOGS (default .ci/logs/).
 */

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changedLines, fixedByCli, REPO, remainingProblems, requireEditor, SAMPLES, SESSIONS } from "../harness";

const EXTENSION = join(SAMPLES, "vscode");
const PROBE = join(__dirname, "probe");
const CLI = join(REPO, "bin", "pi-session-lsp.js");
const TOOLS = process.env.PI_CODE_SERVER ?? join(tmpdir(), "pi-session-code-server");
const INSTALL_TOOLS =
  "test/clients/vscode/get-code-server.sh (and apt-get install -y chromium build-essential python3 pkg-config libsecret-1-dev libkrb5-dev first)";
const LOGS = process.env.PI_CI_LOGS ?? join(REPO, ".ci", "logs");

/** Hard limits: the whole setup (packaging, install, start, the probe's run) and each command. */
const SETUP_TIMEOUT_MS = 300_000;
const COMMAND_TIMEOUT_MS = 120_000;
const REPORT_TIMEOUT_MS = 180_000;

interface SimpleDiagnostic {
  line: number;
  character: number;
  severity: number;
  code: string | null;
  source?: string;
}

interface Report {
  steps: {
    extension?: { id: string; version: string; active: boolean };
    brokenDiagnostics?: SimpleDiagnostic[];
    validDiagnostics?: SimpleDiagnostic[];
    hover?: string[];
    definition?: { path: string; line: number; character: number }[];
    codeLenses?: { line: number; title: string | null; command: string | null }[];
    contextDocument?: { uri: string; languageId: string; firstLine: string; lines: number };
    fixAll?: { applied: boolean; text: string; dirty: boolean; diskUnchanged: boolean };
    completion?: { line: number; labels: string[] };
    resumeFromHere?: { applied: boolean; linesBefore: number; linesAfter: number; lastLine: string };
  };
  errors: string[];
  timings: Record<string, number>;
  totalMs: number;
}

const work = mkdtempSync(join(tmpdir(), "pi-session-vscode-"));
/** Pi keeps a project's sessions in a folder named after its cwd; the samples' cwd is /home/dev/project. */
const sessions = join(work, "workspace", ".pi", "agent", "sessions", "--home-dev-project--");
const broken = join(sessions, "broken.jsonl");
const valid = join(sessions, "valid-branches.jsonl");
const brokenText = readFileSync(join(SESSIONS, "broken.jsonl"), "utf8");
const validText = readFileSync(join(SESSIONS, "valid-branches.jsonl"), "utf8");

/** Where the hover and definition are asked: the value of `parentId` on line 14, naming line 6's entry. */
const HOVER_LINE = 13;
const hoverCharacter = brokenText.split("\n")[HOVER_LINE]!.indexOf('"parentId":"fea926d3"') + '"parentId":"'.length + 2;
const DEFINITION_LINE = brokenText.split("\n").findIndex((l) => l.includes('"id":"fea926d3"'));
/** The entry whose "Resume from here" is run: line 6 of the valid session. */
const ENTRY_LINE = 5;
const entryId = (JSON.parse(validText.split("\n")[ENTRY_LINE]!) as { id: string }).id;

let report: Report | undefined;
let setupError: Error | undefined;
let screenshot: string | undefined;
const processes: ChildProcess[] = [];

/** Runs a command to completion with a hard limit, and throws with its output when it fails. */
function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
  const result = spawnSync(command, args, { cwd: options.cwd ?? REPO, env: options.env ?? process.env, encoding: "utf8", timeout: COMMAND_TIMEOUT_MS });
  if (result.status !== 0) {
    const why = result.error ? result.error.message : result.signal ? `killed (${result.signal})` : `exit ${String(result.status)}`;
    throw new Error(`${command} ${args.join(" ")}: ${why}\n${result.stdout}${result.stderr}`.slice(0, 4000));
  }
  return result.stdout;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

function healthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const request = get({ host: "127.0.0.1", port, path: "/healthz", timeout: 2000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on("error", () => resolve(false));
    request.on("timeout", () => {
      request.destroy();
      resolve(false);
    });
  });
}

async function until<T>(what: string, limitMs: number, test: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await test();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what}: nothing after ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** `check --format json` on one file, as the editor should show it. */
function checkDiagnostics(file: string): SimpleDiagnostic[] {
  const stdout = spawnSync(process.execPath, [CLI, "check", "--format", "json", file], { encoding: "utf8", timeout: 30_000 }).stdout;
  const parsed = JSON.parse(stdout.trim().split("\n")[0]!) as {
    diagnostics: { range: { start: { line: number; character: number } }; severity: number; code: string }[];
  };
  return sorted(parsed.diagnostics.map((d) => ({ line: d.range.start.line, character: d.range.start.character, severity: d.severity, code: d.code })));
}

/** VS Code's severities count from 0 (Error); the protocol's and `check`'s from 1. */
function asProtocol(list: SimpleDiagnostic[]): SimpleDiagnostic[] {
  return sorted(list.map((d) => ({ line: d.line, character: d.character, severity: d.severity + 1, code: d.code })));
}

function sorted(list: SimpleDiagnostic[]): SimpleDiagnostic[] {
  return [...list].sort((a, b) => a.line - b.line || a.character - b.character || String(a.code).localeCompare(String(b.code)));
}

async function setUp(): Promise<void> {
  const codeServer = join(TOOLS, "code-server", "node_modules", ".bin", "code-server");
  const node24 = readdirSync(join(TOOLS, "node24", "node_modules"), { withFileTypes: true }).find((d) => d.name.startsWith("node-linux-"));
  const playwrightPath = join(TOOLS, "playwright", "node_modules", "playwright-core");
  for (const [what, path] of [
    ["code-server", codeServer],
    ["playwright-core", playwrightPath],
  ] as const) {
    if (!existsSync(path)) throw new Error(`${what} is not installed in ${TOOLS}: run ${INSTALL_TOOLS}.`);
  }
  if (!node24) throw new Error(`Node.js 24 is not installed in ${TOOLS}: run ${INSTALL_TOOLS}.`);
  requireEditor("chromium", "chromium");
  if (!existsSync(join(EXTENSION, "node_modules", ".bin", "vsce"))) {
    throw new Error("the extension's dependencies are not installed: run `npm ci --prefix client-samples/vscode` (.ci/run does this on CI).");
  }

  // The two packages, as a user gets them: the extension by its own script, the probe by vsce.
  run("npm", ["run", "-s", "package"], { cwd: EXTENSION });
  const version = (JSON.parse(readFileSync(join(EXTENSION, "package.json"), "utf8")) as { version: string }).version;
  const vsix = join(EXTENSION, `pi-session-vscode-${version}.vsix`);
  const probeVsix = join(work, "probe.vsix");
  run(join(EXTENSION, "node_modules", ".bin", "vsce"), ["package", "--no-dependencies", "--allow-missing-repository", "--out", probeVsix], { cwd: PROBE });

  // A Pi sessions folder inside the workspace; the extension claims it by default.
  mkdirSync(sessions, { recursive: true });
  copyFileSync(join(SESSIONS, "broken.jsonl"), broken);
  copyFileSync(join(SESSIONS, "valid-branches.jsonl"), valid);
  // Fading off: the editor then shows exactly what `check` prints (and the setting must reach the server).
  mkdirSync(join(work, "workspace", ".vscode"));
  writeFileSync(join(work, "workspace", ".vscode", "settings.json"), JSON.stringify({ "piSession.fadeInactive": false }));

  const home = join(work, "home");
  const userData = join(work, "user-data");
  const extensions = join(work, "extensions");
  mkdirSync(join(userData, "User"), { recursive: true });
  writeFileSync(
    join(userData, "User", "settings.json"),
    JSON.stringify({
      "chat.disableAIFeatures": true,
      "security.workspace.trust.enabled": false,
      "workbench.startupEditor": "none",
      "workbench.tips.enabled": false,
      "telemetry.telemetryLevel": "off",
      "extensions.autoUpdate": false,
      "extensions.autoCheckUpdates": false,
      "update.mode": "none",
      // The browser build saves after a second by default (desktop VS Code does not): off, as on
      // the desktop, so that the test sees what the extension itself writes, which is nothing.
      "files.autoSave": "off",
      "files.refactoring.autoSave": false,
    }),
  );
  const port = await freePort();
  const config = join(work, "code-server.yaml");
  writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const reportPath = join(work, "report.json");
  const plan = join(work, "plan.json");
  writeFileSync(plan, JSON.stringify({ broken, valid, hover: { line: HOVER_LINE, character: hoverCharacter }, entry: { line: ENTRY_LINE, character: 2 } }));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${join(TOOLS, "node24", "node_modules", node24.name, "bin")}${delimiter}${process.env.PATH ?? ""}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    PI_PROBE_PLAN: plan,
    PI_PROBE_REPORT: reportPath,
  };
  const common = ["--config", config, "--user-data-dir", userData, "--extensions-dir", extensions];
  run(codeServer, [...common, "--install-extension", vsix, "--install-extension", probeVsix], { env });

  const server = spawn(
    codeServer,
    [...common, "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust", "--disable-getting-started-override", join(work, "workspace")],
    {
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  processes.push(server);
  let serverLog = "";
  const keep = (chunk: Buffer) => (serverLog = (serverLog + chunk.toString("utf8")).slice(-20_000));
  server.stdout!.on("data", keep);
  server.stderr!.on("data", keep);
  await until(`code-server on 127.0.0.1:${port} (log: ${serverLog.slice(-2000)})`, 90_000, () => healthy(port));

  type Browser = { newPage(o: object): Promise<Page>; close(): Promise<void> };
  type Page = { goto(url: string, o: object): Promise<unknown>; screenshot(o: object): Promise<unknown> };
  const { chromium } = require(playwrightPath) as { chromium: { launch(o: object): Promise<Browser> } };
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(join(work, "workspace"))}`, { waitUntil: "domcontentloaded", timeout: 60_000 });
    const text = await until(`the probe's report (code-server log: ${serverLog.slice(-2000)})`, REPORT_TIMEOUT_MS, () =>
      existsSync(reportPath) ? readFileSync(reportPath, "utf8") : undefined,
    );
    report = JSON.parse(text) as Report;
    // The probe leaves the broken session and the Problems panel on screen; let them paint.
    await new Promise((r) => setTimeout(r, 1500));
    mkdirSync(LOGS, { recursive: true });
    screenshot = join(LOGS, "vscode-workbench.png");
    await page.screenshot({ path: screenshot });
    console.log(`VS Code: the probe took ${report.totalMs} ms (${JSON.stringify(report.timings)}); screenshot: ${screenshot}`);
  } finally {
    await browser.close();
  }
}

beforeAll(async () => {
  try {
    await setUp();
  } catch (error) {
    setupError = error as Error;
  }
}, SETUP_TIMEOUT_MS);

afterAll(() => {
  for (const child of processes) {
    // code-server starts its own processes (the extension host, the language server): end the group.
    if (child.pid !== undefined && child.exitCode === null) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }
  }
  rmSync(work, { recursive: true, force: true });
});

/** The report, or the reason there is none; and no step of the probe may have failed. */
function steps(): Report["steps"] {
  if (setupError) throw setupError;
  expect(report, "the probe wrote no report").toBeDefined();
  return report!.steps;
}

describe("VS Code (code-server, Chromium): the extension as a user installs it", () => {
  it("installs from the .vsix and activates, with no step of the probe failing", () => {
    const s = steps();
    expect(report!.errors, "the probe's failed steps").toEqual([]);
    expect(s.extension?.active).toBe(true);
    expect(s.extension?.id).toBe("pi-session-lsp.pi-session-vscode");
    expect(screenshot && existsSync(screenshot), "a screenshot of the workbench").toBe(true);
  });

  it("shows the diagnostics `check` reports on a broken session, on the same lines with the same codes", () => {
    const s = steps();
    expect(s.brokenDiagnostics?.length, "diagnostics of broken.jsonl").toBeGreaterThan(0);
    expect(asProtocol(s.brokenDiagnostics!)).toEqual(checkDiagnostics(broken));
    expect(new Set(s.brokenDiagnostics!.map((d) => d.source))).toEqual(new Set(["pi-session"]));
  });

  it("shows none on a valid session (fading is off in the workspace's settings, as `check` has no faded hints)", () => {
    const s = steps();
    expect(checkDiagnostics(valid)).toEqual([]);
    expect(s.validDiagnostics).toEqual([]);
  });

  it("hovers an entry's parentId with the parent it names", () => {
    const hover = steps().hover?.join("\n") ?? "";
    expect(hover).toContain("fea926d3");
    expect(hover).toContain(`line ${DEFINITION_LINE + 1}`);
  });

  it("goes to the definition of a parentId: the parent's id", () => {
    const definition = steps().definition ?? [];
    expect(definition.map((d) => [d.path, d.line])).toEqual([[broken, DEFINITION_LINE]]);
    expect(brokenText.split("\n")[DEFINITION_LINE]!.slice(definition[0]!.character)).toMatch(/^"?fea926d3/);
  });

  it("shows code lenses with the context's title on the header and the branch tips", () => {
    const lenses = steps().codeLenses ?? [];
    const header = lenses.find((l) => l.line === 0);
    expect(header?.title, JSON.stringify(lenses)).toMatch(/^context: \d+ messages? · ~[\d.]+k? tokens/);
    expect(header?.command).toBe("piSession.showContext");
    expect(lenses.some((l) => l.line > 0 && l.title?.startsWith("branch context:"))).toBe(true);
  });

  it("completes a whole entry on a new line", () => {
    const completion = steps().completion;
    expect(completion?.labels.length, "completion items on a new line").toBeGreaterThan(0);
    expect(completion!.labels.join(" | ")).toMatch(/message/);
  });

  it("applies Fix all in the buffer as `check --fix` fixes the file, and leaves the file on disk untouched", () => {
    const fixAll = steps().fixAll;
    expect(fixAll?.applied).toBe(true);
    expect(fixAll!.dirty, "the buffer is modified, not saved").toBe(true);
    expect(fixAll!.diskUnchanged, "the file on disk is untouched").toBe(true);
    expect(readFileSync(broken, "utf8")).toBe(brokenText);
    // Fix all chooses fresh ids at random: compare which lines changed, and what is left to fix.
    const cliFixed = fixedByCli(brokenText, work);
    expect(changedLines(brokenText, fixAll!.text)).toEqual(changedLines(brokenText, cliFixed));
    expect(remainingProblems(fixAll!.text, work)).toEqual(remainingProblems(cliFixed, work));
  });

  it("opens the built context as a read-only Markdown document", () => {
    const context = steps().contextDocument;
    expect(context?.uri).toMatch(/^pi-context:/);
    expect(context?.languageId).toBe("markdown");
    expect(context?.firstLine).toMatch(/^# Context of session 019cadfd-/);
    const cli = spawnSync(process.execPath, [CLI, "context", "--format", "markdown", broken], { encoding: "utf8", timeout: 30_000 }).stdout;
    expect(context?.firstLine).toBe(cli.split("\n")[0]);
  });

  it("runs Resume From Here on the entry under the cursor: one line appended in the buffer, naming that entry", () => {
    const resume = steps().resumeFromHere;
    expect(resume?.applied).toBe(true);
    expect(resume!.linesAfter).toBe(resume!.linesBefore + 1);
    const appended = JSON.parse(resume!.lastLine) as { type: string; parentId: string };
    expect(appended.parentId).toBe(entryId);
    expect(appended.type).toBe("custom");
    expect(readFileSync(valid, "utf8"), "the file on disk is untouched").toBe(validText);
  });
});
