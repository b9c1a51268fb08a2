/**
 * Emacs + Eglot, for real: `emacs --batch` loads the sample client-samples/emacs/pi-session.el as
 * a user's init file would, then test/clients/emacs/drive.el plays the user on the sample session
 * broken.jsonl (open it, M-x eglot, read Flymake, eldoc's hover, M-., the context command, change
 * a setting) and prints one JSON line with what Emacs showed. The server is the built one, run as
 * `pi-session-lsp --stdio` from PATH. Needs `emacs-nox` and `elpa-eglot` on Emacs 28 (Eglot is
 * built into Emacs 29+).
 */

import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeFadingHints } from "../../server/src/features/fading";
import { WAIT_MS } from "../helpers/limits";
import {
  changedLines,
  DEADLINE_MS,
  describeRun,
  type EditorRun,
  fixedByCli,
  REPO,
  remainingProblems,
  requireEditor,
  runEditor,
  SAMPLES,
  SESSIONS,
  STEP_MS,
} from "./harness";

const FILE = join(SESSIONS, "broken.jsonl");
const TEXT = readFileSync(FILE, "utf8");
const LINES = TEXT.split("\n");
const SERVER = join(REPO, "bin", "pi-session-lsp.js");

/** The 0-based line holding the entry with this id (the first one). */
function lineOf(id: string): number {
  const line = LINES.findIndex((text) => text.includes(`"id":"${id}"`));
  if (line < 0) throw new Error(`broken.jsonl has no entry ${id}`);
  return line;
}

// A parentId far from its parent: the branch summary 88aaf919 names the assistant reply fea926d3.
const FROM_LINE = lineOf("88aaf919");
const FROM_COL = LINES[FROM_LINE]!.indexOf('"parentId":"fea926d3"') + '"parentId":"'.length + 2;
const PARENT_LINE = lineOf("fea926d3");
// An entry on a side branch, whose context the command shows.
const CONTEXT_LEAF = "572760f0";

interface FlymakeDiagnostic {
  line: number;
  character: number;
  type: string;
  text: string;
}

interface CheckedDiagnostic {
  range: { start: { line: number; character: number } };
  severity: number;
  code: string;
  source: string;
  message: string;
}

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [SERVER, ...args], { cwd: REPO, encoding: "utf8", timeout: WAIT_MS });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** What `pi-session-lsp check --format json` says about broken.jsonl: the reference. */
function checked(): CheckedDiagnostic[] {
  const { stdout } = cli(["check", "--format", "json", FILE]);
  return (JSON.parse(stdout.trim()) as { diagnostics: CheckedDiagnostic[] }).diagnostics;
}

const EGLOT_TYPE: Record<number, string> = { 1: "eglot-error", 2: "eglot-warning", 3: "eglot-note", 4: "eglot-note" };

describe("Emacs + Eglot with client-samples/emacs/pi-session.el", () => {
  let run: EditorRun;
  let seen: Record<string, unknown>;
  /** describeRun, with the JSON line cut down to the errors, the timings and the fields asked for. */
  const why = (...fields: string[]) => {
    if (!run.result) return describeRun(run);
    const picked = Object.fromEntries(["client", "ok", "errors", "ms", ...fields].filter((k) => k in seen).map((k) => [k, seen[k]]));
    return describeRun({ ...run, stdout: JSON.stringify(picked) });
  };

  // Copies of the session for Fix all and the rename, which edit them (in the buffer only).
  const copies = mkdtempSync(join(tmpdir(), "pi-session-emacs-edits-"));
  const fixCopy = join(copies, "fix.jsonl");
  const renameCopy = join(copies, "rename.jsonl");
  const rename = { from: "0aede2f1", to: "5ca1ab1e" };
  afterAll(() => rmSync(copies, { recursive: true, force: true }));

  beforeAll(async () => {
    requireEditor("emacs", "emacs-nox elpa-eglot");
    copyFileSync(FILE, fixCopy);
    copyFileSync(FILE, renameCopy);
    const renameLine = lineOf(rename.from);
    const renameCol = LINES[renameLine]!.indexOf(`"id":"${rename.from}"`) + '"id":"'.length + 2;
    const eglot = spawnSync("emacs", ["--batch", "-f", "package-activate-all", "--eval", '(kill-emacs (if (locate-library "eglot") 0 1))'], {
      timeout: WAIT_MS,
    });
    if (eglot.status !== 0) throw new Error("Eglot is not installed for this Emacs: run `apt-get install -y elpa-eglot` (Emacs 29+ has it built in).");
    run = await runEditor(
      "emacs",
      // As Emacs starts for a user: packages (Eglot on Emacs 28), then the init file (the sample).
      ["--batch", "-f", "package-activate-all", "-l", join(SAMPLES, "emacs", "pi-session.el"), "-l", join(REPO, "test", "clients", "emacs", "drive.el")],
      {
        env: {
          PI_FILE: FILE,
          PI_POS: `${FROM_LINE}:${FROM_COL}`,
          PI_CONTEXT_LINE: String(lineOf(CONTEXT_LEAF)),
          PI_FIX_FILE: fixCopy,
          PI_RENAME_FILE: renameCopy,
          PI_RENAME_POS: `${renameLine}:${renameCol}`,
          PI_RENAME_NAME: rename.to,
          PI_STEP_TIMEOUT: String(STEP_MS / 1000),
          PI_DEADLINE: String(DEADLINE_MS / 1000),
        },
      },
    );
    seen = run.result ?? {};
  });

  it("C-c C-f (pi-session-fix-all) fixes the buffer as `check --fix` fixes the file, and saves nothing", () => {
    const because = why("fixAllCommand", "fixAll");
    expect(seen.fixAllCommand, because).toBe("pi-session-fix-all");
    const fixed = seen.fixAll as { text: string; modified: boolean } | undefined;
    expect(fixed, because).toBeDefined();
    expect(fixed!.modified, "the buffer is modified").toBe(true);
    expect(readFileSync(fixCopy, "utf8"), "Emacs must not save the file").toBe(TEXT);
    // Fix all chooses fresh ids at random: compare which lines changed, and what is left to fix.
    const cliFixed = fixedByCli(TEXT, copies);
    expect(changedLines(TEXT, fixed!.text), "the lines Fix all changed").toEqual(changedLines(TEXT, cliFixed));
    expect(remainingProblems(fixed!.text, copies), "what is left after Fix all").toEqual(remainingProblems(cliFixed, copies));
  });

  it("M-x eglot-rename renames an id and its references in the buffer, and saves nothing", () => {
    const renamed = seen.rename as { text: string; modified: boolean } | undefined;
    expect(renamed, why("rename")).toBeDefined();
    expect(TEXT.split(`"${rename.from}"`).length - 1, `${rename.from} is named more than once`).toBeGreaterThan(1);
    expect(renamed!.text).toBe(TEXT.replaceAll(`"${rename.from}"`, `"${rename.to}"`));
    expect(renamed!.modified, "the buffer is modified").toBe(true);
    expect(readFileSync(renameCopy, "utf8"), "Emacs must not save the file").toBe(TEXT);
  });

  it("answers every step in time", () => {
    expect(run.timedOut, why()).toBe(false);
    expect(run.result, `no JSON line on stdout\n${why()}`).toBeDefined();
    expect(seen.errors, why()).toEqual([]);
    expect(run.code, why()).toBe(0);
  });

  it("opens session files in pi-session-mode and starts `pi-session-lsp --stdio` with languageId jsonl and the settings", () => {
    const because = why("majorMode", "eglotEnsureHooked", "command", "languageId", "serverInfo", "initializationOptions");
    expect(seen.majorMode, because).toBe("pi-session-mode");
    expect(seen.eglotEnsureHooked, because).toBe(true);
    expect(seen.command, because).toEqual(["pi-session-lsp", "--stdio"]);
    expect(seen.languageId, because).toBe("jsonl");
    expect(seen.serverInfo, because).toMatchObject({ name: "pi-session-lsp" });
    expect(seen.initializationOptions, because).toEqual({ piSession: { maxSymbols: 2000, fadeInactive: true } });
  });

  it("shows sessions unwrapped (truncate-lines) and coloured by the JSON mode (font-lock faces on keys)", () => {
    const because = why("majorMode", "truncateLines", "keyFace");
    expect(seen.truncateLines, because).toBe(true);
    expect(String(seen.keyFace), because).toMatch(/font-lock-[a-z-]+-face/);
  });

  it("shows in Flymake what `check` reports, on the same lines, with code and message", () => {
    const because = why("diagnostics");
    const flymake = (seen.diagnostics ?? []) as FlymakeDiagnostic[];
    const faults = flymake.filter((d) => !d.text.includes("[not-in-context]"));
    const expected = checked();
    expect(expected.length).toBeGreaterThan(5);
    const shown = faults.map((d) => ({ line: d.line, character: d.character, type: d.type, text: d.text }));
    const wanted = expected.map((d) => ({
      line: d.range.start.line,
      character: d.range.start.character,
      type: EGLOT_TYPE[d.severity],
      text: `${d.source} [${d.code}]: ${d.message}`,
    }));
    expect(shown, because).toEqual(wanted);
    // The ones a reader looks for first.
    expect(faults.find((d) => d.text.includes("[malformed-json]"))?.line, because).toBe(4);
    expect(faults.find((d) => d.text.includes('"deadbeef"'))?.text, because).toContain("[dangling-parent]");
    expect(faults.at(-1)?.text, because).toContain("[truncated-line]");
  });

  it("fades entries Pi leaves out (fadeInactive on), and stops when the setting is turned off", () => {
    const because = why("diagnostics", "fadedBefore", "fadedAfter", "diagnosticsAfterSettings");
    const flymake = (seen.diagnostics ?? []) as FlymakeDiagnostic[];
    const faded = flymake.filter((d) => d.text.includes("[not-in-context]"));
    expect(faded.length, because).toBeGreaterThan(0);
    expect(new Set(faded.map((d) => d.type)), because).toEqual(new Set(["eglot-note"]));
    // One note per run of faded lines, at the run's first line: the ones the server computes.
    const runs = computeFadingHints(new SessionDocument(pathToFileURL(FILE).href, "jsonl", 1, TEXT));
    expect(runs.length).toBeGreaterThan(0);
    expect(
      faded.map((d) => d.line),
      because,
    ).toEqual(runs.map((d) => d.range.start.line));
    expect(seen.fadedBefore, because).toBe(faded.length);
    expect(seen.fadedAfter, because).toBe(0);
    expect(seen.diagnosticsAfterSettings, because).toBe(checked().length);
  });

  it("shows the hover of a parentId through eldoc: the entry it names", () => {
    const because = why("hover");
    const hover = String(seen.hover ?? "");
    for (const words of ["parentId", "fea926d3", "assistant", `line ${PARENT_LINE + 1}`, "calendar-math.ts"]) {
      expect(hover, `hover should mention ${words}\n${because}`).toContain(words);
    }
  });

  it("M-x imenu groups the outline under the kind names the README lists, messages under Event", () => {
    const because = why("imenu");
    const groups = (seen.imenu ?? []) as { group: string; items: string[]; nesting: string[] }[];
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const listed = /^Symbol kinds are few.*$/m.exec(readme)?.[0] ?? "";
    const names = [...listed.matchAll(/\*\*([A-Z][a-z]+)\*\*/g)].map((m) => m[1]);
    expect(names.length, "the README's sentence on symbol kinds").toBeGreaterThan(5);
    expect(groups.length, because).toBeGreaterThan(1);
    for (const { group } of groups) expect(names, because).toContain(group);
    const events = groups.find((g) => g.group === "Event")?.items ?? [];
    expect(events.length, because).toBeGreaterThan(5);
    for (const item of events) expect(item, because).toMatch(/^(user|assistant|toolResult|bashExecution|custom|system|branchSummary|compactionSummary)\b/);
    expect(groups.find((g) => g.group === "File")?.items, because).toContain("session");
    // A side branch is a Namespace of its own, and its messages are listed under its name.
    expect(
      groups.find((g) => g.group === "Namespace")?.items.some((i) => i.startsWith("branch ")),
      because,
    ).toBe(true);
    expect(
      groups.find((g) => g.group === "Event")?.nesting.some((i) => i.startsWith("branch ")),
      because,
    ).toBe(true);
  });

  it("M-. on the parentId moves point to the parent's id", () => {
    const because = why("metaDotCommand", "afterDefinition");
    expect(seen.metaDotCommand, because).toBe("xref-find-definitions");
    const parent = LINES[PARENT_LINE]!;
    const value = parent.indexOf('"fea926d3"');
    const after = seen.afterDefinition as { buffer: string; line: number; character: number } | undefined;
    expect(after, because).toBeDefined();
    expect(after!.buffer, because).toBe("broken.jsonl");
    expect(after!.line, `point should move from line ${FROM_LINE} to ${PARENT_LINE}\n${because}`).toBe(PARENT_LINE);
    expect(after!.character, because).toBeGreaterThanOrEqual(value);
    expect(after!.character, because).toBeLessThanOrEqual(value + '"fea926d3"'.length);
  });

  it("C-c C-c (pi-session-show-context) shows the context of the entry on the line, and the active one, as Markdown in a read-only buffer", () => {
    const because = why("ccCommand", "context", "activeContext");
    const context = seen.context as { buffer: string; readOnly: boolean; markdown: string } | undefined;
    expect(seen.ccCommand, because).toBe("pi-session-show-context");
    expect(context, because).toBeDefined();
    expect(context!.readOnly, because).toBe(true);
    for (const text of [
      `leaf \`${CONTEXT_LEAF}\``,
      "Earlier attempts at naming were discarded.",
      "Start over: what does the module do?",
      "It formats and compares dates.",
    ]) {
      expect(context!.markdown, because).toContain(text);
    }
    // Exactly what the CLI prints for the same leaf, and for the active context.
    expect(context!.markdown).toBe(cli(["context", "--format", "markdown", "--leaf", CONTEXT_LEAF, FILE]).stdout);
    const active = String(seen.activeContext ?? "");
    expect(active, because).toContain("Unrelated: how do I list git branches?");
    expect(active, because).toContain("`git branch -a`.");
    expect(active).toBe(cli(["context", "--format", "markdown", FILE]).stdout);
  });

  it("shuts the server down (Eglot 1.9 kills it right after `exit`, so its exit code is not checked)", () => {
    const because = why("serverLiveAfterShutdown");
    expect(seen.serverLiveAfterShutdown, because).toBe(false);
  });
});
