/**
 * Fixture-and-snapshot files in rust-analyzer's style (`check(r#"…$0…"#, expect![[…]])`), one case
 * per file under test/fixtures/<feature>/:
 *
 *     # Hover on a parentId: the entry it names, with a preview.
 *     {"type":"session",...}
 *     {"type":"message","id":"a0000004","parentId":"a0$0000003",...}
 *     #### expected
 *     hover on "a0000003"
 *     **parentId** `a0000003` → ...
 *
 * - The session comes first. `$0` marks the cursor (hover, completion); it is removed from the
 *   text. Lines that start with `# ` are comments (say what the case is about), and the directives
 *   of the diagnostics fixtures shape the text: `#! crlf`, `#! bom`, `#! no-final-newline`,
 *   `#! raw <json string>` (a line that must hold a control character or a lone `\r`). A feature may
 *   take its own directive (`#! max-symbols 5` for the outline). Every session line starts with
 *   JSON, so a line starting with `#` is never one.
 * - Below the `#### expected` line is the feature's output, rendered as text by the test.
 * - `UPDATE_EXPECT=1 npx vitest run test/features/snapshots.test.ts` rewrites every expected part
 *   with what the server says now (and appends one to a file that has none yet), so a new edge case
 *   costs one file: write the session, run with the switch, read the result, commit it.
 */

import { readFileSync, writeFileSync } from "node:fs";
import type { Position } from "vscode-languageserver";
import { CURSOR } from "./cursor";

export const SEPARATOR = "#### expected";

export const UPDATE = process.env.UPDATE_EXPECT === "1";

export interface SnapshotFixture {
  /** The session text, directives applied, cursor removed. */
  text: string;
  /** Where `$0` was, as an LSP position (UTF-16 columns; after a BOM, line 0 counts it). */
  cursor: Position | undefined;
  /** Feature directives (`#! name value`) other than the text-shaping ones, by name. */
  options: Map<string, string>;
  /** The expected output, or undefined when the file has no separator yet. */
  expected: string | undefined;
}

export function parseSnapshot(source: string): SnapshotFixture {
  const at = source.indexOf(`\n${SEPARATOR}\n`);
  const head = at >= 0 ? source.slice(0, at + 1) : source;
  const expected = at >= 0 ? source.slice(at + SEPARATOR.length + 2).replace(/\n$/, "") : undefined;
  let crlf = false;
  let bom = false;
  let finalNewline = true;
  const options = new Map<string, string>();
  const lines: string[] = [];
  for (const raw of head.replace(/\n$/, "").split("\n")) {
    if (raw.startsWith("#! ")) {
      const [name, ...rest] = raw.slice(3).trim().split(" ");
      const value = rest.join(" ");
      if (name === "crlf") crlf = true;
      else if (name === "bom") bom = true;
      else if (name === "no-final-newline") finalNewline = false;
      else if (name === "raw") lines.push(JSON.parse(value) as string);
      else options.set(name!, value);
      continue;
    }
    if (raw === "#" || raw.startsWith("# ")) continue;
    if (raw.startsWith("#")) throw new Error(`a line starting with "#" is neither a comment ("# ") nor a directive ("#! "): ${raw}`);
    lines.push(raw);
  }
  const eol = crlf ? "\r\n" : "\n";
  let text = lines.join(eol);
  if (finalNewline && lines.length > 0) text += eol;
  if (bom) text = `\uFEFF${text}`;
  const index = text.indexOf(CURSOR);
  let cursor: Position | undefined;
  if (index >= 0) {
    if (text.indexOf(CURSOR, index + 1) >= 0) throw new Error("more than one $0 cursor");
    const before = text.slice(0, index);
    cursor = { line: before.split("\n").length - 1, character: index - (before.lastIndexOf("\n") + 1) };
    text = before + text.slice(index + CURSOR.length);
  }
  return { text, cursor, options, expected };
}

/** Writes `actual` as the expected part of the fixture file (replacing the old one, if any). */
export function updateSnapshot(file: string, source: string, actual: string): string {
  const at = source.indexOf(`\n${SEPARATOR}\n`);
  const head = at >= 0 ? source.slice(0, at + 1) : source.endsWith("\n") ? source : `${source}\n`;
  const updated = `${head}${SEPARATOR}\n${actual}\n`;
  writeFileSync(file, updated);
  return updated;
}

/** Reads a fixture file, for a test that checks it or (under UPDATE_EXPECT) rewrites it. */
export function readSnapshot(file: string): { source: string; fixture: SnapshotFixture } {
  const source = readFileSync(file, "utf8");
  return { source, fixture: parseSnapshot(source) };
}
