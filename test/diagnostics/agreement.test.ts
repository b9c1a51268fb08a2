/**
 * `check` and the editor agree: for every fixture in test/fixtures/diagnostics, the diagnostics
 * `check --format json` prints for the file equal those the server publishes for the same text
 * (codes, ranges, severities, messages, related locations), with the facts each gathers itself
 * from the file system. A fixture's `#! facts` are made true on disk first: a UTF-16 fixture is
 * written in that encoding, and a fixture in Pi's folders is written into a project folder of a
 * temporary Pi agent folder (`PI_CODING_AGENT_DIR`), so the editor-only and CLI-only codes of
 * before (`cwd-missing`, `folder-mismatch`, `utf16`) are compared too. Both run in this process.
 */

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Diagnostic } from "vscode-languageserver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCheck } from "../../server/src/cli/check";
import { PRESENTATION_CODES } from "../../server/src/core/base/codes";
import type { SessionFacts } from "../../server/src/core/disk/facts";
import { actualOf, describeDiagnostic, type Fixture, parseFixture } from "../helpers/fixture";
import { type LspTestClient, PULL_CAPABILITIES, startInProcess } from "../helpers/lspClient";

const dir = join(__dirname, "../fixtures/diagnostics");
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".txt"))
  .sort();

/** The file's bytes in the encoding its facts name (UTF-8 without them). */
function bytesOf(text: string, facts: SessionFacts): Buffer {
  const encoding = facts.encoding?.encoding ?? "utf-8";
  if (encoding === "utf-8") return Buffer.from(text, "utf8");
  const le = Buffer.from(`${facts.encoding?.bom ? "\uFEFF" : ""}${text}`, "utf16le");
  return encoding === "utf-16le" ? le : le.swap16();
}

/** Where the fixture lies: in a project folder of Pi's when its facts say so, else outside Pi's folders. */
function placeOf(name: string, fixture: Fixture, work: string, agent: string): string {
  const folder = fixture.facts.folder;
  const at = folder?.inPiFolder ? join(agent, "sessions", folder.folderName) : join(work, "elsewhere");
  mkdirSync(at, { recursive: true });
  return join(at, name.replace(/\.txt$/, ".jsonl"));
}

function checkJson(path: string): Diagnostic[] {
  let out = "";
  const status = runCheck(["--format", "json", "--threads", "1", path], { out: (t) => (out += t), err: () => undefined });
  if (typeof status !== "number") throw new Error("check ran on worker threads");
  return (JSON.parse(out) as { diagnostics: Diagnostic[] }).diagnostics;
}

/** What is compared: everything a diagnostic says, in the order it is given. */
function comparable(diagnostics: readonly Diagnostic[]) {
  return diagnostics
    .filter((d) => !Object.hasOwn(PRESENTATION_CODES, String(d.code)))
    .map((d) => ({ code: d.code, range: d.range, severity: d.severity, message: d.message, related: d.relatedInformation ?? [] }));
}

describe("check and the editor", () => {
  let client: LspTestClient;
  let work: string;
  let agent: string;
  const saved = { agent: process.env.PI_CODING_AGENT_DIR, sessions: process.env.PI_CODING_AGENT_SESSION_DIR };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "pi-agreement-"));
    agent = join(work, "agent");
    // Both find Pi's folders from the environment, as Pi does.
    process.env.PI_CODING_AGENT_DIR = agent;
    delete process.env.PI_CODING_AGENT_SESSION_DIR;
    client = startInProcess();
    await client.initialize(PULL_CAPABILITIES);
  });

  afterAll(async () => {
    // An in-process server never exits (`startInProcess`): waiting for its exit after `shutdown` took
    // the whole wait limit, five minutes of every run of this file.
    client?.dispose();
    if (saved.agent === undefined) delete process.env.PI_CODING_AGENT_DIR;
    else process.env.PI_CODING_AGENT_DIR = saved.agent;
    if (saved.sessions !== undefined) process.env.PI_CODING_AGENT_SESSION_DIR = saved.sessions;
    rmSync(work, { recursive: true, force: true });
  });

  it("are compared on every fixture, the three facts' codes included", () => {
    const codes = files.flatMap((f) => parseFixture(readFileSync(join(dir, f), "utf8")).expected.map((e) => e.code));
    for (const code of ["utf16", "cwd-missing", "folder-mismatch"]) expect(codes).toContain(code);
  });

  for (const file of files) {
    it(file, async () => {
      const fixture = parseFixture(readFileSync(join(dir, file), "utf8"));
      const path = placeOf(file, fixture, work, agent);
      writeFileSync(path, bytesOf(fixture.text, fixture.facts));
      const fromCheck = checkJson(path);
      const uri = pathToFileURL(path).href;
      await client.open(uri, fixture.text);
      const fromEditor = await client.pullItems(uri);
      await client.close(uri);
      expect(comparable(fromEditor)).toEqual(comparable(fromCheck));
      // The facts were made true on disk: both report what the fixture annotates.
      expect(actualOf(fromCheck).map(describeDiagnostic).sort()).toEqual(fixture.expected.map(describeDiagnostic).sort());
    });
  }
});
