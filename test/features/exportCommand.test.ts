/**
 * "Export as Markdown" in the editor: `piSession.exportMarkdown [uri, entryId | null, {all?}]`
 * answers the Markdown `export FILE --format markdown` prints, for the resumed branch, another
 * entry's branch or the whole tree, bounded, with what the session holds escaped.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runExport } from "../../server/src/cli/export";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeMarkdownExport } from "../../server/src/features/exportCommand";
import { assistant, HEADER, session, user } from "../helpers/piLines";

const FIXTURE = join(__dirname, "../parity/fixtures/written-16-branches.jsonl");
const uri = "file:///work/sessions/fixture.jsonl";
const doc = (text: string) => new SessionDocument(uri, "jsonl", 1, text);

async function cli(...args: string[]): Promise<string> {
  let out = "";
  let err = "";
  const status = await runExport([...args, "--format", "markdown"], { out: (t) => (out += t), err: (t) => (err += t), cwd: __dirname });
  expect(status, err).toBe(0);
  return out;
}

describe("the Markdown export command", () => {
  it("answers what export prints, for the resumed branch, a named entry's branch and the whole tree", async () => {
    const d = doc(readFileSync(FIXTURE, "utf8"));
    for (const [args, cliArgs] of [
      [[uri, null], [FIXTURE]],
      [
        [uri, "2ee82633"],
        [FIXTURE, "--leaf", "2ee82633"],
      ],
      [
        [uri, null, { all: true }],
        [FIXTURE, "--all"],
      ],
    ] as const) {
      const answer = computeMarkdownExport(d, args);
      if (!answer.ok) throw new Error(answer.message);
      expect(answer.result.markdown).toBe(await cli(...cliArgs));
      expect(answer.result.cut).toBe(0);
    }
  });

  it("counts the entries past its bound instead of showing them", () => {
    const d = doc(readFileSync(FIXTURE, "utf8"));
    const answer = computeMarkdownExport(d, [uri, null, { all: true }], 1);
    if (!answer.ok) throw new Error(answer.message);
    expect(answer.result.cut).toBeGreaterThan(0);
  });

  it("escapes control characters but keeps the layout", () => {
    const d = doc(session(HEADER, user("u1", null, "line one\n\tline two \u001b[2J\u202eevil"), assistant("a1", "u1", "ok")));
    const answer = computeMarkdownExport(d, [uri, null]);
    if (!answer.ok) throw new Error(answer.message);
    expect(answer.result.markdown).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(answer.result.markdown).toContain("\\x1b[2J");
    expect(answer.result.markdown).toContain("\tline two");
  });

  it("refuses an unknown entry and an id of the wrong type", () => {
    const d = doc(readFileSync(FIXTURE, "utf8"));
    expect(computeMarkdownExport(d, [uri, "nope"])).toEqual({ ok: false, message: 'no entry has the id "nope"' });
    expect(computeMarkdownExport(d, [uri, 5]).ok).toBe(false);
  });
});
