/**
 * `slim`'s edit of one line: the inline images and large tool outputs of an entry Pi no longer
 * sends, replaced in place by short placeholders, every other byte of the line kept.
 *
 * The line is not parsed and written again: `JSON.stringify` of a parsed line would change what
 * Pi reads back wherever the two disagree (a number such as `1e400` becomes `null`, a duplicate key
 * loses its first value), and would overflow the stack on a deep value. Instead each value to
 * replace is located in the text (`locate`, which takes the last of duplicate keys as `JSON.parse`
 * does) and only its characters are spliced, so the id, parentId, type, timestamps and every field
 * Pi's loader or `/tree` reads stay byte for byte.
 *
 * A placeholder keeps the message's shape valid for Pi 1.6's types: an image block in a user,
 * tool result or custom message becomes a text block (`TextContent`), which every one of them
 * accepts; a tool result's text stays a text block; a `bashExecution`'s `output` stays a string.
 * Assistant messages are left alone: their content (text, thinking, tool calls) is what `/tree`
 * and the session list show.
 */

import { groupDigits } from "../base/text";
import { type JsonPath, locate } from "../line/locate";

/** What a placeholder stood in for. */
export type SlimKind = "image" | "toolOutput" | "bashOutput";

export const SLIM_KINDS: readonly SlimKind[] = ["image", "toolOutput", "bashOutput"];

/** The smallest value replaced by default: 4 KiB of JSON text. */
export const DEFAULT_MIN_BYTES = 4096;

/** One value replaced: its kind and the UTF-8 bytes of the line it took, and gave back. */
export interface SlimCut {
  kind: SlimKind;
  removedBytes: number;
  addedBytes: number;
}

export interface SlimmedLine {
  text: string;
  cuts: SlimCut[];
}

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value found to replace: where it is and what it becomes. */
interface Target {
  path: JsonPath;
  kind: SlimKind;
  placeholder: (bytes: number) => string;
}

/** The message roles whose content may hold images (Pi 1.6's `UserMessage`, `ToolResultMessage`, `CustomMessage`). */
const IMAGE_ROLES = new Set(["user", "toolResult", "custom"]);

/** The text of a placeholder: what was there, how large, and who removed it. */
export function placeholderText(kind: SlimKind, bytes: number, mimeType?: string): string {
  const size = `${groupDigits(bytes)} bytes`;
  if (kind === "image") return `[slimmed: ${mimeType ?? "image"} of ${size} removed by pi-session-lsp slim]`;
  if (kind === "bashOutput") return `[slimmed: ${size} of bash output removed by pi-session-lsp slim]`;
  return `[slimmed: ${size} of tool output removed by pi-session-lsp slim]`;
}

/** A mime type as a placeholder names it: a short string of the characters mime types use, else nothing. */
function mimeOf(block: Obj): string | undefined {
  const mime = block.mimeType;
  return typeof mime === "string" && mime.length <= 60 && /^[A-Za-z0-9.+/-]+$/.test(mime) ? mime : undefined;
}

function textBlock(text: string): string {
  return JSON.stringify({ type: "text", text });
}

/** The content blocks of an array to replace: images, and with `texts` large text blocks. */
function contentTargets(content: unknown, base: JsonPath, texts: boolean, out: Target[]): void {
  if (!Array.isArray(content)) return;
  for (let i = 0; i < content.length; i++) {
    const block: unknown = content[i];
    if (!isObject(block)) continue;
    if (block.type === "image" && typeof block.data === "string") {
      const mime = mimeOf(block);
      out.push({ path: [...base, i], kind: "image", placeholder: (bytes) => textBlock(placeholderText("image", bytes, mime)) });
    } else if (texts && block.type === "text" && typeof block.text === "string") {
      out.push({ path: [...base, i], kind: "toolOutput", placeholder: (bytes) => textBlock(placeholderText("toolOutput", bytes)) });
    }
  }
}

/** The values of an entry that `slim` may replace, whatever their size. */
function targetsOf(entry: unknown): Target[] {
  const out: Target[] = [];
  if (!isObject(entry)) return out;
  if (entry.type === "custom_message") contentTargets(entry.content, ["content"], false, out);
  if (entry.type !== "message" || !isObject(entry.message)) return out;
  const message = entry.message;
  const role = message.role;
  if (role === "bashExecution" && typeof message.output === "string") {
    out.push({ path: ["message", "output"], kind: "bashOutput", placeholder: (bytes) => JSON.stringify(placeholderText("bashOutput", bytes)) });
  } else if (typeof role === "string" && IMAGE_ROLES.has(role)) {
    contentTargets(message.content, ["message", "content"], role === "toolResult", out);
  }
  return out;
}

/**
 * Whether an entry holds a value `slim` could replace, judged from its parsed value alone (the
 * sizes are measured on the text, by `slimLine`): for the first pass, which keeps no text.
 */
export function mightSlim(entry: unknown): boolean {
  return targetsOf(entry).length > 0;
}

/**
 * The line `text` (whose parsed value is `entry`) with each replaceable value of at least
 * `minBytes` UTF-8 bytes replaced by its placeholder, when that makes it shorter; undefined when
 * nothing is replaced. The result parses to the same value but for the replaced members.
 */
export function slimLine(text: string, entry: unknown, minBytes: number = DEFAULT_MIN_BYTES): SlimmedLine | undefined {
  const found: { start: number; end: number; replacement: string; cut: SlimCut }[] = [];
  for (const target of targetsOf(entry)) {
    const at = locate(text, target.path);
    if (!at) continue;
    const { start, end } = at.value;
    // A quick bound before counting bytes: a UTF-16 code unit is at most 3 UTF-8 bytes.
    if ((end - start) * 3 < minBytes) continue;
    const removedBytes = Buffer.byteLength(text.slice(start, end), "utf8");
    if (removedBytes < minBytes) continue;
    const replacement = target.placeholder(removedBytes);
    const addedBytes = Buffer.byteLength(replacement, "utf8");
    if (addedBytes >= removedBytes) continue;
    found.push({ start, end, replacement, cut: { kind: target.kind, removedBytes, addedBytes } });
  }
  if (found.length === 0) return undefined;
  // Spliced from the end, so that the earlier offsets stay valid.
  found.sort((a, b) => a.start - b.start);
  let result = text;
  for (let k = found.length - 1; k >= 0; k--) {
    const { start, end, replacement } = found[k]!;
    result = result.slice(0, start) + replacement + result.slice(end);
  }
  return { text: result, cuts: found.map((f) => f.cut) };
}
