/**
 * The footer of the built context's Markdown (`contextMarkdown.ts`): the statistics of the context
 * Pi builds (messages by role, Pi's token estimate, the model, the thinking level, the compaction)
 * and the system prompt Pi 1.x replays. Every name from the session is one line, bounded and
 * escaped for Markdown.
 */

import type { ContextBuild } from "../core/pi/buildContext";
import { asObject } from "../core/line/schema";
import { currentSystem } from "../core/pi/systemPrompt";
import { groupDigits, shortValue, singleLine } from "../core/base/text";
import { estimateContextTokens } from "../core/pi/tokens";
import { escapeMarkdown, inlineCode } from "./markdown";

/** Code points of a name (session, model, tool, custom type) in a heading. */
export const NAME_CODE_POINTS = 80;

const ROLE_NAMES: Record<string, [string, string]> = {
  user: ["user", "user"],
  assistant: ["assistant", "assistant"],
  toolResult: ["tool result", "tool results"],
  bashExecution: ["bash", "bash"],
  custom: ["custom", "custom"],
  system: ["system", "system"],
  branchSummary: ["branch summary", "branch summaries"],
  compactionSummary: ["compaction summary", "compaction summaries"],
};

export function renderFooter(build: ContextBuild): string[] {
  const { messages, thinkingLevel, model } = build.context;
  const counts = new Map<string, number>();
  for (const message of messages) {
    const role = asObject(message)?.role;
    const key =
      role === "hookMessage"
        ? "custom"
        : typeof role === "string"
          ? Object.hasOwn(ROLE_NAMES, role)
            ? role
            : escapeMarkdown(singleLine(role, NAME_CODE_POINTS))
          : "(no role)";
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  // Known roles in a fixed order, then the others as they come.
  const order = Object.keys(ROLE_NAMES);
  const rank = (role: string) => (order.includes(role) ? order.indexOf(role) : order.length);
  const byRole = [...counts]
    .sort((x, y) => rank(x[0]) - rank(y[0]))
    .map(([role, count]) => {
      const [one, many] = Object.hasOwn(ROLE_NAMES, role) ? ROLE_NAMES[role]! : [role, role];
      return `${groupDigits(count)} ${count === 1 ? one : many}`;
    });
  const estimate = estimateContextTokens(messages);
  let tokens = `~${groupDigits(estimate.tokens)}`;
  if (estimate.lastUsageIndex !== null) {
    const after = messages.length - estimate.lastUsageIndex - 1;
    const usage = `the usage recorded on message ${estimate.lastUsageIndex + 1}`;
    tokens +=
      after > 0
        ? ` (${usage}, ${groupDigits(estimate.usageTokens)}, + ~${groupDigits(estimate.trailingTokens)} for the ${groupDigits(after)} ${plural(after, "message")} after it)`
        : ` (${usage})`;
  } else if (messages.length > 0) {
    tokens += " (4 characters a token: no assistant message records its usage)";
  }
  const compaction = build.compaction;
  const lines = [
    `- **messages:** ${groupDigits(messages.length)}${byRole.length > 0 ? ` (${byRole.join(", ")})` : ""}`,
    `- **estimated tokens:** ${tokens}`,
    `- **model:** ${model ? modelName(model.provider, model.modelId) || "?" : "none"}`,
    `- **thinking level:** ${typeof thinkingLevel === "string" ? escapeMarkdown(singleLine(thinkingLevel, NAME_CODE_POINTS)) || '""' : escapeMarkdown(shortValue(thinkingLevel))}`,
    `- **compaction:** ${compaction ? `yes, ${entryRef(compaction)}: earlier entries are replaced by its summary` : "none"}`,
  ];
  // The system prompt Pi 1.x replays from every system message (providers without mid-conversation
  // system messages receive only this one).
  const system = currentSystem(messages);
  if (system) {
    const sections =
      system.sectionNames.length > 0 ? `sections ${system.sectionNames.map((n) => escapeMarkdown(singleLine(n, NAME_CODE_POINTS))).join(", ")}` : "no sections";
    const tools = system.toolNames.length > 0 ? `tools ${shortList(system.toolNames.map((n) => escapeMarkdown(singleLine(n, NAME_CODE_POINTS))))}` : "no tools";
    lines.push(`- **system prompt:** ${groupDigits(system.text.length)} characters · ${sections} · ${tools}`);
  }
  return lines;
}

/** `a, b, c`, or the first twelve and `+N more`. */
function shortList(items: string[]): string {
  return items.length > 12 ? `${items.slice(0, 12).join(", ")} +${items.length - 12} more` : items.join(", ");
}

/** `provider/model`, escaped for Markdown. */
export function modelName(provider: unknown, modelId: unknown): string {
  const p = typeof provider === "string" ? singleLine(provider, NAME_CODE_POINTS) : "";
  const m = typeof modelId === "string" ? singleLine(modelId, NAME_CODE_POINTS) : "";
  return p || m ? escapeMarkdown(`${p || "?"}/${m || "?"}`) : "";
}

export function entryRef(entry: { id: string | undefined; line: number }): string {
  return entry.id !== undefined ? `${code(singleLine(entry.id, NAME_CODE_POINTS))} (line ${entry.line + 1})` : `line ${entry.line + 1}`;
}

export function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}

/** Inline code for a text already on one line: fenced against its own backticks, control characters shown as spaces. */
export function code(text: string): string {
  return inlineCode(text, 2000);
}
