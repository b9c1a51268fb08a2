/**
 * "Compare with the active branch": a lens on each branch tip but the leaf Pi resumes, running
 * `piSession.compareBranches [uri, entryId]`, whose answer is the text `diff FILE ENTRY` prints
 * (on the branches the real Pi 1.6 wrote, and on hostile text, escaped).
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runDiff } from "../../server/src/cli/diff";
import { SessionDocument } from "../../server/src/core/session/document";
import { COMPARE_BRANCHES_COMMAND, computeBranchComparison } from "../../server/src/features/branchCompare";
import { COMPARE_TITLE, computeCodeLenses, type LensData, resolveCodeLens } from "../../server/src/features/codeLens";
import { assistant, HEADER, session, user } from "../helpers/piLines";

const FIXTURE = join(__dirname, "../parity/fixtures/written-16-branches.jsonl");
const uri = "file:///work/sessions/fixture.jsonl";
const doc = (text: string) => new SessionDocument(uri, "jsonl", 1, text);

describe("the compare lens", () => {
  it("stands on each branch tip but the leaf Pi resumes, and runs the command with the uri and the tip", () => {
    const d = doc(readFileSync(FIXTURE, "utf8"));
    const a = d.analysis;
    const compare = computeCodeLenses(d).filter((l) => (l.data as LensData).kind === "compare");
    const tips = a.entries.filter((e) => e !== a.leaf && e.id !== undefined && !a.entries.some((c) => a.parent[c.index] === e));
    expect(compare.map((l) => (l.data as LensData).entryId)).toEqual(tips.map((e) => e.id));
    expect(compare.length).toBeGreaterThan(0);
    for (const lens of compare) {
      const { command } = resolveCodeLens(d, lens);
      expect(command).toEqual({ title: COMPARE_TITLE, command: COMPARE_BRANCHES_COMMAND, arguments: [uri, (lens.data as LensData).entryId] });
    }
  });

  it("is not on a session without branches", () => {
    const d = doc(session(HEADER, user("u1", null, "hi"), assistant("a1", "u1", "hello")));
    expect(computeCodeLenses(d).some((l) => (l.data as LensData).kind === "compare")).toBe(false);
  });
});

describe("the comparison", () => {
  it("is the text diff prints for the tip and the leaf Pi resumes", () => {
    const d = doc(readFileSync(FIXTURE, "utf8"));
    const answer = computeBranchComparison(d, [uri, "2ee82633"]);
    if (!answer.ok) throw new Error(answer.message);
    let out = "";
    const status = runDiff([FIXTURE, "2ee82633"], { out: (t) => (out += t), err: () => undefined, cwd: __dirname });
    expect(status).toBe(0);
    expect(answer.result.text).toBe(out);
    expect(answer.result.text).toContain('A: "2ee82633"');
    expect(answer.result.text).toContain("(the last entry, where Pi resumes)");
    expect(answer.result.title).toBe("compare 2ee82633 with 01597670");
  });

  it("compares with another entry when one is named", () => {
    const d = doc(readFileSync(FIXTURE, "utf8"));
    const answer = computeBranchComparison(d, [uri, "2ee82633", "70035268"]);
    if (!answer.ok) throw new Error(answer.message);
    expect(answer.result.text).toContain('B: "70035268"');
    expect(answer.result.text).not.toContain("where Pi resumes");
  });

  it("escapes what the session holds", () => {
    const d = doc(session(HEADER, user("u1", null, "start"), user("tip", "u1", "\u001b[2J\u202eevil\u0007"), assistant("last", "u1", "done")));
    const answer = computeBranchComparison(d, [uri, "tip"]);
    if (!answer.ok) throw new Error(answer.message);
    expect(answer.result.text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(answer.result.text).toContain("evil");
  });

  it("refuses an unknown entry and arguments of the wrong type", () => {
    const d = doc(readFileSync(FIXTURE, "utf8"));
    expect(computeBranchComparison(d, [uri, "nope"])).toEqual({ ok: false, message: 'no entry has the id "nope"' });
    expect(computeBranchComparison(d, [uri, 5]).ok).toBe(false);
    expect(computeBranchComparison(d, [uri, "2ee82633", 5]).ok).toBe(false);
  });
});
