/**
 * The exported Markdown around the messages, which `renderMessageMarkdown` (the context's own
 * Markdown, `contextMarkdown.ts`) renders: a title, the branches, one line per entry that gives no
 * message, the findings, and what was left out. Session text goes through `markdown.ts`.
 */

import type { Diagnostic } from "vscode-languageserver";
import type { Entry } from "../../core/session/entry";
import { plural, singleLine } from "../../core/base/text";
import { entryTitle } from "../entryTitle";
import { escapeMarkdown, inlineCode } from "../markdown";
import type { ExportPlan } from "./plan";
import { MAX_FINDINGS_PER_ENTRY, messageText, NOTE_CODE_POINTS } from "./htmlPage";

const NAME_CODE_POINTS = 80;
/** Code points of a finding's message. */
const FINDING_CODE_POINTS = 400;
const SEVERITY = ["", "error", "warning", "info", "hint"];

function idOf(entry: Entry): string {
  return entry.id !== undefined ? inlineCode(entry.id, NAME_CODE_POINTS) : `line ${entry.line + 1}`;
}

export function markdownHead(info: { sessionName: string | undefined; sessionId: string | undefined }, plan: ExportPlan): string {
  const name = info.sessionName ? singleLine(info.sessionName, NAME_CODE_POINTS) : undefined;
  const id = info.sessionId ? singleLine(info.sessionId, NAME_CODE_POINTS) : undefined;
  const out = [name ? `# Session “${escapeMarkdown(name)}”` : id ? `# Session ${escapeMarkdown(id)}` : "# Session", ""];
  const about: string[] = [];
  if (name && id) about.push(`session ${inlineCode(id, NAME_CODE_POINTS)}`);
  const n = plan.entries.length;
  about.push(plan.all ? `the whole tree, ${plural(n, "entry", "entries")} in file order` : `one branch, ${plural(n, "entry", "entries")} root first`);
  out.push(about.join(" · "), "");
  if (plan.all) {
    out.push("## Branches", "");
    for (const b of plan.branches) {
      const length = b.length < 0 ? "runs into a parent cycle" : `${plural(b.length, "entry", "entries")}`;
      out.push(`- ${idOf(b.leaf)} (line ${b.leaf.line + 1}, ${length}${b.resumed ? ", Pi resumes here" : ""}): ${escapeMarkdown(entryTitle(b.leaf))}`);
    }
    if (plan.branchesCut > 0) out.push(`- … ${plural(plan.branchesCut, "more branch", "more branches")}`);
    out.push("");
  }
  return `${out.join("\n")}\n`;
}

function findingLines(list: readonly Diagnostic[], prefix: (i: number) => string = () => ""): string[] {
  const lines = list.slice(0, MAX_FINDINGS_PER_ENTRY).map((d, i) => {
    const code = typeof d.code === "string" ? ` ${inlineCode(d.code)}` : "";
    return `- **${SEVERITY[d.severity ?? 1] ?? "error"}**${code}: ${prefix(i)}${escapeMarkdown(singleLine(messageText(d), FINDING_CODE_POINTS))}`;
  });
  const more = list.length - MAX_FINDINGS_PER_ENTRY;
  if (more > 0) lines.push(`- … ${plural(more, "more finding")}`);
  return lines;
}

export function markdownFileFindings(findings: readonly { line: number; d: Diagnostic }[]): string {
  if (findings.length === 0) return "";
  return `## Findings on other lines\n\n${findingLines(
    findings.map((f) => f.d),
    (i) => `line ${findings[i]!.line + 1}: `,
  ).join("\n")}\n`;
}

/**
 * One entry: its messages as the context's Markdown renders them (given), or a line naming the
 * entry, after a line that places it (in the whole tree, its parent) and its findings.
 */
export function markdownEntry(
  entry: Entry,
  parent: Entry | undefined,
  body: { messages: string[]; notSent: boolean; notes: readonly string[]; findings: readonly Diagnostic[]; all: boolean },
): string {
  const notes: string[] = [];
  if (body.all) notes.push(parent ? `parent ${idOf(parent)}` : "a root");
  if (body.notSent) notes.push("not sent to the model: left behind by the last compaction");
  for (const note of body.notes) notes.push(escapeMarkdown(singleLine(note, NOTE_CODE_POINTS)));
  const out: string[] = [];
  if (body.messages.length > 0) out.push(...body.messages);
  else out.push("", `*line ${entry.line + 1} · ${idOf(entry)} · ${escapeMarkdown(entryTitle(entry))}*`);
  if (notes.length > 0 || body.findings.length > 0) {
    out.push("");
    if (notes.length > 0) out.push(`*${notes.join(" · ")}*`);
    if (body.findings.length > 0) {
      if (notes.length > 0) out.push("");
      out.push(...findingLines(body.findings));
    }
  }
  return `${out.join("\n")}\n`;
}

export function markdownTail(note: string | undefined): string {
  return note ? `\n---\n\n*${escapeMarkdown(note)}*\n` : "";
}
