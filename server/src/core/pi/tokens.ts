/**
 * How many tokens a built context costs, estimated the way Pi estimates it
 * (`estimateTokens` and `estimateContextTokens` in Pi 1.x's `core/compaction/compaction.ts`):
 *
 * - the last assistant message with usable usage (not aborted, not an error, more than zero tokens)
 *   counts for everything up to it: its `usage.totalTokens`, or input + output + cacheRead +
 *   cacheWrite when that is zero or missing;
 * - every message after it, or every message when there is none, is estimated at one token per four
 *   characters of its text (thinking, tool call names and JSON arguments, summaries, shell commands
 *   and output, system prompt sections and tool declarations), an image counting 4,800 characters.
 *
 * Unlike Pi, it never throws on a malformed message: a missing or mistyped field counts nothing.
 */

import { asObject } from "../line/schema";

const IMAGE_CHARS = 4800;

export interface TokenEstimate {
  /** The estimate for the whole context. */
  tokens: number;
  /** Tokens taken from the last usable assistant usage. */
  usageTokens: number;
  /** Tokens estimated from the text of the messages after it. */
  trailingTokens: number;
  /** Index of the message whose usage was used, or null. */
  lastUsageIndex: number | null;
}

export function estimateContextTokens(messages: readonly unknown[]): TokenEstimate {
  return estimateContextTokensOf(
    messages.length,
    (i) => usableUsage(messages[i]),
    (i) => estimateTokens(messages[i]),
  );
}

/**
 * `estimateContextTokens` of `count` messages known by their usable usage and estimate alone
 * (`usageAt`, `tokensAt`), for a context whose messages are not all held (`diff` of a large file).
 */
export function estimateContextTokensOf(count: number, usageAt: (i: number) => number | undefined, tokensAt: (i: number) => number): TokenEstimate {
  let lastUsageIndex: number | null = null;
  let usageTokens = 0;
  for (let i = count - 1; i >= 0; i--) {
    const usage = usageAt(i);
    if (usage !== undefined) {
      lastUsageIndex = i;
      usageTokens = usage;
      break;
    }
  }
  let trailingTokens = 0;
  for (let i = lastUsageIndex === null ? 0 : lastUsageIndex + 1; i < count; i++) trailingTokens += tokensAt(i);
  return { tokens: usageTokens + trailingTokens, usageTokens, trailingTokens, lastUsageIndex };
}

/** Context tokens recorded by an assistant message, when Pi would trust them. */
export function usableUsage(message: unknown): number | undefined {
  const m = asObject(message);
  if (m?.role !== "assistant" || m.stopReason === "aborted" || m.stopReason === "error") return undefined;
  const usage = asObject(m.usage);
  if (!usage) return undefined;
  const total = num(usage.totalTokens) || num(usage.input) + num(usage.output) + num(usage.cacheRead) + num(usage.cacheWrite);
  return total > 0 ? total : undefined;
}

/** Pi's per-message estimate: characters / 4, rounded up. */
export function estimateTokens(message: unknown): number {
  const m = asObject(message);
  if (!m) return 0;
  let chars = 0;
  switch (m.role) {
    case "system": {
      chars = contentChars(m.content);
      const sections = asObject(m.sections);
      if (sections) for (const section of Object.values(sections)) if (typeof section === "string") chars += section.length;
      if (m.toolsAdded) chars += JSON.stringify(m.toolsAdded)?.length ?? 0;
      break;
    }
    case "user":
    case "custom":
    case "toolResult":
      chars = contentChars(m.content);
      break;
    case "assistant":
      if (Array.isArray(m.content)) {
        for (const block of m.content) {
          const b = asObject(block);
          if (b?.type === "text") chars += str(b.text).length;
          else if (b?.type === "thinking") chars += str(b.thinking).length;
          else if (b?.type === "toolCall") chars += str(b.name).length + (JSON.stringify(b.arguments)?.length ?? 0);
        }
      }
      break;
    case "bashExecution":
      chars = str(m.command).length + str(m.output).length;
      break;
    case "branchSummary":
    case "compactionSummary":
      chars = str(m.summary).length;
      break;
    default:
      return 0;
  }
  return Math.ceil(chars / 4);
}

function contentChars(content: unknown): number {
  if (typeof content === "string") return content.length;
  if (!Array.isArray(content)) return 0;
  let chars = 0;
  for (const block of content) {
    const b = asObject(block);
    if (b?.type === "text" && typeof b.text === "string") chars += b.text.length;
    else if (b?.type === "image") chars += IMAGE_CHARS;
  }
  return chars;
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** A token count as people read it: `850`, `4.2k`, `48k`, `1.2M` (shared by lenses and inlay hints). */
export function formatTokens(tokens: number): string {
  if (!Number.isFinite(tokens)) return "?";
  if (tokens < 1000) return String(Math.round(tokens));
  if (tokens < 9950) return `${trimZero((tokens / 1000).toFixed(1))}k`;
  if (tokens < 999_500) return `${Math.round(tokens / 1000)}k`;
  return `${trimZero((tokens / 1_000_000).toFixed(1))}M`;
}

function trimZero(fixed: string): string {
  return fixed.endsWith(".0") ? fixed.slice(0, -2) : fixed;
}
