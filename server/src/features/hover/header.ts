/** The hover on the header: the session's name, directory, version, counts and parent session; and what Pi does with a bad header. */

import type { SessionAnalysis } from "../../core/session/analysis";
import { isoTime } from "../../core/line/isoTime";
import { perStructure } from "../../core/session/semantics/memo";
import { sessionName } from "../../core/session/semantics/sessionName";
import { versionRules } from "../../core/session/semantics/version";
import { groupDigits } from "../../core/base/text";
import { inlineCode as code } from "../markdown";
import { timeInWords } from "./time";

/** Entries without children: the branch tips. */
const leafCount = perStructure((a): number => {
  const hasChild = new Uint8Array(a.entries.length);
  for (let i = 0; i < a.entries.length; i++) {
    const p = a.parent[i];
    if (p) hasChild[p.index] = 1;
  }
  let leaves = 0;
  for (let i = 0; i < hasChild.length; i++) if (!hasChild[i]) leaves++;
  return leaves;
});

export function headerHover(a: SessionAnalysis, line: number): string {
  const out: string[] = [];
  if (line !== a.headerLine)
    out.push(`Pi ignores this line: ${a.headerLine === undefined ? "the file has no header" : `the header is line ${a.headerLine + 1}`}.`);
  const h = a.header;
  const name = sessionName(a);
  const title = name.name !== undefined ? `**Session** ${code(name.name)}` : "**Session**";
  out.unshift(h && typeof h.id === "string" ? `${title} · id ${code(h.id)}` : title);
  const problem = headerProblem(a);
  if (problem) out.push(problem);
  const facts: string[] = [];
  if (name.entry) {
    const where = `\`session_info\` on line ${name.entry.line + 1}`;
    facts.push(
      name.name !== undefined
        ? `- **Name:** ${code(name.name)} (${where})`
        : name.throws
          ? `- **Name:** the ${where} has a name that is not a string: Pi throws reading it (its session list and footer fail)`
          : `- **Name:** none (cleared by the ${where})`,
    );
  } else {
    facts.push("- **Name:** none (no `session_info` entry)");
  }
  if (h) {
    facts.push(`- **Working directory:** ${typeof h.cwd === "string" ? code(h.cwd) : "not a string: Pi uses its own working directory"}`);
    facts.push(`- **Version:** ${versionFacts(a)}`);
    if (typeof h.timestamp === "string") {
      const t = isoTime(h.timestamp);
      facts.push(`- **Created:** ${t === undefined ? `${code(h.timestamp)} (not a valid time)` : timeInWords(t)}`);
    }
  }
  const leaves = leafCount(a);
  facts.push(
    `- **Entries:** ${groupDigits(a.entries.length)} · ${groupDigits(leaves)} ${leaves === 1 ? "branch" : "branches"} (leaves) · ${groupDigits(a.roots.length)} ${a.roots.length === 1 ? "root" : "roots"}`,
  );
  if (a.leaf)
    facts.push(
      `- **Resumes at:** line ${a.leaf.line + 1}${a.activePath.length > 0 ? `, depth ${groupDigits(a.depth[a.leaf.index]!)}` : " (its path runs into a parent cycle: Pi 0.74 hangs, Pi 1.x fails with a RangeError)"}`,
    );
  else if (a.nullLeaf) facts.push(`- **Resumes at:** no entry: the last entry (line ${a.nullLeaf.line + 1}) has the id null`);
  if (h && h.parentSession !== undefined)
    facts.push(`- **Parent session:** ${typeof h.parentSession === "string" ? code(h.parentSession, 120) : "not a string"}`);
  out.push(facts.join("\n"));
  return out.join("\n\n");
}

function versionFacts(a: SessionAnalysis): string {
  const v = versionRules(a);
  if (!v.present) return "none, so v1: Pi migrates the file on open and rewrites it with new random ids";
  if (v.throws)
    return v.error === "RangeError"
      ? "an array nested too deep to compare: Pi throws a RangeError opening the file"
      : "a value Pi cannot compare: it throws a TypeError opening the file";
  if (v.wellFormed && !v.current) return `${String(v.raw)}: Pi migrates the file on open and rewrites it${v.v1 ? " with new random ids" : ""}`;
  if (v.wellFormed) return `${String(v.raw)} (current)`;
  const shown = code(
    typeof v.raw === "string" ? JSON.stringify(v.raw) : v.raw === null || typeof v.raw !== "object" ? String(v.raw) : Array.isArray(v.raw) ? "[…]" : "{…}",
  );
  // Pi compares with `>=` only, so "3" and 4 count as current.
  if (v.current) return `${shown}: Pi compares it with \`>= 3\` and treats the file as current`;
  return `${shown}: not a version Pi recognises; it ${v.v1 ? "migrates the file as v1" : v.v2 ? "migrates the file as v2" : "applies no migration step"} and rewrites it`;
}

/** What Pi does with a file whose header is missing or invalid, or undefined when it is fine. */
export function headerProblem(a: SessionAnalysis): string | undefined {
  const where = a.headerLine === undefined ? "" : ` (line ${a.headerLine + 1})`;
  if (a.headerState === "missing")
    return `The first parseable line${where} is not a session header: Pi 0.73/0.74 overwrites the file with a fresh header, and Pi 1.x refuses to open it.`;
  if (a.headerState === "invalid")
    return `The header${where} has no string \`id\`: Pi 0.73/0.74 overwrites the file with a fresh header, and Pi 1.x refuses to open it.`;
  return undefined;
}
