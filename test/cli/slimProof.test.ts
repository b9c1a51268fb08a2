/**
 * `slim`'s proof on its own: given a session and a changed copy, both halves (the streamed one and
 * the one over the whole document) pass a change to what Pi does not send, and fail any change to
 * what it sends: a message's text, an image, the model it resumes with, the leaf.
 */

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { compareDiagnostics } from "../../server/src/cli/slimDiagnostics";
import { fullProofFailure } from "../../server/src/cli/slimFullProof";
import { contextDigests, proofFailure } from "../../server/src/cli/slimProof";

let root: string;
let original: string;
let lines: string[];
let count = 0;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "pi-slim-proof-"));
  const { imageSession } = await import("../helpers/imageSessions.mjs");
  original = imageSession({ turns: 4, branchEvery: 2, compactAt: 3, imageBytes: 2000, outputBytes: 2000 });
  lines = original.split("\n");
});

function write(text: string): string {
  const file = join(root, `p${count++}.jsonl`);
  writeFileSync(file, text);
  return file;
}

/** Both halves of the proof for the original and `changed`: undefined when they pass. */
function prove(changed: string): { streamed: string | undefined; full: string | undefined } {
  const [a, b] = [write(original), write(changed)];
  return { streamed: proofFailure(contextDigests(a), contextDigests(b)), full: fullProofFailure(a, Buffer.byteLength(original), b) };
}

/** The text with line `k` (0-based) changed by `edit`. */
function withLine(k: number, edit: (line: string) => string): string {
  return lines.map((line, i) => (i === k ? edit(line) : line)).join("\n");
}

const lineOf = (pattern: string) => lines.findIndex((l) => l.includes(pattern));

describe("slim's proof", () => {
  it("passes the file itself", () => {
    expect(prove(original)).toEqual({ streamed: undefined, full: undefined });
  });

  it("passes a change to an image on a branch Pi does not resume, and one behind the compaction", () => {
    const side = lineOf("Look at screenshot 120.");
    const behind = lineOf("Look at screenshot 10.");
    expect(side).toBeGreaterThan(0);
    const changed = withLine(side, (l) => l.replace(/"data":"[^"]+"/, '"data":"AAAA"'));
    expect(prove(changed)).toEqual({ streamed: undefined, full: undefined });
    expect(prove(withLine(behind, (l) => l.replace(/"data":"[^"]+"/, '"data":"AAAA"')))).toEqual({ streamed: undefined, full: undefined });
  });

  it("fails a change to a message Pi sends, to an image it sends, and to the model it resumes with", () => {
    const last = lines.length - 2;
    for (const changed of [
      withLine(last, (l) => l.replace("Thanks.", "Thanks!")),
      withLine(lineOf("Look at screenshot 40."), (l) => l.replace(/"data":"[^"]+"/, '"data":"AAAA"')),
      withLine(lineOf("Screenshot 40 shows"), (l) => l.replace('"model":"claude-sonnet-4-5"', '"model":"claude-opus-4-1"')),
    ]) {
      const { streamed, full } = prove(changed);
      expect(streamed).toMatch(/differs/);
      expect(full).toMatch(/differs/);
    }
  });

  it("fails when the slimmed file resumes from another leaf", () => {
    const extra = `${original}${lines[lineOf("Look at screenshot 120.")]}\n`;
    const { streamed, full } = prove(extra);
    expect(streamed).toMatch(/differs|another path/);
    expect(full).toMatch(/differs/);
  });
});

describe("slim's comparison of diagnostics", () => {
  it("allows what is gone from a changed line, refuses what is new and what is gone elsewhere", () => {
    const before = new Map([
      ["image-too-large:4", 1],
      ["dangling-parent:7", 1],
      ["no-final-newline:9", 1],
    ]);
    expect(
      compareDiagnostics(
        before,
        new Map([
          ["dangling-parent:7", 1],
          ["no-final-newline:9", 1],
        ]),
        new Set([4]),
      ),
    ).toEqual({ added: [], lost: [], removed: 1 });
    expect(
      compareDiagnostics(
        before,
        new Map([
          ["no-final-newline:9", 1],
          ["image-too-large:4", 1],
          ["blank-line:2", 1],
        ]),
        new Set([4]),
      ),
    ).toEqual({
      added: ["blank-line on line 3"],
      lost: ["dangling-parent on line 8"],
      removed: 0,
    });
  });
});
