/**
 * The doctor's report (`features/doctor.ts`): made from the diagnostics `check` prints, grouped,
 * each group with what to do, and the remedies that are safe while Pi holds the file, on sessions
 * the real Pi wrote or broke (test/parity/fixtures).
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ALL_CODES } from "../../server/src/core/base/codes";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { doctorReport, doctorText, type RepairedCopy } from "../../server/src/features/api/doctor";

const DIR = "/home/dev/.pi/agent/sessions/--home-dev-project--";
const PATH = `${DIR}/2026-03-02T10-00-00-001Z_s.jsonl`;
const NOW = new Date("2026-04-01T12:00:00.000Z");
const fixture = (name: string) => readFileSync(join(__dirname, "../parity/fixtures", `${name}.jsonl`), "utf8");
const docOf = (text: string) => new SessionDocument(`file://${PATH}`, "jsonl", 1, text);
const report = (text: string) => doctorReport(docOf(text), { path: PATH, now: NOW, random: () => 0.25 });

describe("the doctor's report", () => {
  it("calls a session the real Pi wrote healthy, with no group and no remedy", () => {
    const r = report(fixture("written-16-branches"));
    expect(r.verdict).toBe("healthy");
    expect(r.groups).toEqual([]);
    expect(r.remedies).toEqual([]);
    expect(doctorText(r, "s.jsonl")).toContain("Healthy");
  });

  it("says a line Pi skips and the parent it leaves dangling, with no copy where check --fix has no safe fix", () => {
    const r = report(fixture("fault-malformed-middle"));
    expect(r.verdict).toBe("faults");
    expect(r.groups.find((g) => g.id === "skipped")!.findings.map((f) => f.code)).toEqual(["malformed-json"]);
    expect(r.groups.find((g) => g.id === "tree")!.findings.map((f) => f.code)).toEqual(["dangling-parent"]);
    expect(r.remedies).toEqual([]);
    expect(doctorText(r, "s.jsonl")).toMatch(/Lines Pi skipped \(1\):\n {2}line 5: error malformed-json: /);
  });

  it("says a skipped line, with check --fix's repair as a new session that names the file", () => {
    const text = fixture("fault-null-line");
    const r = report(text);
    expect(r.verdict).toBe("faults");
    const skipped = r.groups.find((g) => g.id === "skipped")!;
    expect(skipped.findings.map((f) => f.code)).toContain("not-an-object");
    const copy = r.remedies.find((m): m is RepairedCopy => m.kind === "repaired-copy")!;
    expect(copy.fixed.get("not-an-object")).toBe(1);
    const header = JSON.parse(copy.text.split("\n")[0]!) as Record<string, unknown>;
    expect(header).toMatchObject({ type: "session", version: 3, parentSession: PATH, id: copy.sessionId });
    expect(header.id).not.toBe(JSON.parse(text.split("\n")[0]!).id);
    expect(copy.path.startsWith(`${DIR}/`)).toBe(true);
    // The copy has no malformed line left, and the report of the copy says so.
    expect(computeDiagnostics(docOf(copy.text)).map((d) => d.code)).not.toContain("not-an-object");
    expect(copy.left).toEqual([]);
    // Every line of the file but the header and the one fixed is in the copy, as it was.
    const kept = text
      .split("\n")
      .slice(1)
      .filter((l) => l !== "null");
    expect(copy.text.split("\n").slice(1)).toEqual(kept);
    expect(doctorText(r, "s.jsonl")).toContain("1. Fork a repaired copy and switch to it: ");
  });

  it("calls a session whose tool result lost its call bricked, and the copy drops it from the context", () => {
    const r = report(fixture("fault-tool-result-after-aborted-call"));
    expect(r.verdict).toBe("bricked");
    expect(r.groups[0]!.id).toBe("request");
    expect(r.groups[0]!.findings.map((f) => f.code)).toContain("orphaned-tool-result");
    const copy = r.remedies.find((m): m is RepairedCopy => m.kind === "repaired-copy")!;
    expect(copy.dropped).toBe(1);
    expect(copy.left).toEqual([]);
    const last = JSON.parse(copy.text.trimEnd().split("\n").at(-1)!) as Record<string, unknown>;
    expect(last).toMatchObject({ type: "context_edit", targetId: "a0000003", replacement: null });
    expect(computeDiagnostics(docOf(copy.text)).map((d) => d.code)).not.toContain("orphaned-tool-result");
    const shown = doctorText(r, "s.jsonl");
    expect(shown).toContain("Pi's next request from this session will fail");
    expect(shown).toContain("/compact");
  });

  it("mends duplicate ids in the repaired copy as check --fix does", () => {
    const r = report(fixture("fault-dup-id-no-cycle"));
    expect(r.groups.find((g) => g.id === "tree")!.findings.map((f) => f.code)).toContain("duplicate-id");
    const copy = r.remedies.find((m): m is RepairedCopy => m.kind === "repaired-copy")!;
    expect(copy.fixed.get("duplicate-id")).toBeGreaterThan(0);
    expect(copy.dropped).toBe(0);
    expect(computeDiagnostics(docOf(copy.text)).map((d) => d.code)).not.toContain("duplicate-id");
    expect(copy.description).toContain("fixes duplicate-id as check --fix does");
  });

  it("offers to resume from the newest message when a metadata leaf hides it", () => {
    const r = report(fixture("fault-metadata-leaf"));
    expect(r.groups.find((g) => g.id === "tree")!.findings.map((f) => f.code)).toContain("leaf-hides-messages");
    const resume = r.remedies.find((m) => m.kind === "resume-newest");
    expect(resume).toMatchObject({ kind: "resume-newest" });
    expect(doctorText(r, "s.jsonl")).toContain(`resume-from FILE ${resume!.kind === "resume-newest" ? resume!.entryId : ""}`);
  });

  it("counts what it does not show, past five findings a group", () => {
    const lines = fixture("written-16-conversation").split("\n");
    const broken = [lines[0], ...Array.from({ length: 9 }, (_, i) => `{"type":"message","id":"x${i}",`), ...lines.slice(1)].join("\n");
    const r = report(broken);
    const skipped = r.groups.find((g) => g.id === "skipped")!;
    expect(skipped.findings).toHaveLength(5);
    expect(skipped.total).toBe(9);
    expect(doctorText(r, "s.jsonl")).toContain("… and 4 more");
  });

  it("shows no raw control character a session holds, bidirectional ones included", () => {
    const lines = fixture("written-16-branches").split("\n");
    const broken = [lines[0], '{"type":"message","id":"\u202e\u001b[2J', ...lines.slice(1)].join("\n");
    const shown = doctorText(report(broken), "s\u202e.jsonl");
    expect(shown).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(shown).toContain("Doctor: s\\u202e.jsonl");
  });

  it("places every diagnostic code in a group", () => {
    // GROUP_OF is typed over every code; this says so at run time for a code added without a place.
    const r = report(fixture("fault-malformed-middle"));
    expect(r.groups.every((g) => ["open", "skipped", "tree", "request", "fields", "notes"].includes(g.id))).toBe(true);
    expect(ALL_CODES.length).toBeGreaterThan(40);
  });
});
