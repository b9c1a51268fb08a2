/**
 * What an API's own conversion throws on: the step after `transformMessages` that turns the
 * provider messages into the API's body (pi-ai's, not reproduced otherwise, `request.ts`). A throw
 * there fails the request before anything is sent, as a throw of the pipeline does.
 *
 * One is known, found by comparing our verdicts with the bodies Pi 1.6 sends (test/pi/wire): the
 * Responses conversion shared by `openai-responses`, `azure-openai-responses` and
 * `openai-codex-responses` (`convertResponsesMessages` in pi-ai's openai-responses-shared, 0.74.2
 * and 1.6.0 alike) replays every thinking block that carries a signature as the reasoning item the
 * signature holds, with an unguarded `JSON.parse(block.thinkingSignature)`. `transformMessages`
 * keeps signed thinking only for the model that wrote it, so a session whose turns from that very
 * model carry a signature that is not JSON (another API's opaque signature, a hand edit, a cut
 * line) fails every request to it with a SyntaxError.
 */

const RESPONSES_APIS: ReadonlySet<string> = new Set(["openai-responses", "azure-openai-responses", "openai-codex-responses"]);

export interface ConversionFailure {
  /** Index of the provider message the conversion throws on. */
  index: number;
  /** Index of the block in that message's content. */
  block: number;
  reason: string;
}

/**
 * The first block of each message the Responses conversion throws on, or -1, remembered per message
 * object: an edit replaces the messages it changes and keeps the others (`requestUpdate.ts`), so a
 * request updated after an edit parses only the new messages' signatures again.
 */
const failingBlock = new WeakMap<object, number>();

/** Where the conversion of `api` throws on `messages` (the provider messages), or undefined. */
export function conversionFailure(messages: readonly unknown[], api: unknown): ConversionFailure | undefined {
  if (typeof api !== "string" || !RESPONSES_APIS.has(api)) return undefined;
  for (let index = 0; index < messages.length; index++) {
    const m = messages[index] as { role?: unknown; content?: unknown } | null;
    if (m === null || typeof m !== "object" || m.role !== "assistant" || !Array.isArray(m.content)) continue;
    let block = failingBlock.get(m);
    if (block === undefined) {
      block = firstUnparsedSignature(m.content);
      failingBlock.set(m, block);
    }
    if (block >= 0) {
      return {
        index,
        block,
        reason: `a thinking block whose thinkingSignature is not JSON, which ${api}'s conversion parses as the reasoning item to replay (JSON.parse throws a SyntaxError)`,
      };
    }
  }
  return undefined;
}

/** The first thinking block whose signature `JSON.parse` rejects (as pi-ai calls it: on the value, truthy only), or -1. */
function firstUnparsedSignature(content: readonly unknown[]): number {
  for (let k = 0; k < content.length; k++) {
    const b = content[k] as { type?: unknown; thinkingSignature?: unknown } | null;
    if (b === null || typeof b !== "object" || b.type !== "thinking" || !b.thinkingSignature) continue;
    try {
      JSON.parse(b.thinkingSignature as string);
    } catch {
      return k;
    }
  }
  return -1;
}
