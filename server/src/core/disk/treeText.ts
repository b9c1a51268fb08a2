/**
 * The text of one row of Pi's `/tree` (Pi 1.6 `getEntryDisplayText` and `formatToolCall`), without
 * colours: `user: …` and `assistant: …` with the first 200 characters of their text, a tool result
 * as the call that produced it (`[read: ~/src/a.ts:10-20]`, `[bash: npm test]`), `[compaction: 48k
 * tokens]`, `[branch summary]: …`, `[model: …]`, `[label: …]`, `[title: …]` and so on.
 *
 * The text is Pi's, control characters included; the command line escapes them before printing.
 * Where Pi's own expressions would throw on an odd value, `rowText` returns the error instead.
 */

import { isAbsolute, resolveFrom } from "../base/posixPath";
import { treeTitle } from "../session/rules";

type Obj = Record<string, unknown>;

/** A tool call as `/tree` remembers it (`toolCallMap`). */
export interface ToolCallInfo {
  name: unknown;
  arguments: unknown;
}

const normalize = (s: string) => s.replace(/[\n\t]/g, " ").trim();

function extractFullContent(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let result = "";
  for (const block of content) {
    if (typeof block === "object" && block !== null && "type" in block && block.type === "text") result += (block as { text: string }).text;
  }
  return result;
}

const extractContent = (content: unknown) => extractFullContent(content).slice(0, 200);

/** Pi's `shortenHomePath`: a path inside the home folder as `~/…`. */
export function shortenHomePath(path: string, home: string): string {
  if (!home || !isAbsolute(path)) return path;
  const resolvedHome = resolveFrom("/", home);
  const resolved = resolveFrom("/", path);
  if (resolved === resolvedHome) return "~";
  const base = resolvedHome.endsWith("/") ? resolvedHome : `${resolvedHome}/`;
  return resolved.startsWith(base) ? `~/${resolved.slice(base.length)}` : path;
}

function parseLineNumber(value: unknown): number | undefined {
  if (typeof value === "string" && value.trim() !== "") value = Number(value);
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Pi's `formatReadLineRange`. */
function formatReadLineRange(offset: unknown, limit: unknown): string {
  if (offset == null && limit == null) return "";
  const start = offset == null ? 1 : parseLineNumber(offset);
  if (start === undefined) return "";
  if (limit == null) return `:${start}`;
  const count = parseLineNumber(limit);
  if (count === undefined) return "";
  const end = start + count - 1;
  return `:${start}${end ? `-${end}` : ""}`;
}

/** Pi's `formatToolCall`. */
function formatToolCall(name: unknown, args: Obj, home: string): string {
  const shortenPath = (p: string) => shortenHomePath(p, home);
  switch (name) {
    case "read":
      return `[read: ${shortenPath(String(args.path || args.file_path || ""))}${formatReadLineRange(args.offset, args.limit)}]`;
    case "write":
      return `[write: ${shortenPath(String(args.path || args.file_path || ""))}]`;
    case "edit":
      return `[edit: ${shortenPath(String(args.path || args.file_path || ""))}]`;
    case "bash": {
      const rawCmd = String(args.command || "");
      const cmd = rawCmd
        .replace(/[\n\t]/g, " ")
        .trim()
        .slice(0, 50);
      return `[bash: ${cmd}${rawCmd.length > 50 ? "..." : ""}]`;
    }
    case "grep":
      return `[grep: /${String(args.pattern || "")}/ in ${shortenPath(String(args.path || "."))}]`;
    case "find":
      return `[find: ${String(args.pattern || "")} in ${shortenPath(String(args.path || "."))}]`;
    case "ls":
      return `[ls: ${shortenPath(String(args.path || "."))}]`;
    default: {
      const argsStr = (JSON.stringify(args) as string).slice(0, 40);
      return `[${name}: ${argsStr}${(JSON.stringify(args) as string).length > 40 ? "..." : ""}]`;
    }
  }
}

/** The tool calls of an assistant message, as `flattenTree` collects them into `toolCallMap`. */
export function toolCallsOf(entry: Obj): Map<unknown, ToolCallInfo> {
  const calls = new Map<unknown, ToolCallInfo>();
  const message = entry.message as Obj | undefined;
  const content = message?.content;
  if (entry.type === "message" && message?.role === "assistant" && Array.isArray(content)) {
    for (const block of content) {
      if (typeof block === "object" && block !== null && "type" in block && block.type === "toolCall") {
        const tc = block as { id: unknown; name: unknown; arguments: unknown };
        calls.set(tc.id, { name: tc.name, arguments: tc.arguments });
      }
    }
  }
  return calls;
}

/**
 * The row text Pi shows for `entry`. `toolCall` finds the call a tool result answers (Pi looks it
 * up among the assistant messages of the tree).
 */
export function rowText(entry: Obj, toolCall: (id: unknown) => ToolCallInfo | undefined, home: string): { text: string } | { throws: string } {
  try {
    return { text: displayText(entry, toolCall, home) };
  } catch (error) {
    return { throws: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

function displayText(entry: Obj, toolCall: (id: unknown) => ToolCallInfo | undefined, home: string): string {
  switch (entry.type) {
    case "message": {
      const msg = entry.message as Obj;
      const role = msg.role;
      if (role === "user") return `user: ${normalize(extractContent(msg.content))}`;
      if (role === "assistant") {
        const textContent = normalize(extractContent(msg.content));
        if (textContent) return `assistant: ${textContent}`;
        if (msg.stopReason === "aborted") return "assistant: (aborted)";
        if (msg.errorMessage) return `assistant: ${normalize(msg.errorMessage as string).slice(0, 80)}`;
        return "assistant: (no content)";
      }
      if (role === "toolResult") {
        const call = msg.toolCallId ? toolCall(msg.toolCallId) : undefined;
        if (call) return formatToolCall(call.name, call.arguments as Obj, home);
        return `[${(msg.toolName as string | undefined) ?? "tool"}]`;
      }
      if (role === "bashExecution") return `[bash]: ${normalize((msg.command as string | undefined) ?? "")}`;
      return `[${role}]`;
    }
    case "custom_message": {
      const content =
        typeof entry.content === "string"
          ? entry.content
          : (entry.content as { type: unknown; text: string }[])
              .filter((c) => c.type === "text")
              .map((c) => c.text)
              .join("");
      return `[${entry.customType}]: ${normalize(content)}`;
    }
    case "compaction":
      return `[compaction: ${Math.round((entry.tokensBefore as number) / 1000)}k tokens]`;
    case "branch_summary":
      return `[branch summary]: ${normalize(entry.summary as string)}`;
    case "model_change":
      return `[model: ${entry.modelId}]`;
    case "thinking_level_change":
      return `[thinking: ${entry.thinkingLevel}]`;
    case "custom":
      return `[custom: ${entry.customType}]`;
    case "context_edit":
      return `[context ${entry.replacement === null ? "omit" : "replace"}: ${entry.targetId}]`;
    case "label":
      return `[label: ${(entry.label as string | undefined) ?? "(cleared)"}]`;
    case "session_info":
      return treeTitle(entry.name);
    default:
      return "";
  }
}
