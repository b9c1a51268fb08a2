/**
 * Neovim, headless, with the sample configuration from client-samples/neovim/ as a user installs
 * it (the driver `:source`s the sample file itself, with options in `vim.g.pi_session`), against
 * `pi-session-lsp --stdio` from PATH. test/clients/neovim/drive.lua does what a user does (opens a
 * session, presses K and gd, looks at the lenses, runs :PiSessionContext and the header's lens)
 * and prints what the editor showed; this file compares it with the CLI on the same files.
 *
 * By default the Neovim on PATH (Debian bookworm: 0.7.2) runs pi-session.lua, and Neovim 0.11+
 * also runs pi-session-0.11.lua. PI_NVIM="nvim,/path/to/other/nvim" tests several Neovims
 * (test/clients/neovim/get-nvim.sh fetches 0.10 and 0.12 from Debian into a private folder).
 */

import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WAIT_MS } from "../helpers/limits";
import {
  changedLines,
  DEADLINE_MS,
  describeRun,
  fixedByCli,
  NVIMS,
  nvimVersion,
  remainingProblems,
  REPO,
  requireEditor,
  runEditor,
  SAMPLES,
  SESSIONS,
  STEP_MS,
  type EditorRun,
} from "./harness";

const DRIVER = join(__dirname, "neovim", "drive.lua");
const CLI = join(REPO, "bin", "pi-session-lsp.js");

interface Case {
  file: string;
  /** Also run Fix all and a rename of `rename.id`, each on a copy of the file. */
  edits?: { rename: { id: string; to: string } };
  /** vim.g.pi_session, as a user would set it in init.lua. */
  options?: Record<string, unknown>;
  /** 0-based line of an entry whose parentId is hovered, followed (gd) and asked for its context. */
  referenceLine: number;
}

const CASES: Case[] = [
  // Settings pass through: fading off, so the editor shows exactly what `check` prints.
  { file: "broken.jsonl", options: { settings: { fadeInactive: false } }, referenceLine: 13, edits: { rename: { id: "0aede2f1", to: "5ca1ab1e" } } },
  // Default settings: the faded `not-in-context` hints come on top of `check`'s (empty) list.
  { file: "valid-branches.jsonl", referenceLine: 21 },
  // Only Pi's sessions folder: the sample's rule for <sessions_dir>/**/*.jsonl must mark the file.
  { file: "valid-compaction.jsonl", options: { sessions_dir: SESSIONS, sessions_only: true }, referenceLine: 13 },
];

interface Diagnostic {
  line: number;
  character: number;
  severity: number;
  code: string | null;
  message?: string;
}

interface Lens {
  line: number;
  title: string;
  command: string;
}

interface Scratch {
  name: string;
  lines: string[];
  buftype: string;
  filetype: string;
  modifiable: boolean;
  readonly: boolean;
}

/** What the driver prints (see drive.lua). */
interface DriverResult {
  client: string;
  ok: boolean;
  errors: string[];
  ms: Record<string, number>;
  filetype?: string;
  markedAsSession?: boolean;
  /** 'wrap' of the session's window, 'syntax' and b:current_syntax of its buffer, with `syntax on`. */
  wrap?: boolean;
  syntax?: string;
  currentSyntax?: string | null;
  /** Whether this Neovim's runtime has a syntax file for `jsonl` (none has, up to 0.12). */
  jsonlSyntaxFile?: boolean;
  clientName?: string;
  omnifunc?: string;
  initOptions?: { piSession?: Record<string, unknown> };
  settings?: { piSession?: Record<string, unknown> };
  configurationCapability?: boolean;
  configuration?: { asked: unknown; answered: unknown[] };
  diagnosticsVia?: "push" | "pull";
  diagnostics?: Diagnostic[];
  hover?: string;
  cursorAfterDefinition?: { line: number; character: number; file: string };
  codelensOnAttach?: Lens[];
  codelens?: Lens[];
  codelensDisplayed?: { line: number; text: string }[];
  contextCommand?: Scratch;
  contextLens?: Scratch;
  fixAll?: BufferState;
  rename?: BufferState;
  /** The float opened when the cursor rests on each of PI_NVIM_FLOAT_LINES (CursorHold). */
  lineFloats?: { line: number; lines: string[] }[];
  /** The Fix all buffer's lenses before, after (with no refresh by hand), and a fresh buffer's with its text. */
  lensesBeforeFixAll?: Lens[];
  lensesAfterFixAll?: Lens[];
  lensesOfFixedText?: Lens[];
}

/** A buffer after an edit: its lines, 'eol' and 'modified'. */
interface BufferState {
  lines: string[];
  eol: boolean;
  modified: boolean;
}

/** A short account of a run for assertion messages: the driver's errors and Neovim's stderr. */
function why(run: EditorRun, result: DriverResult): string {
  if (!run.result) return describeRun(run);
  const stderr = run.stderr.trim().split("\n").slice(-5).join("\n");
  return [
    `${result.client}: exit code ${String(run.code)}${run.timedOut ? " (killed: too slow)" : ""}`,
    `driver errors: ${JSON.stringify(result.errors)}`,
    stderr && `stderr (end):\n${stderr}`,
  ]
    .filter(Boolean)
    .join("\n");
}

const cliAnswers = new Map<string, { status: number | null; stdout: string }>();

/** Runs the CLI on the same files (once per command line: every Neovim and sample compares with it). */
function cli(args: string[]): { status: number | null; stdout: string } {
  const key = args.join("\0");
  let answer = cliAnswers.get(key);
  if (!answer) {
    const run = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", timeout: WAIT_MS });
    answer = { status: run.status, stdout: run.stdout };
    cliAnswers.set(key, answer);
  }
  return answer;
}

/** `check --format json` on one file: its diagnostics, as the editor should show them. */
function checkDiagnostics(file: string): Diagnostic[] {
  const { stdout } = cli(["check", "--format", "json", file]);
  const report = JSON.parse(stdout.trim().split("\n")[0]!) as {
    diagnostics: { range: { start: { line: number; character: number } }; severity: number; code: string }[];
  };
  return sortDiagnostics(report.diagnostics.map((d) => ({ line: d.range.start.line, character: d.range.start.character, severity: d.severity, code: d.code })));
}

function sortDiagnostics(list: Diagnostic[]): Diagnostic[] {
  return [...list].sort((a, b) => a.line - b.line || a.character - b.character || String(a.code).localeCompare(String(b.code)));
}

/** The lines of `context --format markdown`, as the scratch buffer should hold them. */
function contextMarkdown(file: string, leaf?: string): string[] {
  const { status, stdout } = cli(["context", "--format", "markdown", ...(leaf ? ["--leaf", leaf] : []), file]);
  expect(status, `pi-session-lsp context ${leaf ?? ""} ${file}`).toBe(0);
  const lines = stdout.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function contextMessageCount(file: string): number {
  const { stdout } = cli(["context", file]);
  return (JSON.parse(stdout) as { messages: unknown[] }).messages.length;
}

/** The reference on `line`: where its parentId value is, and where the entry it names is. */
function parentReference(file: string, line: number) {
  const lines = readFileSync(file, "utf8").split("\n");
  const text = lines[line]!;
  const entry = JSON.parse(text) as { id: string; parentId: string };
  const key = `"parentId":"${entry.parentId}"`;
  const at = text.indexOf(key);
  expect(at, `line ${line} of ${file} has ${key}`).toBeGreaterThan(0);
  // Pi resolves an id to the last entry holding it.
  let targetLine = -1;
  lines.forEach((l, i) => {
    try {
      const e = JSON.parse(l) as { id?: unknown; type?: unknown };
      if (e.id === entry.parentId && e.type !== "session") targetLine = i;
    } catch {
      // not an entry
    }
  });
  const target = JSON.parse(lines[targetLine]!) as { type: string; message?: { role?: string } };
  const idValue = lines[targetLine]!.indexOf(`"id":"${entry.parentId}"`) + '"id":'.length;
  return {
    id: entry.id,
    parentId: entry.parentId,
    /** Inside the quoted parentId value. */
    position: `${line}:${at + '"parentId":"'.length + 2}`,
    targetLine,
    targetKind: target.type === "message" ? `message · ${target.message?.role}` : target.type,
    /** The columns of the target's quoted id value, where the jump lands. */
    targetIdColumns: [idValue, idValue + entry.parentId.length + 2] as const,
  };
}

/** 0-based line and character inside the quoted value of `"id":"<id>"`. */
function idValue(text: string, id: string): { line: number; character: number } {
  const lines = text.split("\n");
  const line = lines.findIndex((l) => l.includes(`"id":"${id}"`));
  expect(line, `"id":"${id}" is in the file`).toBeGreaterThanOrEqual(0);
  return { line, character: lines[line]!.indexOf(`"id":"${id}"`) + '"id":"'.length + 2 };
}

describe.each(NVIMS)("Neovim (%s) with the sample configuration", (nvim) => {
  if (nvim === "nvim") requireEditor("nvim", "neovim");
  const version = nvimVersion(nvim);
  const samples = ["pi-session.lua"];
  if (version && (version[0] > 0 || version[1] >= 11)) samples.push("pi-session-0.11.lua");

  it("is a Neovim", () => {
    expect(version, `${nvim} --version does not name a Neovim version`).toBeDefined();
  });

  describe.each(samples)("%s", (sample) => {
    it("with sessions_only, leaves *.jsonl files outside sessions_dir alone", async () => {
      const run = await runEditor(nvim, ["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", `luafile ${DRIVER}`], {
        env: {
          PI_NVIM_SAMPLE: join(SAMPLES, "neovim", sample),
          PI_NVIM_FILE: join(SESSIONS, "broken.jsonl"),
          PI_NVIM_OPTIONS: JSON.stringify({ sessions_dir: join(REPO, "no-such-sessions-folder"), sessions_only: true }),
          // A wait for a client that must not attach: short, since a slow machine can only make it pass.
          PI_NVIM_TIMEOUT_MS: "1000",
          PI_NVIM_WATCHDOG_MS: String(DEADLINE_MS),
        },
      });
      const result = (run.result ?? { errors: [] }) as unknown as DriverResult;
      expect(result.filetype, describeRun(run)).toBe("jsonl");
      expect(result.markedAsSession).toBe(false);
      expect(result.errors, "no server should be attached").toEqual([expect.stringMatching(/^initialize: no initialized pi_session client/)]);
    });

    describe.each(CASES)("on $file", (testCase) => {
      const file = join(SESSIONS, testCase.file);
      const reference = parentReference(file, testCase.referenceLine);
      let run: EditorRun;
      let result: DriverResult;

      // The copies that Fix all and the rename edit (in the buffer only: they must stay as they are).
      const copies = testCase.edits ? mkdtempSync(join(tmpdir(), "pi-session-nvim-edits-")) : "";
      const fixCopy = join(copies, `fix-${testCase.file}`);
      const renameCopy = join(copies, `rename-${testCase.file}`);
      const original = readFileSync(file, "utf8");
      // Where the cursor rests: the header (its lens) and the first line with an error, if any.
      const firstError = checkDiagnostics(file).find((d) => d.severity === 1);
      const floatLines = firstError ? [0, firstError.line] : [0];
      afterAll(() => {
        if (copies) rmSync(copies, { recursive: true, force: true });
      });

      beforeAll(async () => {
        const edits: Record<string, string> = {};
        if (testCase.edits) {
          copyFileSync(file, fixCopy);
          copyFileSync(file, renameCopy);
          const { id, to } = testCase.edits.rename;
          const at = idValue(original, id);
          Object.assign(edits, { PI_NVIM_FIX_FILE: fixCopy, PI_NVIM_RENAME_FILE: renameCopy, PI_NVIM_RENAME: `${at.line}:${at.character}:${to}` });
        }
        run = await runEditor(nvim, ["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", `luafile ${DRIVER}`], {
          env: {
            PI_NVIM_SAMPLE: join(SAMPLES, "neovim", sample),
            PI_NVIM_FILE: file,
            PI_NVIM_OPTIONS: testCase.options ? JSON.stringify(testCase.options) : "",
            PI_NVIM_HOVER: reference.position,
            PI_NVIM_DEFINITION: reference.position,
            PI_NVIM_CONTEXT: String(testCase.referenceLine),
            PI_NVIM_FLOAT_LINES: floatLines.join(","),
            PI_NVIM_TIMEOUT_MS: String(STEP_MS),
            PI_NVIM_WATCHDOG_MS: String(DEADLINE_MS),
            ...edits,
          },
        });
        result = (run.result ?? { errors: ["the driver printed no JSON result"] }) as unknown as DriverResult;
      });

      it("every step answers in time", () => {
        expect(result.errors, `the driver reported errors\n${why(run, result)}`).toEqual([]);
        expect(run.code, why(run, result)).toBe(0);
        expect(result.clientName, why(run, result)).toBe("pi_session");
        expect(result.omnifunc, "CTRL-X CTRL-O completes from the server").toBe("v:lua.vim.lsp.omnifunc");
        expect(result.filetype).toBe("jsonl");
        expect(result.markedAsSession, "b:pi_session: whether the file is under sessions_dir").toBe(testCase.options?.sessions_dir === SESSIONS);
      });

      it("shows the session unwrapped and in colour (JSON's syntax, as Neovim has none for jsonl)", () => {
        expect(result.wrap, `'wrap' of the session's window\n${why(run, result)}`).toBe(false);
        const syntax = result.jsonlSyntaxFile ? "jsonl" : "json";
        expect({ syntax: result.syntax, loaded: result.currentSyntax }, why(run, result)).toEqual({ syntax, loaded: syntax });
      });

      it("passes the settings as settings.piSession and init_options", () => {
        const expected = { maxSymbols: 2000, fadeInactive: true, ...(testCase.options?.settings as object | undefined) };
        expect(result.settings?.piSession, why(run, result)).toEqual(expected);
        expect(result.initOptions?.piSession, why(run, result)).toEqual(expected);
        if (result.configurationCapability) {
          // Neovim 0.8+ says it answers workspace/configuration; the server then asks for piSession.
          expect(result.configuration?.asked, `the server never asked workspace/configuration\n${why(run, result)}`).toEqual([{ section: "piSession" }]);
          expect(result.configuration?.answered).toEqual([expected]);
        }
      });

      it("shows the diagnostics of `check`, on the same lines, with the same codes", () => {
        const shown = sortDiagnostics((result.diagnostics ?? []).map(({ line, character, severity, code }) => ({ line, character, severity, code })));
        const fading = shown.filter((d) => d.code === "not-in-context");
        expect(
          shown.filter((d) => d.code !== "not-in-context"),
          `diagnostics in ${result.client} (via ${result.diagnosticsVia ?? "nothing"}) differ from \`check --format json ${testCase.file}\``,
        ).toEqual(checkDiagnostics(file));
        if ((testCase.options?.settings as { fadeInactive?: boolean } | undefined)?.fadeInactive === false) {
          expect(fading, "fadeInactive: false should turn the faded hints off").toEqual([]);
        } else {
          expect(fading.length, "the default settings fade entries that are not in the context").toBeGreaterThan(0);
          for (const hint of fading) expect(hint.severity).toBe(4);
        }
      });

      it("hovers a parentId with a preview of its parent (K)", () => {
        expect(result.hover, why(run, result)).toBeDefined();
        const hover = result.hover!;
        expect(hover).toContain("parentId");
        expect(hover).toContain(reference.parentId);
        expect(hover).toContain(reference.targetKind);
        expect(hover).toContain(`line ${reference.targetLine + 1}`);
      });

      it("jumps to the parent's id with gd (the cursor moves)", () => {
        const cursor = result.cursorAfterDefinition;
        expect(cursor, why(run, result)).toBeDefined();
        expect(cursor!.file).toBe(file);
        expect(cursor!.line, `the cursor should land on line ${reference.targetLine} (0-based), the entry with id ${reference.parentId}`).toBe(
          reference.targetLine,
        );
        expect(cursor!.character).toBeGreaterThanOrEqual(reference.targetIdColumns[0]);
        expect(cursor!.character).toBeLessThan(reference.targetIdColumns[1]);
      });

      it("shows the context lenses, the header's with the active context's title", () => {
        const lenses = result.codelens ?? [];
        expect(result.codelensOnAttach, "the sample should show lenses as soon as the server is attached").toEqual(lenses);
        const header = lenses.find((l) => l.line === 0);
        const messages = contextMessageCount(file);
        expect(header?.title, `lenses: ${JSON.stringify(lenses)}`).toMatch(new RegExp(`^context: ${messages} messages? · ~[0-9.,]+k? tokens · `));
        // A branch tip Pi does not resume has a second lens, which compares it with the active branch.
        for (const lens of lenses) {
          const expected = lens.title === "compare with the active branch" ? "piSession.compareBranches" : "piSession.showContext";
          expect(lens.command, `lens on line ${lens.line}: ${lens.title}`).toBe(expected);
        }
        expect(lenses.filter((l) => l.command === "piSession.showContext").length).toBeGreaterThan(0);
        // What is drawn in the buffer is what the lenses say.
        // Neovim draws a line's lenses as one text, joined by " | " (ordered by their column).
        const byLine = (items: { line: number; titles: string[] }[]) => Object.fromEntries(items.map(({ line, titles }) => [line, [...titles].sort()]));
        const drawn = (result.codelensDisplayed ?? []).map((d) => ({ line: d.line, titles: d.text.split(" | ") }));
        const lines = [...new Set(lenses.map((l) => l.line))];
        const said = lines.map((line) => ({ line, titles: lenses.filter((l) => l.line === line).map((l) => l.title) }));
        expect(byLine(drawn)).toEqual(byLine(said));
        expect(drawn).toHaveLength(lines.length);
      });

      it(":PiSessionContext opens the context of the entry on the line, read-only", () => {
        const scratch = result.contextCommand;
        expect(scratch, why(run, result)).toBeDefined();
        expect(scratch!.name).toBe(`pi-context://${basename(file)}/${reference.id}`);
        expect({ buftype: scratch!.buftype, filetype: scratch!.filetype, modifiable: scratch!.modifiable, readonly: scratch!.readonly }).toEqual({
          buftype: "nofile",
          filetype: "markdown",
          modifiable: false,
          readonly: true,
        });
        expect(scratch!.lines).toEqual(contextMarkdown(file, reference.id));
      });

      it("running the header's lens opens the active context", () => {
        const scratch = result.contextLens;
        expect(scratch, why(run, result)).toBeDefined();
        expect(scratch!.name).toBe(`pi-context://${basename(file)}/active`);
        expect(scratch!.lines).toEqual(contextMarkdown(file));
      });

      it("shows the line's problems, and its lenses before 0.12, in a float when the cursor rests on it", () => {
        // Sessions are unwrapped and their lines long: the message and a lens at the end of the
        // line are off screen, so the float is where they can be read.
        const lensesAbove = version !== undefined && (version[0] > 0 || version[1] >= 12);
        const names = ["", "error", "warning", "info", "hint"];
        const expected = floatLines.map((line) => {
          const problems = (result.diagnostics ?? [])
            .filter((d) => d.line === line && d.severity <= 3)
            .sort((a, b) => a.severity - b.severity || a.character - b.character)
            .flatMap((d) => (d.message ?? "").split("\n").map((text, i) => (i === 0 ? `${names[d.severity]} ${d.code}: ${text}` : `  ${text}`)));
          const lenses = lensesAbove ? [] : (result.codelens ?? []).filter((l) => l.line === line).map((l) => `lens: ${l.title}`);
          return { line, lines: [...problems, ...lenses] };
        });
        expect(result.lineFloats, why(run, result)).toEqual(expected);
        // The header's float says what its (cut) lens says; the error line's float holds the error.
        if (!lensesAbove) expect(result.lineFloats?.[0]?.lines.join("\n")).toMatch(/^lens: context: /);
        if (firstError) expect(result.lineFloats?.[1]?.lines[0]).toMatch(new RegExp(`^error ${firstError.code}: `));
      });

      if (testCase.edits) {
        const { id, to } = testCase.edits.rename;

        it("refreshes the lenses after :PiSessionFixAll, with no refresh by hand", () => {
          expect(result.lensesOfFixedText, why(run, result)).toBeDefined();
          // Fix all changes what the lenses say here, so stale lenses would show.
          expect(result.lensesBeforeFixAll).not.toEqual(result.lensesOfFixedText);
          expect(result.lensesAfterFixAll, "the lenses of the fixed buffer, against a fresh buffer with the same text").toEqual(result.lensesOfFixedText);
        });

        it(":PiSessionFixAll fixes the buffer as `check --fix` fixes the file, and writes nothing", () => {
          const fixed = result.fixAll;
          expect(fixed, why(run, result)).toBeDefined();
          expect(fixed!.modified, "the buffer is modified").toBe(true);
          expect(readFileSync(fixCopy, "utf8"), "Neovim must not write the file").toBe(original);
          // Fix all chooses fresh ids at random: compare which lines changed, and what is left to fix.
          const cliFixed = fixedByCli(original, copies);
          const bufferText = fixed!.lines.join("\n") + (fixed!.eol ? "\n" : "");
          expect(changedLines(original, bufferText), "the lines Fix all changed").toEqual(changedLines(original, cliFixed));
          expect(remainingProblems(bufferText, copies), "what is left after Fix all").toEqual(remainingProblems(cliFixed, copies));
        });

        it("renames an id and its references in the buffer, and writes nothing", () => {
          const renamed = result.rename;
          expect(renamed, why(run, result)).toBeDefined();
          expect(renamed!.modified, "the buffer is modified").toBe(true);
          expect(readFileSync(renameCopy, "utf8"), "Neovim must not write the file").toBe(original);
          const expected = original.replaceAll(`"${id}"`, `"${to}"`);
          expect(original.split(`"${id}"`).length - 1, `${id} is named more than once in ${testCase.file}`).toBeGreaterThan(1);
          expect(renamed!.lines.join("\n") + (renamed!.eol ? "\n" : "")).toBe(expected);
        });
      }
    });
  });
});
