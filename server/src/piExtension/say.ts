/**
 * How the extension tells the user something, in every mode of Pi: a notification where Pi has a
 * UI (the terminal UI, RPC mode's `extension_ui_request`), else a line of text on stderr (print
 * and JSON mode, whose stdout carries the answer or the event stream).
 */

import { escapeForTerminal } from "../core/base/text";
import type { NotifyType, PiContext } from "./piApi";

export function say(ctx: PiContext, text: string, type: NotifyType = "info"): void {
  try {
    if (ctx.hasUI) {
      ctx.ui.notify(escapeForTerminal(text, true), type);
      return;
    }
  } catch {
    // A context gone stale (the session was replaced) cannot show it: stderr still can.
  }
  process.stderr.write(`${escapeForTerminal(text, true)}\n`);
}
