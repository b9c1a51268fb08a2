/**
 * The long strings of a streamed message (`streamedBody.ts`): the placeholders that stand for them
 * while the rest of the message is parsed, that parse, putting them back, and their text and lines.
 */

import { randomUUID } from "node:crypto";
import type { SplitText } from "../core/line/split";
import type { BodyChunks } from "./bodyChunks";

/** A long string of the body: where its characters are (between its quotes) and its lines, decoded. */
export interface LongString {
  start: number;
  end: number;
  lines: string[];
}

/** Placeholders are unguessable, so that no string a client sends can pass for one. */
const NONCE = `\u0000pi-session-lsp:${randomUUID()}:`;

/**
 * The message of `body` with each long string standing as its placeholder while it is parsed, then
 * put back (`texts`, joined from their lines), and which of them was `params.textDocument.text`
 * (-1 when none was); undefined when they do not come back exactly where they were. Throws
 * `JSON.parse`'s error when what is left of the message is not JSON.
 */
export function assembleMessage(body: BodyChunks, long: readonly LongString[]): { message: unknown; texts: string[]; documentIndex: number } | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (let k = 0; k < long.length; k++) {
    const s = long[k]!;
    parts.push(body.slice(at, s.start), Buffer.from(placeholder(k), "utf8"));
    at = s.end;
  }
  parts.push(body.slice(at, body.received));
  const message: unknown = JSON.parse(Buffer.concat(parts).toString("utf8"));
  // Which long string is the document's text, read while it is still a placeholder (comparing
  // the rope itself with another string of its length would flatten both).
  const documentIndex = placeholderIndex(record(record(record(message)?.params)?.textDocument)?.text);
  const texts = long.map((s) => join(s.lines));
  const placed = putBack(message, texts);
  return placed === undefined ? undefined : { message: placed, texts, documentIndex };
}

/** The characters of placeholder `k` as they stand between the quotes of a JSON string. */
export function placeholder(k: number): string {
  return JSON.stringify(NONCE + k).slice(1, -1);
}

/** The lines joined with "\n": a rope of them (V8 concatenates without copying until something reads it flat). */
export function join(lines: readonly string[]): string {
  let text = lines[0]!;
  for (let k = 1; k < lines.length; k++) text = `${text}\n${lines[k]!}`;
  return text;
}

/** What `splitLines` returns for the lines joined with "\n": a "\r" before a "\n" goes into the ending. */
export function splitOf(pieces: string[]): SplitText {
  const lines = pieces;
  const eols = new Array<string>(pieces.length);
  const last = pieces.length - 1;
  for (let k = 0; k < last; k++) {
    const line = pieces[k]!;
    if (line.length > 0 && line.charCodeAt(line.length - 1) === 13) {
      lines[k] = line.slice(0, -1);
      eols[k] = "\r\n";
    } else eols[k] = "\n";
  }
  eols[last] = "";
  return { lines, eols };
}

export function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The index of the long string a placeholder stands for, or -1 for any other value. */
export function placeholderIndex(value: unknown): number {
  if (typeof value !== "string" || !value.startsWith(NONCE)) return -1;
  const k = Number(value.slice(NONCE.length));
  return Number.isInteger(k) && k >= 0 ? k : -1;
}

/**
 * Replaces each placeholder string of `value` (a parsed JSON value) with its text, walking it
 * without recursion; undefined unless every placeholder is found exactly once, and as a value.
 */
export function putBack(value: unknown, texts: readonly string[]): unknown {
  const seen = new Uint8Array(texts.length);
  let found = 0;
  /** The text for a string of the message: itself, a long string's text, or undefined for a placeholder out of place. */
  const replace = (item: string): string | undefined => {
    const k = placeholderIndex(item);
    if (k < 0) return item;
    if (k >= texts.length || seen[k] === 1) return undefined;
    seen[k] = 1;
    found++;
    return texts[k];
  };
  if (typeof value === "string") {
    const text = replace(value);
    return text !== undefined && found === texts.length ? text : undefined;
  }
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object") continue;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const item: unknown = node[i];
        if (typeof item === "string") {
          const text = replace(item);
          if (text === undefined) return undefined;
          if (text !== item) node[i] = text;
        } else if (item !== null && typeof item === "object") stack.push(item);
      }
      continue;
    }
    const fields = node as Record<string, unknown>;
    for (const key of Object.keys(fields)) {
      if (placeholderIndex(key) >= 0) return undefined;
      const item = fields[key];
      if (typeof item === "string") {
        const text = replace(item);
        if (text === undefined) return undefined;
        if (text !== item) fields[key] = text;
      } else if (item !== null && typeof item === "object") stack.push(item);
    }
  }
  return found === texts.length ? value : undefined;
}
