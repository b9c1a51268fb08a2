/**
 * The doctor's report as text: what `/doctor` shows inside Pi and `pi-session-lsp doctor` prints,
 * the same words in both. Session text reaches it only through the diagnostics' messages, which
 * are already made fit to show; control characters are escaped here all the same, since the text
 * goes to a terminal.
 */

import { escapeForTerminal, groupDigits } from "../core/base/text";
import type { DoctorReport } from "./doctor";

const SEVERITY_WORD = ["", "error", "warning", "info", "hint"];

/** The report as lines of text, headed by `title` (the file's path or name). */
export function doctorText(report: DoctorReport, title: string): string {
  const out: string[] = [`Doctor: ${escapeForTerminal(title)}`, report.summary];
  for (const group of report.groups) {
    out.push("", `${group.title} (${groupDigits(group.total)}):`);
    for (const f of group.findings) out.push(`  line ${f.line}: ${SEVERITY_WORD[f.severity] ?? "error"} ${f.code}: ${escapeForTerminal(f.message)}`);
    const more = group.total - group.findings.length;
    if (more > 0) out.push(`  … and ${groupDigits(more)} more (pi-session-lsp check FILE lists them all)`);
    out.push(`  What to do: ${group.advice}`);
  }
  if (report.remedies.length > 0) {
    out.push("", "Remedies that are safe while Pi holds the file:");
    for (const [i, r] of report.remedies.entries()) out.push(`  ${i + 1}. ${escapeForTerminal(r.title)}: ${escapeForTerminal(r.description)}`);
  }
  return out.join("\n");
}
