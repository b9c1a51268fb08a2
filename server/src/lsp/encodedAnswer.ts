/**
 * A built context's answer with its JSON made ahead, from the JSON of each message remembered
 * across answers.
 *
 * `piSession/buildContext` answers with the whole context (7 MB of JSON for the 45 MB session, 14 MB
 * at stage provider), and `JSON.stringify` of it was most of what the server spent on such an
 * answer: 36 ms of about 50 for the context, 70 ms for the provider stage (the rest is the build,
 * the UTF-8 and the write). Between two answers an edit changes a few messages at most: a build
 * updated after an edit keeps every other message object (`core/pi/contextUpdate.ts`, and the
 * provider request the same way), and the bounded window of a request is a slice of the same
 * objects. So the JSON of each message object is remembered (weakly: it goes with the object), and
 * an answer is the remembered parts joined, with the small members around them stringified afresh.
 *
 * This holds because a message object is never changed once built: the builds share them on that
 * same assumption. The JSON is exactly `JSON.stringify`'s (members in the same order, `undefined`
 * members left out, `null` for an element that has no JSON), and `toJSON` gives the answer itself, so
 * an encoder that knows nothing of this writes the same bytes.
 *
 * What is remembered costs about the answer's size while its messages live: the builds hold them
 * until the idle server lets its kept contexts go (`memory.ts`, which a large answer schedules), and
 * the parsed line values until they are trimmed; then the JSON goes with them. The UTF-8 of a large
 * list or string is kept whole for the next answer (`keptJson.ts`).
 */

import { keptListJson, keptStringJson } from "./keptJson";
import { renewableWeakMap } from "../core/base/weakTables";

/** A part of an answer's JSON: a string, or its UTF-8 bytes (kept from an earlier answer, `keptJson.ts`). */
export type AnswerPart = string | Uint8Array;

/**
 * An answer and its JSON, in parts whose concatenation it is: `encodeMessage` (`stdin.ts`) writes
 * each part's UTF-8 where the last ended, which costs less than joining them into one string of
 * megabytes first (the join, then the flattening of the message around it, took longer than
 * `JSON.stringify` of the whole answer).
 */
export class EncodedAnswer {
  constructor(
    readonly value: object,
    readonly parts: readonly AnswerPart[],
  ) {}

  /** The JSON's length in UTF-16 code units, a part kept as bytes counted by its bytes (as many or more). */
  get chars(): number {
    let chars = 0;
    for (const part of this.parts) chars += part.length;
    return chars;
  }

  /** What `JSON.stringify` writes for this answer: the answer itself. */
  toJSON(): unknown {
    return this.value;
  }
}

/** The JSON of each message object written so far, for as long as the object lives. */
const remembered = renewableWeakMap<object, string>();

/**
 * The answer with its JSON, the `messages` of its `context` and `provider` members from remembered
 * parts. The answer's values were checked for depth before (`computeContextRequest`), so that
 * `JSON.stringify` of any part does not overflow the stack.
 */
export function encodeContextAnswer(answer: object): EncodedAnswer {
  const parts: AnswerPart[] = [];
  membersJson(answer, parts, (key, value) => (key === "context" || key === "provider") && withMessagesJson(value, parts));
  return new EncodedAnswer(answer, parts);
}

/** Adds the JSON of an object with a `messages` list to `parts`; false (nothing added) for anything else. */
function withMessagesJson(value: unknown, parts: AnswerPart[]): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  membersJson(value, parts, (key, member) => key === "messages" && Array.isArray(member) && listJson(member, parts));
  return true;
}

/**
 * Adds `JSON.stringify(object)` of a plain object to `parts`: its own enumerable members in order,
 * a member whose value has no JSON left out; `special` adds a member's JSON itself when it returns true.
 */
function membersJson(object: object, parts: AnswerPart[], special: (key: string, value: unknown) => boolean): void {
  let separator = "{";
  for (const key of Object.keys(object)) {
    const value = (object as Record<string, unknown>)[key];
    const at = parts.length;
    parts.push(`${separator}${JSON.stringify(key)}:`);
    if (special(key, value)) {
      separator = ",";
      continue;
    }
    const json = (typeof value === "string" && keptStringJson(value)) || (JSON.stringify(value) as string | undefined);
    if (json === undefined) parts.length = at;
    else {
      parts.push(json);
      separator = ",";
    }
  }
  parts.push(separator === "{" ? "{}" : "}");
}

/** Adds `JSON.stringify(list)` to `parts`, each element object's JSON remembered; a hole or an element without JSON is `null`. */
function listJson(list: readonly unknown[], parts: AnswerPart[]): boolean {
  const kept = keptListJson(list, elementJson);
  if (kept) {
    parts.push(kept);
    return true;
  }
  parts.push("[");
  for (let i = 0; i < list.length; i++) {
    if (i > 0) parts.push(",");
    parts.push(elementJson(list[i]));
  }
  parts.push("]");
  return true;
}

function elementJson(element: unknown): string {
  if (element === null || typeof element !== "object") return (JSON.stringify(element) as string | undefined) ?? "null";
  let json = remembered.get(element);
  if (json === undefined) {
    json = (JSON.stringify(element) as string | undefined) ?? "null";
    remembered.set(element, json);
  }
  return json;
}
