/**
 * `pi-session-lsp context --stage provider`: what the provider receives, printed from a built
 * context. JSON is `{"model": …, "messages": [...]}`, the messages exactly as pi-ai's
 * `transformMessages` returns them; Markdown shows them to read. Where Pi's pipeline throws, that
 * is said on stderr and the exit status is 1, as for a context Pi cannot build.
 */

import type { SessionAnalysis } from "../core/session/analysis";
import type { ContextBuild, PiFlavor } from "../core/pi/buildContext";
import { providerViewJson } from "../core/pi/provider/request";
import type { WireApi } from "../core/pi/provider/wire/common";
import { buildWireRequest, DEFAULT_WIRE_PROMPT } from "../core/pi/provider/wire/request";
import { type ContextStage, providerRequestOf, renderProviderMarkdown } from "../features/api/context";
import type { CliIo } from "./io";
import { escapeControls, escapeControlsKeepingLines } from "./terminal";

/** `shown` is the file's name with its control characters escaped; everything printed as text is escaped too. */
export function printProvider(a: SessionAnalysis, build: ContextBuild, flavor: PiFlavor, format: string, shown: string, io: CliIo): number {
  const result = providerRequestOf(build, flavor);
  if (!result.ok) {
    const where = result.entry ? ` (line ${result.entry.line + 1})` : "";
    io.err(
      `pi-session-lsp context: ${shown}: Pi's message pipeline throws on ${escapeControls(result.reason)}${where}, so every request fails before it reaches the provider.\n`,
    );
    return 1;
  }
  const model = result.request.model;
  if (model && model.inCatalog === false) {
    io.err(
      `pi-session-lsp context: ${shown}: the session's model is not in pi-ai's built-in catalogue; Pi uses it only if models.json defines it, and otherwise falls back to its default model. The messages are those for a model other than the session's.\n`,
    );
  }
  if (format !== "json") {
    io.out(escapeControlsKeepingLines(renderProviderMarkdown(a, build, result.request, flavor)));
    return 0;
  }
  let json: string;
  try {
    json = providerViewJson(result.request);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    io.err(
      `pi-session-lsp context: ${shown}: the request holds a value nested too deep for JSON.stringify (${escapeControls(error.message)}), as Pi's own request would; --format markdown shows the messages.\n`,
    );
    return 1;
  }
  io.out(`${json}\n`);
  return 0;
}

/** The command's stages: the editor's request's two, and the HTTP body, which only the command prints. */
export type CliStage = ContextStage | "request";

/** What `--api` and `--prompt` ask of `--stage request`. */
export interface WireChoice {
  api?: WireApi;
  prompt?: string;
}

/**
 * `--stage request`: the HTTP body Pi 1.6 sends for the resumed model's API (or `--api`), with the
 * prompt appended, its volatile fields left out (`core/pi/provider/wire/volatile.ts`), as JSON.
 * Which model it is built for, and a stand-in, is said on stderr.
 */
export function printRequest(build: ContextBuild, choice: WireChoice, shown: string, io: CliIo): number {
  const result = buildWireRequest(build, { api: choice.api, prompt: choice.prompt ?? DEFAULT_WIRE_PROMPT, now: Date.now });
  if (!result.ok && "noApi" in result) {
    io.err(
      `pi-session-lsp context: ${shown}: ${escapeControls(result.noApi)}; --stage request builds bodies for anthropic-messages, openai-completions and openai-responses: choose one with --api\n`,
    );
    return 2;
  }
  if (!result.ok) {
    const where = result.entry ? ` (line ${result.entry.line + 1})` : "";
    io.err(`pi-session-lsp context: ${shown}: Pi sends no request: ${escapeControls(result.reason)}${where}\n`);
    return 1;
  }
  if (result.standIn)
    io.err(
      `pi-session-lsp context: ${shown}: the session's own model does not speak ${result.api}; the body is for a custom model of models.json (${result.model.provider}/${result.model.id})\n`,
    );
  let json: string;
  try {
    json = JSON.stringify(result.body);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    io.err(
      `pi-session-lsp context: ${shown}: the request holds a value nested too deep for JSON.stringify (${escapeControls(error.message)}), as Pi's own request would\n`,
    );
    return 1;
  }
  io.out(`${json}\n`);
  return 0;
}
