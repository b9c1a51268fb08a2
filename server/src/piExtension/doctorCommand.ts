/**
 * `/doctor` inside Pi: the report on the file Pi holds, then the remedies that are safe while Pi
 * holds it, each through Pi's own session API. Resuming from the newest message is Pi's
 * `navigateTree` and a marker appended with `appendEntry`; the repaired copy is written as a new
 * file (created exclusively, never over one) and Pi switches to it with `switchSession`. The file Pi
 * held is never written by this module.
 *
 * Where Pi has a UI (the terminal, RPC mode) the report is a notification and the remedies a
 * choice; in print and JSON mode it is text on stderr, and no remedy is applied without a person
 * to choose it.
 */

import { RESUME_CUSTOM_TYPE } from "../core/edits/resumeFrom";
import { type DoctorRemedy, doctorText } from "../features/api/doctor";
import { diagnose, MAX_DOCTOR_BYTES } from "./doctorSession";
import type { PiCommandContext, PiExtensionApi } from "./piApi";
import { say } from "./say";
import { escapeForTerminal } from "../core/base/text";
import { writeNewFile } from "../io/newFile";

const CLOSE = "Close: leave the session as it is";

export async function runDoctorCommand(pi: PiExtensionApi, ctx: PiCommandContext): Promise<void> {
  const file = ctx.sessionManager.getSessionFile();
  if (file === undefined) {
    say(ctx, "pi-session-lsp /doctor: this session is not saved to a file (--no-session), so there is nothing on disk to check.");
    return;
  }
  const found = diagnose(file, MAX_DOCTOR_BYTES);
  if (!found.ok) {
    say(ctx, `pi-session-lsp /doctor: ${found.why}.`, "warning");
    return;
  }
  const { report } = found;
  const text = doctorText(report, file);
  if (!ctx.hasUI) {
    // Print and JSON mode: Pi keeps stdout for the answer or the event stream, and sends what an
    // extension writes there to stderr anyway (its output guard); the report goes there directly.
    process.stderr.write(`${escapeForTerminal(text, true)}\n`);
    return;
  }
  say(ctx, text, report.verdict === "healthy" || report.verdict === "notes" ? "info" : "warning");
  if (report.remedies.length === 0) return;
  const titles = report.remedies.map((r, i) => `${i + 1}. ${r.title}`);
  const choice = await ctx.ui.select("pi-session-lsp doctor: apply a remedy?", [...titles, CLOSE]);
  const remedy = report.remedies[titles.indexOf(choice ?? "")];
  if (remedy) await apply(pi, ctx, remedy, file);
}

async function apply(pi: PiExtensionApi, ctx: PiCommandContext, remedy: DoctorRemedy, file: string): Promise<void> {
  await ctx.waitForIdle();
  if (remedy.kind === "resume-newest") {
    const moved = await ctx.navigateTree(remedy.entryId, { summarize: false });
    if (moved?.cancelled) {
      say(ctx, "pi-session-lsp /doctor: the move was cancelled; the session is as it was.");
      return;
    }
    // The marker "resume from here" appends: Pi resumes from this entry next time too.
    if (ctx.sessionManager.getLeafId() === remedy.entryId) pi.appendEntry(RESUME_CUSTOM_TYPE);
    say(ctx, `pi-session-lsp /doctor: Pi now continues from line ${remedy.line} (${remedy.entryId}), the newest message.`);
    return;
  }
  writeNewFile(remedy.path, remedy.text);
  const done = `pi-session-lsp /doctor: switched to the repaired copy ${remedy.path}; ${file} is unchanged.`;
  // Once the session is replaced this command's context is stale: Pi hands `withSession` the new one.
  const switched = await ctx.switchSession(remedy.path, { withSession: async (next) => say(next, done) });
  if (switched?.cancelled) say(ctx, `pi-session-lsp /doctor: the repaired copy is ${remedy.path}, but the switch was cancelled; /resume opens it.`, "warning");
}
