/**
 * Vim + ALE, headless (`vim -es`), with the sample configuration client-samples/vim/pi-session.vim
 * sourced as a user would, on client-samples/sessions/broken.jsonl. The driver
 * (test/clients/vim/drive.vim) prints what Vim shows: ALE's diagnostics and the window's location
 * list, the hover text from ALE's preview window, where :ALEGoToDefinition put the cursor, and what
 * :ALEFindReferences listed, and the scratch buffer the sample's :PiSessionContext opens.
 */

import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
  SESSIONS,
  STEP_MS,
} from "./harness";

const DRIVER = join(__dirname, "vim", "drive.vim");
const BROKEN = join(SESSIONS, "broken.jsonl");
/** Where Debian's vim-ale puts ALE, found by `packadd ale`; PI_ALE_DIR points elsewhere. */
const DEBIAN_ALE = "/usr/share/vim/vimfiles/pack/dist-bundle/opt/ale";

interface Diagnostic {
  lnum: number;
  col: number;
  type: string;
  code: string;
  text: string;
}
interface Probe {
  line: number;
  col: number;
  hover?: string[];
  definition?: { lnum: number; col: number; file: string };
  references?: string[];
  ms: Record<string, number>;
}
interface VimResult {
  ok: boolean;
  errors: string[];
  filetype: string;
  /** 'wrap' of the session's window, 'syntax' and b:current_syntax of its buffer, with `syntax on`. */
  wrap: boolean;
  syntax: string;
  currentSyntax: string | null;
  /** Whether the runtime has a syntax file for `jsonl` (Vim 9.0 has none). */
  jsonlSyntaxFile: boolean;
  linters: string[];
  omnifunc: string;
  diagnostics: Diagnostic[];
  loclist: Array<{ lnum: number; col: number; type: string; text: string }>;
  probes: Probe[];
  context?: { lines: string[]; ms: number };
  fixAll?: BufferState | null;
  renames: (BufferState | null)[];
  ms: Record<string, number>;
}
/** A buffer after an edit: its lines, 'eol' and 'modified'. */
interface BufferState {
  lines: string[];
  eol: boolean;
  modified: boolean;
}

const text = readFileSync(BROKEN, "utf8");
const lines = text.split("\n");

/**
 * Where `"key":"value"` is written (the first or the last line holding it): the 1-based line, the
 * 1-based column of the value's first character (as Vim counts), and the 0-based index of its opening quote.
 */
function locate(key: string, value: string, which: "first" | "last" = "first"): { line: number; col: number; quoted: number } {
  const needle = `"${key}":"${value}"`;
  const indexes = lines.map((l, i) => (l.includes(needle) ? i : -1)).filter((i) => i >= 0);
  const index = which === "first" ? indexes[0] : indexes[indexes.length - 1];
  if (index === undefined) throw new Error(`${needle} is not in ${BROKEN}`);
  const quoted = lines[index]!.indexOf(needle) + key.length + 3; // 0-based, on the opening quote of the value
  return { line: index + 1, col: quoted + 2, quoted };
}

function requireAle(): void {
  if (!process.env.PI_ALE_DIR && !existsSync(DEBIAN_ALE)) {
    throw new Error(`ALE is not installed: run \`apt-get install -y vim-ale\` (.ci/run does this on CI), or set PI_ALE_DIR to an ALE checkout.`);
  }
}

function runVim(probes: unknown[], extraArgs: string[] = [], env: Record<string, string> = {}): Promise<EditorRun> {
  return runEditor("vim", ["-N", "-u", "NONE", "-i", "NONE", "-n", "-es", ...extraArgs, "-S", DRIVER], {
    env: {
      PI_FILE: BROKEN,
      PI_PROBES: JSON.stringify(probes),
      PI_TIMEOUT_MS: String(STEP_MS),
      PI_DEADLINE_MS: String(DEADLINE_MS),
      ...env,
    },
  });
}

function resultOf(run: EditorRun): VimResult {
  expect(run.result, `Vim printed no JSON line.\n${describeRun(run)}`).toBeDefined();
  // A run that stopped early lacks some fields; the `errors` say why.
  return { errors: [], linters: [], diagnostics: [], loclist: [], probes: [], renames: [], ms: {}, ...(run.result as Partial<VimResult>) } as VimResult;
}

/** What `pi-session-lsp check --format json` says about the file, as Vim numbers it. */
function checkDiagnostics(): Array<{ lnum: number; col: number; type: string; code: string }> {
  const check = spawnSync(process.execPath, [join(REPO, "bin", "pi-session-lsp.js"), "check", "--format", "json", BROKEN], {
    encoding: "utf8",
    timeout: WAIT_MS,
  });
  expect(check.status, `check failed: ${check.stderr}`).toBe(1);
  const report = JSON.parse(check.stdout.trim()) as {
    diagnostics: Array<{ range: { start: { line: number; character: number } }; severity: number; code: string }>;
  };
  return report.diagnostics.map((d) => ({ lnum: d.range.start.line + 1, col: d.range.start.character + 1, type: d.severity === 1 ? "E" : "W", code: d.code }));
}

const byPosition = (a: { lnum: number; col: number; code: string }, b: { lnum: number; col: number; code: string }) =>
  a.lnum - b.lnum || a.col - b.col || a.code.localeCompare(b.code);

// The probes: a parentId naming a branch_summary, a parentId naming a duplicated id (Pi uses the
// last entry holding it), and a dangling parentId (hover only: there is nowhere to jump).
const summaryChild = locate("parentId", "0aede2f1");
const summary = locate("id", "0aede2f1");
const duplicateChild = locate("parentId", "7ce62d48", "last");
const duplicateLast = locate("id", "7ce62d48", "last");
const duplicateFirst = locate("id", "7ce62d48", "first");
const dangling = locate("parentId", "deadbeef");
// :PiSessionContext . on an entry of the branch that starts at a branch summary.
const contextLeaf = locate("id", "572760f0");

/** What `pi-session-lsp context --format markdown` prints for a leaf. */
function cliContext(leaf: string): string[] {
  const cli = spawnSync(process.execPath, [join(REPO, "bin", "pi-session-lsp.js"), "context", "--format", "markdown", "--leaf", leaf, BROKEN], {
    encoding: "utf8",
    timeout: WAIT_MS,
  });
  expect(cli.status, `context failed: ${cli.stderr}`).toBe(0);
  return cli.stdout.split("\n");
}

describe("Vim + ALE with client-samples/vim/pi-session.vim", () => {
  let run: EditorRun;
  let result: VimResult;
  let why: string;
  // Copies of the session for the edits: Fix all, and a rename with 'hidden' off, then on.
  const copies = mkdtempSync(join(tmpdir(), "pi-session-vim-edits-"));
  const fixCopy = join(copies, "fix.jsonl");
  const renameCopies = [join(copies, "rename-nohidden.jsonl"), join(copies, "rename-hidden.jsonl")];
  const rename = { from: "0aede2f1", to: "5ca1ab1e" };
  afterAll(() => rmSync(copies, { recursive: true, force: true }));

  beforeAll(async () => {
    requireEditor("vim", "vim");
    requireAle();
    for (const copy of [fixCopy, ...renameCopies]) copyFileSync(BROKEN, copy);
    const renames = renameCopies.map((file, hidden) => ({ file, hidden, line: summary.line, col: summary.col, name: rename.to }));
    run = await runVim(
      [
        { line: summaryChild.line, col: summaryChild.col },
        { line: duplicateChild.line, col: duplicateChild.col, actions: ["hover", "definition"] },
        { line: dangling.line, col: dangling.col, actions: ["hover"] },
      ],
      [],
      { PI_CONTEXT: ".", PI_CONTEXT_LINE: String(contextLeaf.line), PI_FIX_FILE: fixCopy, PI_RENAME: JSON.stringify(renames) },
    );
    why = describeRun(run);
    result = resultOf(run);
  });

  it("answers every step in time", () => {
    expect(result.errors, why).toEqual([]);
    expect(run.code, why).toBe(0);
    expect(result.filetype, "the sample's filetype rule").toBe("jsonl");
    expect(result.linters, why).toEqual(["pi-session-lsp"]);
    expect(result.omnifunc, "CTRL-X CTRL-O completes through ALE, from the start of Vim's word").toBe("PiSessionLspOmniFunc");
  });

  it("shows the session unwrapped and in colour (JSON's syntax, as Vim has none for jsonl)", () => {
    expect(result.wrap, `'wrap' of the session's window\n${why}`).toBe(false);
    const syntax = result.jsonlSyntaxFile ? "jsonl" : "json";
    expect({ syntax: result.syntax, loaded: result.currentSyntax }, why).toEqual({ syntax, loaded: syntax });
  });

  it("lists the checker's diagnostics in the location list, on the same lines, with the same codes", () => {
    expect(text.endsWith("\n"), "broken.jsonl ends in a cut-off line with no newline").toBe(false);
    // ALE always sends the buffer with a final newline (ale#lsp#message#DidOpen joins the lines
    // and appends "\n", whatever 'endofline' says), so the server never sees the cut-off last
    // line as cut off: it is malformed JSON there, and no-final-newline cannot appear.
    const expected = checkDiagnostics()
      .filter((d) => d.code !== "no-final-newline")
      .map((d) => (d.code === "truncated-line" && d.lnum === lines.length ? { ...d, code: "malformed-json" } : d));
    expect(
      checkDiagnostics().some((d) => d.code === "truncated-line"),
      "the fixture still has a cut-off last line",
    ).toBe(true);

    const seen = result.diagnostics.map(({ lnum, col, type, code }) => ({ lnum, col, type, code }));
    expect(seen.sort(byPosition), why).toEqual(expected.sort(byPosition));
    // The sample turns fading off (ALE would list every faded entry as a warning).
    expect(
      seen.filter((d) => d.code === "not-in-context"),
      why,
    ).toEqual([]);

    // The location list a user opens with :lopen: same places, each text led by its code.
    const loclist = result.loclist.map((d) => ({ lnum: d.lnum, col: d.col, code: d.text.split(":")[0]! }));
    expect(loclist.sort(byPosition), why).toEqual(expected.map(({ lnum, col, code }) => ({ lnum, col, code })).sort(byPosition));
  });

  it("shows hover text for a parentId in ALE's preview window", () => {
    const [toSummary, toDuplicate, toNothing] = result.probes;
    const hover = (probe: Probe | undefined) => (probe?.hover ?? []).join("\n");
    expect(hover(toSummary), why).toContain("**parentId** `0aede2f1`");
    expect(hover(toSummary), why).toContain("branch_summary");
    expect(hover(toSummary), why).toContain(`line ${summary.line}`);
    expect(hover(toSummary), why).toContain("The user asked about time zones");
    expect(hover(toDuplicate), why).toContain(
      `held by 2 entries (lines ${duplicateFirst.line}, ${duplicateLast.line}); Pi uses the last, line ${duplicateLast.line}`,
    );
    expect(hover(toNothing), why).toContain("Names no entry");
  });

  it(":ALEGoToDefinition moves the cursor onto the parent's id", () => {
    const [toSummary, toDuplicate] = result.probes;
    expect(toSummary?.definition, why).toEqual({ lnum: summary.line, col: summary.quoted + 1, file: BROKEN });
    // A duplicated id: the jump goes where Pi goes, to the last entry holding it.
    expect(toDuplicate?.definition, why).toEqual({ lnum: duplicateLast.line, col: duplicateLast.quoted + 1, file: BROKEN });
  });

  it(":ALEFindReferences lists the entries that name the parent", () => {
    expect(result.probes[0]?.references, why).toEqual([`${BROKEN}:${summaryChild.line}:${summaryChild.col - 1}`]);
  });

  it(":PiSessionFixAll fixes the buffer as `check --fix` fixes the text ALE sends, and writes nothing", () => {
    const fixed = result.fixAll;
    expect(fixed, why).toBeTruthy();
    expect(fixed!.modified, "the buffer is modified").toBe(true);
    expect(readFileSync(fixCopy, "utf8"), "the file is left as it was").toBe(text);
    // ALE sends the buffer with a final newline (see above); Fix all chooses fresh ids at random:
    // compare which lines changed, and what is left to fix.
    const sent = text.endsWith("\n") ? text : `${text}\n`;
    const cliFixed = fixedByCli(sent, copies);
    const bufferText = `${fixed!.lines.join("\n")}\n`;
    expect(changedLines(sent, bufferText), "the lines Fix all changed").toEqual(changedLines(sent, cliFixed));
    expect(changedLines(sent, bufferText).length, "Fix all changed something").toBeGreaterThan(0);
    expect(remainingProblems(bufferText, copies), "what is left after Fix all").toEqual(remainingProblems(cliFixed, copies));
  });

  it(":ALERename renames an id and its references, and writes the file itself when 'hidden' is off", () => {
    const [nohidden, hidden] = result.renames;
    const expected = text.replaceAll(`"${rename.from}"`, `"${rename.to}"`).split("\n");
    expect(text.split(`"${rename.from}"`).length - 1, `${rename.from} is named more than once`).toBeGreaterThan(1);
    // 'nohidden' (Vim's default): ALE saves the buffer after the rename (ale#rename: should_save = !&hidden).
    expect(nohidden?.lines, why).toEqual(expected);
    expect(nohidden!.modified, "ALE wrote the buffer").toBe(false);
    expect(readFileSync(renameCopies[0]!, "utf8"), "ALE wrote the renamed buffer to the file").toBe(`${expected.join("\n")}\n`);
    // 'hidden': the rename stays in the buffer.
    expect(hidden?.lines, why).toEqual(expected);
    expect(hidden!.modified, "the buffer is modified").toBe(true);
    expect(readFileSync(renameCopies[1]!, "utf8"), "the file is left as it was").toBe(text);
  });

  it(":PiSessionContext . opens the context built from the entry under the cursor, as the CLI prints it", () => {
    expect(result.context?.lines, why).toEqual(cliContext("572760f0"));
    expect(result.context?.lines.join("\n"), why).toContain("Earlier attempts at naming were discarded.");
  });
});

describe("Vim + ALE: settings from g:pi_session_lsp_settings reach the server", () => {
  it("fadeInactive: v:true brings the not-in-context hints into ALE's list", async () => {
    requireEditor("vim", "vim");
    requireAle();
    const run = await runVim([], ["--cmd", "let g:pi_session_lsp_settings = {'fadeInactive': v:true}"]);
    const why = describeRun(run);
    const result = resultOf(run);
    expect(result.errors, why).toEqual([]);
    const faded = result.diagnostics.filter((d) => d.code === "not-in-context");
    expect(faded.length, why).toBeGreaterThan(0);
    // ALE has no hint type: a hint shows as a warning.
    expect(new Set(faded.map((d) => d.type)), why).toEqual(new Set(["W"]));
  });
});
