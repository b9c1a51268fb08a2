/**
 * The system prompt and tools in force at the end of a built context, replayed the way Pi 1.x
 * replays them (`getCurrentSystemMessage` and `getCurrentTools` in pi-ai's `utils/transcript.ts`):
 *
 * - in context order, the non-empty `content` text of every system message is kept (text blocks of
 *   one message joined with "\n", messages with "\n\n");
 * - `sections` are patched by name: a string sets the section, `null` deletes it;
 * - tools: each message first removes its `toolsRemoved` names, then sets its `toolsAdded` by name;
 * - the timestamp is the first system message's.
 *
 * Providers without mid-conversation system messages receive exactly this one message in place of
 * all the others. Malformed fields are skipped instead of throwing.
 */

import { asObject } from "../line/schema";

export interface SystemState {
  /** Pi's replayed system message: `{role, content, sections?, toolsAdded?, timestamp}`. */
  message: Record<string, unknown>;
  /** The prompt text as Pi renders it: content, then each section, joined by blank lines. */
  text: string;
  sectionNames: string[];
  toolNames: string[];
}

export function currentSystem(messages: readonly unknown[]): SystemState | undefined {
  const content: string[] = [];
  const sections = new Map<string, string>();
  const tools = new Map<string, unknown>();
  let timestamp: unknown;
  let seen = false;
  for (const message of messages) {
    const m = asObject(message);
    if (m?.role !== "system") continue;
    if (!seen) timestamp = m.timestamp;
    seen = true;
    const text = contentText(m.content);
    if (text.length > 0) content.push(text);
    const patch = asObject(m.sections);
    if (patch) {
      for (const [name, value] of Object.entries(patch)) {
        if (value === null) sections.delete(name);
        else if (typeof value === "string") sections.set(name, value);
      }
    }
    for (const tool of list(m.toolsRemoved)) {
      const name = asObject(tool)?.name;
      if (typeof name === "string") tools.delete(name);
    }
    for (const tool of list(m.toolsAdded)) {
      const name = asObject(tool)?.name;
      if (typeof name === "string") tools.set(name, tool);
    }
  }
  if (!seen && tools.size === 0) return undefined;
  const message: Record<string, unknown> = { role: "system", content: content.join("\n\n") };
  if (sections.size > 0) message.sections = Object.fromEntries(sections);
  if (tools.size > 0) message.toolsAdded = [...tools.values()];
  message.timestamp = timestamp ?? 0;
  const text = [content.join("\n\n"), ...sections.values()].filter((part) => part.length > 0).join("\n\n");
  return { message, text, sectionNames: [...sections.keys()], toolNames: [...tools.keys()] };
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((block) => asObject(block)?.type === "text" && typeof asObject(block)?.text === "string")
    .map((block) => (block as { text: string }).text)
    .join("\n");
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
