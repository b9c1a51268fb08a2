/**
 * Session text made safe to put into the exported HTML page: the one place that escapes it.
 *
 * A session comes from anywhere, and the page is opened in a browser, so session text only ever
 * becomes element content, never an attribute, a URL, a script or a style: `htmlText` escapes the
 * five characters that could open markup or end an attribute, and turns every control character
 * into a visible mark (`<span class="ctl">U+202E</span>`). The bidirectional controls among them
 * (Trojan Source) are thus shown, never obeyed, as the CLI's terminal escaping shows them; text is
 * further put inside `<bdi>` or a `dir="auto"` block, so that right-to-left letters in it cannot
 * reorder the page around it. Each block of text is cut at `MAX_TEXT_CHARS` and says what it left out.
 * The only session bytes that reach an attribute are an image's base64 data, after `imageSource`
 * has checked that they are nothing but base64 of a PNG, JPEG, GIF or WebP image.
 */

import { groupDigits, plural, safeSlice } from "../../core/base/text";

/** UTF-16 code units of one text block shown; the rest is counted. */
export const MAX_TEXT_CHARS = 1_000_000;
/** Base64 characters of one image shown inline; a larger image is named with its size instead. */
export const MAX_IMAGE_CHARS = 8 * 1024 * 1024;

/**
 * What is escaped: the markup characters, C0 controls but tab and line feed, DEL, C1 controls, the
 * line and paragraph separators, and the bidirectional controls.
 */
const SPECIAL = /[&<>"'\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

function codePoint(c: string): string {
  return `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
}

/** Text as element content: markup escaped, each control character a visible mark. */
export function htmlText(text: string): string {
  return text.replace(SPECIAL, (c) => ENTITIES[c] ?? `<span class="ctl">${codePoint(c)}</span>`);
}

/** Text for an element that holds no markup (the page's `<title>`): escaped, controls as `[U+XXXX]`. */
export function htmlPlain(text: string): string {
  return text.replace(SPECIAL, (c) => ENTITIES[c] ?? `[${codePoint(c)}]`);
}

/** A short piece of session text inline (a name, an id, a title): escaped and isolated. */
export function inline(text: string): string {
  return `<bdi>${htmlText(text)}</bdi>`;
}

/** A size in bytes for people: "512 B", "3.4 MB". */
export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${groupDigits(bytes)} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * A block of session text, preformatted and isolated (`dir="auto"`), cut at `MAX_TEXT_CHARS` with
 * a note of what was left out. Only the part shown is copied.
 */
export function textBlock(text: string, className = "text"): string {
  const shown = safeSlice(text, MAX_TEXT_CHARS);
  const more = text.length - shown.length;
  const note = more > 0 ? `<p class="cut">… ${plural(more, "more character")} not shown (the text is ${groupDigits(text.length)} characters long)</p>` : "";
  return `<pre class="${className}" dir="auto">${htmlText(shown)}</pre>${note}`;
}

/** The image types shown inline, with the first bytes each must start with. */
const SIGNATURES: Record<string, (b: Uint8Array) => boolean> = {
  "image/png": (b) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47,
  "image/jpeg": (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  "image/gif": (b) => b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38,
  "image/webp": (b) => b[0] === 0x52 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x46 && b[8] === 0x57 && b[9] === 0x45 && b[10] === 0x42 && b[11] === 0x50,
};

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The `data:` URL of an image block, or why it is not shown: only PNG, JPEG, GIF and WebP, whose
 * data is well-formed base64 (so it decodes, and holds no character that could leave the
 * attribute) and starts with the bytes of the type it claims, up to `MAX_IMAGE_CHARS`.
 */
export function imageSource(mimeType: unknown, data: unknown): { src: string } | { reason: string } {
  if (typeof mimeType !== "string" || !Object.hasOwn(SIGNATURES, mimeType)) return { reason: "not a PNG, JPEG, GIF or WebP image" };
  if (typeof data !== "string") return { reason: "its data is not a string" };
  if (data.length > MAX_IMAGE_CHARS)
    return { reason: `${byteSize(Math.floor((data.length * 3) / 4))}, larger than the ${byteSize((MAX_IMAGE_CHARS * 3) / 4)} shown` };
  if (data.length === 0 || data.length % 4 !== 0 || !BASE64.test(data)) return { reason: "its data is not base64" };
  const head = Buffer.from(data.slice(0, 16), "base64");
  if (!SIGNATURES[mimeType]!(head)) return { reason: `its data is not ${mimeType}` };
  return { src: `data:${mimeType};base64,${data}` };
}
