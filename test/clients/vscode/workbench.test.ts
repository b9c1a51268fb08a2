/**
 * The VS Code extension in a real VS Code: code-server with the extension's `.vsix` installed as a
 * user installs it, opened in Debian's Chromium (codeServer.ts), on a workspace that holds a Pi
 * sessions folder, and 10,000 other sessions besides, as a real sessions folder has. A test-only
 * extension (probe/) drives the workbench through the VS Code API, as the user's clicks would, and
 * writes what VS Code saw; this file compares that with the CLI on the same files.
 *
 * One screenshot of the workbench (the broken session with its problems) is kept in PI_CI_LOGS
 * (default .ci/logs/), for a person to look at.
 */

import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changedLines, fixedByCli, REPO, remainingProblems, SESSIONS } from "../harness";
import { keepScreenshot, openWorkbench, SETUP_TIMEOUT_MS, type Workbench } from "./codeServer";

const CLI = join(REPO, "bin", "pi-session-lsp.js");
/** Sessions in the workspace besides the two the probe opens. */
const OTHER_SESSIONS = 10_000;

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
    unopenedDiagnostics?: { diagnostics: SimpleDiagnostic[]; neverOpened: boolean };
    brokenDiagnostics?: SimpleDiagnostic[];
    validDiagnostics?: SimpleDiagnostic[];
    hover?: string[];
    definition?: { path: string; line: number; character: number }[];
    codeLenses?: { line: number; title: string | null; command: string | null }[];
    contextDocument?: { uri: string; languageId: string; firstLine: string; lines: number };
    fixAll?: { applied: true | string; text: string; dirty: boolean; diskUnchanged: boolean; offered?: string[]; diagnostics?: number };
    completion?: { line: number; labels: string[] };
    resumeFromHere?: { applied: true | string; linesBefore: number; linesAfter: number; lastLine: string };
    exportBranch?: { path: string; languageId: string; text: string };
    exportTree?: { path: string; languageId: string; text: string };
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
/** A broken session the probe never opens: its problems come from the workspace's diagnostics. */
const unopened = join(sessions, "unopened.jsonl");
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
let workbench: Workbench | undefined;

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

/** A small session Pi would list: a header and one user message. */
function otherSession(n: number): string {
  const id = `0190${n.toString(16).padStart(4, "0")}-0000-7000-8000-000000000000`;
  const header = { type: "session", version: 3, id, timestamp: "2026-03-02T10:00:00.000Z", cwd: "/home/dev/other" };
  const message = {
    type: "message",
    id: "a1b2c3d4",
    parentId: null,
    timestamp: "2026-03-02T10:00:01.000Z",
    message: { role: "user", content: `question ${n}`, timestamp: 1772445601000 },
  };
  return `${JSON.stringify(header)}\n${JSON.stringify(message)}\n`;
}

beforeAll(async () => {
  try {
    // A Pi sessions folder inside the workspace; the extension claims it by default.
    mkdirSync(sessions, { recursive: true });
    copyFileSync(join(SESSIONS, "broken.jsonl"), broken);
    copyFileSync(join(SESSIONS, "valid-branches.jsonl"), valid);
    // Cut short, as a session Pi was killed while writing ends: its last line is unfinished.
    writeFileSync(unopened, `${brokenText}{"type":"message","id":"cut`);
    const others = join(work, "workspace", ".pi", "agent", "sessions", "--home-dev-other--");
    mkdirSync(others);
    for (let n = 0; n < OTHER_SESSIONS; n++) writeFileSync(join(others, `2026-03-02T10-00-00-000Z_${n}.jsonl`), otherSession(n));
    // Fading off: the editor then shows exactly what `check` prints (and the setting must reach the
    // server). The workspace's diagnostics cover every session of the workspace, the 10,000 others too.
    mkdirSync(join(work, "workspace", ".vscode"));
    const settings = { "piSession.fadeInactive": false, "piSession.workspaceDiagnosticsMaxFiles": 20_000 };
    writeFileSync(join(work, "workspace", ".vscode", "settings.json"), JSON.stringify(settings));

    workbench = await openWorkbench(work, join(work, "workspace"), {
      broken,
      valid,
      unopened,
      hover: { line: HOVER_LINE, character: hoverCharacter },
      entry: { line: ENTRY_LINE, character: 2 },
    });
    report = workbench.report as Report;
    // The probe leaves the broken session and the Problems panel on screen; let them paint.
    await new Promise((r) => setTimeout(r, 1500));
    screenshot = await keepScreenshot(workbench.page, "vscode-workbench.png");
    console.log(`VS Code: the probe took ${report.totalMs} ms (${JSON.stringify(report.timings)}); screenshot: ${screenshot}`);
  } catch (error) {
    setupError = error as Error;
  }
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await workbench?.close();
  if (!process.env.PI_KEEP_WORK) rmSync(work, { recursive: true, force: true });
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

  it("lists the problems of a session never opened, as `check` reports them (workspace diagnostics)", () => {
    const s = steps();
    expect(s.unopenedDiagnostics?.neverOpened, "unopened.jsonl was opened in the editor").toBe(true);
    expect(s.unopenedDiagnostics?.diagnostics.length, "diagnostics of unopened.jsonl").toBeGreaterThan(0);
    expect(asProtocol(s.unopenedDiagnostics!.diagnostics)).toEqual(checkDiagnostics(unopened));
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
    expect(fixAll?.applied, `Fix all was not applied; the server offered ${JSON.stringify(fixAll?.offered)} with ${fixAll?.diagnostics} diagnostics`).toBe(
      true,
    );
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

  it("exports the branch Pi resumes, and the whole tree, from the palette, as `export --format markdown` prints them", () => {
    const s = steps();
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [CLI, "export", "--format", "markdown", ...args, valid], { encoding: "utf8", timeout: 30_000 }).stdout;
    expect(s.exportBranch?.path).toBe("/valid-branches (export of the resumed branch).md");
    expect(s.exportBranch?.languageId).toBe("markdown");
    expect(s.exportBranch?.text).toBe(cli());
    expect(s.exportTree?.path).toBe("/valid-branches (export of the whole tree).md");
    expect(s.exportTree?.languageId).toBe("markdown");
    expect(s.exportTree?.text).toBe(cli("--all"));
    // The whole tree holds every entry, the branches Pi does not resume too.
    expect(s.exportTree!.text.length).toBeGreaterThan(s.exportBranch!.text.length);
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
