/**
 * Completion in every sample editor inserts valid JSON: Neovim (each of PI_NVIM, with each sample
 * that runs on it), Vim + ALE and Emacs + Eglot, each headless with its sample configuration, type
 * a line (a blank line, a type, an id, a key) and complete at its end with CTRL-X CTRL-O or C-M-i,
 * taking the first item. The drivers are test/clients/{neovim/complete.lua,vim/complete.vim,
 * emacs/complete.el}.
 *
 * Neovim 0.7's omni completion and ALE replace the word before the cursor with an item's text
 * whatever the item's range says, and keep only the items whose text starts with that word: these
 * cases failed there until the server's edits started at that word (a key's quote came out
 * doubled, "pro" found no key) and the Vim sample took Vim's word for ALE's (an id being typed got
 * its first digits twice).
 */

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { WAIT_MS } from "../helpers/limits";
import { DEADLINE_MS, describeRun, NVIMS, REPO, requireEditor, runEditor, SAMPLES, SESSIONS, STEP_MS, type EditorRun } from "./harness";

/** The session the lines are typed after: a header, a model change and a user message (id 70035268). */
const SESSION = `${readFileSync(join(SESSIONS, "valid-branches.jsonl"), "utf8").split("\n").slice(0, 3).join("\n")}\n`;
const MODEL = '{"type":"model_change","id":"abcd1234","parentId":"70035268",';
const ENTRY = '{"type":"message","id":"abcd1234","parentId":"70035268","timestamp":"2026-03-02T10:00:05.004Z",';
const MESSAGE = `${ENTRY}"message":{"role":"`;

/** What is typed, and what the line must be once the first item is taken. */
const CASES: { typed: string; check: (line: string) => void }[] = [
  {
    typed: "",
    check: (line) => {
      const entry = JSON.parse(line) as { type: string; id: string; parentId: string; message: { role: string } };
      expect(entry).toMatchObject({ type: "message", parentId: "70035268", message: { role: "user" } });
      expect(entry.id).toMatch(/^[0-9a-f]{8}$/);
    },
  },
  { typed: '{"type":"mo', check: (line) => expect(line).toBe('{"type":"model_change"') },
  { typed: '{"type":"message","id":"abcd1234","parentId":"7', check: (line) => expect(line).toBe('{"type":"message","id":"abcd1234","parentId":"70035268"') },
  { typed: '{"type":"message","id":"abcd1234","parentId":"70', check: (line) => expect(line).toBe('{"type":"message","id":"abcd1234","parentId":"70035268"') },
  { typed: MESSAGE, check: (line) => expect(line).toBe(`${MESSAGE}user"`) },
  { typed: `${MODEL}"pro`, check: (line) => expect(line).toBe(`${MODEL}"provider":"anthropic"`) },
  {
    typed: `${MODEL}"`,
    check: (line) => expect(Object.keys(JSON.parse(`${line}}`) as object)).toHaveLength(4),
  },
  // Keys whose value is one of a few (a type, a role): the first is filled in, never left empty.
  {
    typed: "{",
    check: (line) => expect((JSON.parse(`${line}}`) as { type?: unknown }).type).toBe("message"),
  },
  {
    typed: `${ENTRY}"message":{`,
    check: (line) => expect((JSON.parse(`${line}}}`) as { message: { role?: unknown } }).message.role).toBe("user"),
  },
  {
    typed: MODEL,
    check: (line) => expect(Object.keys(JSON.parse(`${line}}`) as object)).toHaveLength(4),
  },
];

const dir = mkdtempSync(join(tmpdir(), "pi-session-complete-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** A fresh copy of the session for one editor run (the drivers add a line, never save). */
function sessionCopy(name: string): string {
  const file = join(dir, `${name.replace(/[^A-Za-z0-9.]/g, "_")}.jsonl`);
  writeFileSync(file, SESSION);
  return file;
}

const CASES_ENV = JSON.stringify(CASES.map((c) => c.typed));

function expectCompletions(run: EditorRun): void {
  const result = run.result as { results?: string[]; errors?: string[] } | undefined;
  expect(result?.errors, describeRun(run)).toEqual([]);
  expect(result?.results, describeRun(run)).toHaveLength(CASES.length);
  CASES.forEach((c, i) => {
    const line = result!.results![i]!;
    try {
      c.check(line);
    } catch (error) {
      throw new Error(`after typing ${JSON.stringify(c.typed)} and completing, the line is ${JSON.stringify(line)}: ${(error as Error).message}`);
    }
  });
}

describe.each(NVIMS)("Neovim %s: CTRL-X CTRL-O", (nvim) => {
  const version = /NVIM v(\d+)\.(\d+)/.exec(spawnSync(nvim, ["--version"], { encoding: "utf8", timeout: WAIT_MS }).stdout ?? "");
  const samples = ["pi-session.lua"];
  if (version && (Number(version[1]) > 0 || Number(version[2]) >= 11)) samples.push("pi-session-0.11.lua");
  it.each(samples)("with %s inserts valid JSON", async (sample) => {
    requireEditor(nvim, "neovim");
    const run = await runEditor(nvim, ["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", `luafile ${join(__dirname, "neovim", "complete.lua")}`], {
      env: {
        PI_NVIM_SAMPLE: join(SAMPLES, "neovim", sample),
        PI_NVIM_FILE: sessionCopy(`${nvim}-${sample}`),
        PI_NVIM_CASES: CASES_ENV,
        PI_NVIM_TIMEOUT_MS: String(STEP_MS),
      },
    });
    expectCompletions(run);
  });
});

describe("Vim + ALE: CTRL-X CTRL-O", () => {
  it("inserts valid JSON", async () => {
    requireEditor("vim", "vim");
    if (!existsSync("/usr/share/vim/vimfiles/pack/dist-bundle/opt/ale")) throw new Error("ALE is not installed: run `apt-get install -y vim-ale`.");
    const run = await runEditor("vim", ["-N", "-u", "NONE", "-i", "NONE", "-n", "-es", "-S", join(__dirname, "vim", "complete.vim")], {
      env: { PI_FILE: sessionCopy("vim"), PI_CASES: CASES_ENV, PI_TIMEOUT_MS: String(STEP_MS) },
    });
    expect((run.result as { omnifunc?: string } | undefined)?.omnifunc, describeRun(run)).toBe("PiSessionLspOmniFunc");
    expectCompletions(run);
  });
});

describe("Emacs + Eglot: C-M-i (completion-at-point)", () => {
  it("inserts valid JSON", async () => {
    requireEditor("emacs", "emacs-nox elpa-eglot");
    const run = await runEditor(
      "emacs",
      ["--batch", "-f", "package-activate-all", "-l", join(SAMPLES, "emacs", "pi-session.el"), "-l", join(REPO, "test", "clients", "emacs", "complete.el")],
      { env: { PI_FILE: sessionCopy("emacs"), PI_CASES: CASES_ENV, PI_STEP_TIMEOUT: String(STEP_MS / 1000), PI_DEADLINE: String(DEADLINE_MS / 1000) } },
    );
    expectCompletions(run);
  });
});
