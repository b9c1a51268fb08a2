/**
 * Shared harness for the real-editor tests (Neovim, Emacs + Eglot, Vim + ALE).
 *
 * Each test runs an editor headless, as a user would run it, with the sample configuration from
 * client-samples/, against the built server started as `pi-session-lsp --stdio` (a link to
 * bin/pi-session-lsp.js is put first on PATH, as `npm install -g` would). The editor script prints
 * one JSON line on stdout with what the editor saw; the test asserts on it.
 *
 * Nothing here can hang CI: every editor run has a hard time limit and is killed with SIGKILL when
 * it passes it, and a missing editor fails with the command that installs it.
 */

import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { WAIT_MS } from "../helpers/limits";

export const REPO = join(__dirname, "..", "..");
export const SAMPLES = join(REPO, "client-samples");
export const SESSIONS = join(SAMPLES, "sessions");
export const SERVER_CLI = join(REPO, "bin", "pi-session-lsp.js");

/**
 * An editor run's limits, each inside the one around it, so that the innermost to run out says
 * what it waited for: a wait inside the driver script (`STEP_MS`), the driver's own deadline for
 * the whole run, after which it prints what it saw and quits (`DEADLINE_MS`), and runEditor's
 * SIGKILL (`EDITOR_TIMEOUT_MS`), all under vitest's `HANG_MS`. They are minutes, from `WAIT_MS`:
 * they stop a hang and nothing else, since a busy machine makes every editor slow
 * (test/helpers/limits.ts). A wait for something that must not come (a client that must not
 * attach) stays short: it can only pass, never fail, on a slow machine.
 */
export const EDITOR_TIMEOUT_MS = WAIT_MS;
export const DEADLINE_MS = (WAIT_MS * 4) / 5;
export const STEP_MS = WAIT_MS / 5;

/** Throws a readable error when `binary` is not installed. */
export function requireEditor(binary: string, aptPackages: string): void {
  const found = spawnSync("sh", ["-c", `command -v ${binary}`], { encoding: "utf8" });
  if (found.status !== 0) {
    throw new Error(`${binary} is not installed: run \`apt-get install -y ${aptPackages}\` (.ci/run does this on CI).`);
  }
}

let pathWithServer: string | undefined;

/** PATH with a `pi-session-lsp` command that runs this checkout's built server. */
export function serverPath(): string {
  if (!pathWithServer) {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-lsp-bin-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    symlinkSync(join(REPO, "bin", "pi-session-lsp.js"), join(dir, "pi-session-lsp"));
    pathWithServer = `${dir}${delimiter}${process.env.PATH ?? ""}`;
  }
  return pathWithServer;
}

export interface EditorRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** The last line of stdout that parses as a JSON object, if any. */
  result: Record<string, unknown> | undefined;
}

/**
 * Runs an editor with a hard time limit, in a fresh HOME (no user configuration, logs kept out of
 * the real home), with `pi-session-lsp` on PATH and no standard input.
 */
export function runEditor(
  command: string,
  args: readonly string[],
  options: { env?: Record<string, string>; timeoutMs?: number; cwd?: string } = {},
): Promise<EditorRun> {
  const home = mkdtempSync(join(tmpdir(), "pi-session-editor-home-"));
  const timeoutMs = options.timeoutMs ?? EDITOR_TIMEOUT_MS;
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? REPO,
      env: { ...process.env, HOME: home, PATH: serverPath(), TERM: "dumb", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      rmSync(home, { recursive: true, force: true });
      resolve({ code, signal, stdout, stderr, timedOut, result: lastJsonObject(stdout) });
    });
  });
}

function lastJsonObject(stdout: string): Record<string, unknown> | undefined {
  const lines = stdout
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.startsWith("{"));
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const value = JSON.parse(lines[i]!) as unknown;
      if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // Editor chatter that happens to start with "{"; keep looking.
    }
  }
  return undefined;
}

/** A readable account of a run, for assertion messages. */
export function describeRun(run: EditorRun): string {
  const tail = (text: string) => text.split("\n").slice(-15).join("\n");
  return [
    run.timedOut ? "the editor did not finish in time and was killed" : `exit code ${String(run.code)}${run.signal ? `, signal ${run.signal}` : ""}`,
    `stdout (end):\n${tail(run.stdout)}`,
    `stderr (end):\n${tail(run.stderr)}`,
  ].join("\n");
}

/**
 * What `check --fix` makes of `text` (on a file in `dir`): what an editor's Fix all should make of
 * the same text, but for the fresh ids a fix chooses at random.
 */
export function fixedByCli(text: string, dir: string): string {
  const copy = join(dir, "cli-fixed.jsonl");
  writeFileSync(copy, text);
  spawnSync(process.execPath, [SERVER_CLI, "check", "--fix", copy], { encoding: "utf8", timeout: WAIT_MS });
  const fixed = readFileSync(copy, "utf8");
  rmSync(copy);
  rmSync(`${copy}.bak`, { force: true });
  return fixed;
}

/** The 0-based numbers of the lines that differ between two texts. */
export function changedLines(before: string, after: string): number[] {
  const a = before.split("\n");
  const b = after.split("\n");
  const changed: number[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) changed.push(i);
  return changed;
}

/** `line:code` of every diagnostic `check` reports on `text`. */
export function remainingProblems(text: string, dir: string): string[] {
  const path = join(dir, "remaining.jsonl");
  writeFileSync(path, text);
  const { stdout } = spawnSync(process.execPath, [SERVER_CLI, "check", "--format", "json", path], { encoding: "utf8", timeout: WAIT_MS });
  rmSync(path);
  const report = JSON.parse(stdout.trim().split("\n")[0]!) as { diagnostics: { range: { start: { line: number } }; code: string }[] };
  return report.diagnostics.map((d) => `${d.range.start.line}:${d.code}`).sort();
}

/** The Neovims the tests drive: `PI_NVIM`, comma-separated (Debian's `nvim` by default). */
export const NVIMS = (process.env.PI_NVIM ?? "nvim")
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean);

/** A Neovim's version from `nvim --version`, or undefined when it does not run. */
export function nvimVersion(nvim: string): [number, number, number] | undefined {
  const run = spawnSync(nvim, ["--version"], { encoding: "utf8", timeout: WAIT_MS });
  const match = /NVIM v(\d+)\.(\d+)\.(\d+)/.exec(run.stdout ?? "");
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

/** The Neovims of `NVIMS` at 0.`minor` or later, with their versions. */
export function neovimsFrom(minor: number): { nvim: string; version: [number, number, number] | undefined }[] {
  return NVIMS.map((nvim) => ({ nvim, version: nvimVersion(nvim) })).filter(({ version }) => version && (version[0] > 0 || version[1] >= minor));
}
