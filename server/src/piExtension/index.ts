/**
 * The Pi package's extension: `/doctor` inside Pi, a notice when a resumed session has faults,
 * and a warning before a request a provider refuses. The npm package names this file in its `pi`
 * manifest, so `pi install npm:pi-session-lsp` (or `pi -e` on a checkout) loads it.
 *
 * Pi loads every extension before it starts, so this module holds only the wiring: the analysis
 * (`doctorSession.ts`, and through it the core) is required when a handler first runs, and a
 * handler that has nothing to look at (a new session, no file yet) requires nothing. Whatever a
 * handler meets, it catches: a failure costs its answer, said in one line, never Pi's run.
 */

import type { PiCommandContext, PiContext, PiExtensionApi, ProviderRequestEvent, SessionStartEvent } from "./piApi";
import { say } from "./say";

type Session = typeof import("./doctorSession");

/** The analysis, loaded on first use. */
function session(): Session {
  return require("./doctorSession") as Session;
}

export default function doctorExtension(pi: PiExtensionApi): void {
  /** The faults already warned about before a request, for this session (at most one warning each). */
  const warned = new Set<string>();
  pi.registerCommand("doctor", {
    description: "What Pi silently did with this session file, what the next request breaks, and what to do (pi-session-lsp)",
    handler: async (_args: string, ctx: PiCommandContext) => {
      try {
        await (require("./doctorCommand") as typeof import("./doctorCommand")).runDoctorCommand(pi, ctx);
      } catch (error) {
        say(ctx, `pi-session-lsp /doctor failed: ${errorText(error)}`, "error");
      }
    },
  });
  /** The resume check waiting for its timer; Pi's `session_shutdown` cancels it (the context goes stale then). */
  let pending: ReturnType<typeof setTimeout> | undefined;
  pi.on("session_shutdown", () => {
    clearTimeout(pending);
    pending = undefined;
  });
  pi.on("session_start", (event: SessionStartEvent, ctx: PiContext) => {
    warned.clear();
    // The notice is for a person at Pi's UI (the terminal, an RPC client); a print or JSON run has
    // none, and the request warning still comes before a request the provider refuses.
    if ((event.reason !== "startup" && event.reason !== "resume") || !ctx.hasUI) return;
    // Pi waits for this handler before it goes on starting: the check (a few hundred milliseconds
    // the first time, most of it loading the analysis) runs once Pi has started, on a timer.
    clearTimeout(pending);
    pending = setTimeout(() => {
      pending = undefined;
      try {
        const file = ctx.sessionManager.getSessionFile();
        if (file === undefined || !session().hasEntries(file)) return;
        const notice = session().resumeNotice(file);
        if (notice) say(ctx, notice, "warning");
      } catch (error) {
        say(ctx, `pi-session-lsp could not check this session: ${errorText(error)}`, "error");
      }
    }, 0);
  });
  pi.on("before_provider_request", (event: ProviderRequestEvent, ctx: PiContext) => {
    try {
      const file = ctx.sessionManager.getSessionFile();
      if (file === undefined || !session().hasEntries(file)) return undefined;
      let branch: Set<string> | undefined;
      const onBranch = (id: string) => {
        branch ??= new Set(ctx.sessionManager.getBranch().map((entry) => entry.id));
        return branch.has(id);
      };
      const warning = session().requestWarning(file, event.payload, warned, onBranch);
      if (warning) say(ctx, warning, "warning");
    } catch (error) {
      say(ctx, `pi-session-lsp could not check this request: ${errorText(error)}`, "error");
    }
    // The payload is never altered: undefined keeps it as Pi built it.
    return undefined;
  });
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : "an unknown error";
}
