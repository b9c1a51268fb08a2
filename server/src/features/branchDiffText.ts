/**
 * `diff`'s text: the comparison of two branches (`branchDiff.ts`) as people read it, printed by the
 * CLI and shown by the editor's "compare with the active branch" alike.
 */

import { clip, groupDigits, plural } from "../core/base/text";
import { formatTokens } from "../core/pi/tokens";
import type { BranchDiff, BranchSide } from "./branchDiff";

const money = (n: number) => `$${n.toFixed(4)}`;
const shared = (n: number) => `${plural(n, "context message")} ${n === 1 ? "is" : "are"} shared`;
const messages = (n: number, tokens: number) => `${plural(n, "message")}, ~${formatTokens(tokens)} tokens`;

function entryName(id: string | undefined, line: number): string {
  return `${id === undefined ? "(no id)" : JSON.stringify(clip(id))} (line ${line + 1})`;
}

function columns(label: string, a: string, b: string): string {
  return `  ${label.padEnd(18)}${a.padEnd(30)}${b}`;
}

function sideRows(a: BranchSide, b: BranchSide): string[] {
  const list = (s: BranchSide, pick: (s: BranchSide) => string[]) => (pick(s).length === 0 ? "-" : pick(s).join(", "));
  const tools = (s: BranchSide) => s.tools.map((t) => `${t.name} ${t.calls}`);
  return [
    columns("", "A", "B"),
    columns("context", messages(a.contextMessages, a.contextTokens), messages(b.contextMessages, b.contextTokens)),
    columns("only here", messages(a.onlyCount, a.onlyTokens), messages(b.onlyCount, b.onlyTokens)),
    columns("branch entries", groupDigits(a.branchEntries), groupDigits(b.branchEntries)),
    columns(
      "branch cost",
      `${money(a.cost)} (${plural(a.assistantMessages, "reply", "replies")})`,
      `${money(b.cost)} (${plural(b.assistantMessages, "reply", "replies")})`,
    ),
    `  tools A: ${list(a, tools)}`,
    `  tools B: ${list(b, tools)}`,
    `  files read A: ${list(a, (s) => s.filesRead)}`,
    `  files read B: ${list(b, (s) => s.filesRead)}`,
    `  files changed A: ${list(a, (s) => s.filesChanged)}`,
    `  files changed B: ${list(b, (s) => s.filesChanged)}`,
  ];
}

function onlyList(name: string, s: BranchSide): string[] {
  const rows = [`Only in ${name} (${groupDigits(s.onlyCount)}):`];
  for (const m of s.only) rows.push(`  line ${String(m.line + 1).padEnd(6)} ${m.role.padEnd(18)} ~${formatTokens(m.tokens).padEnd(6)} ${m.preview}`);
  if (s.onlyCount > s.only.length) rows.push(`  … and ${groupDigits(s.onlyCount - s.only.length)} more`);
  return rows;
}

/**
 * The comparison as text for people. `escapeLine` escapes one line of session text (the ancestor's
 * type, which is not cut to one line as the previews are); the caller escapes the whole text too,
 * as it shows it (the terminal's escaping, or the editor's).
 */
export function renderDiff(d: BranchDiff, bIsLeaf: boolean, escapeLine: (text: string) => string): string {
  const lines = [
    `A: ${entryName(d.a.leaf.id, d.a.leaf.line)}`,
    `B: ${entryName(d.b.leaf.id, d.b.leaf.line)}${bIsLeaf ? " (the last entry, where Pi resumes)" : ""}`,
  ];
  lines.push(
    d.ancestor
      ? `The paths part after ${entryName(d.ancestor.id, d.ancestor.line)}, a ${escapeLine(d.ancestor.type ?? "(no type)")} entry; ${shared(d.shared)}.`
      : `The paths share no entry; ${shared(d.shared)}.`,
  );
  return `${[...lines, "", ...sideRows(d.a, d.b), "", ...onlyList("A", d.a), "", ...onlyList("B", d.b)].join("\n")}\n`;
}
