/**
 * What the per-line parse (`parse.ts`) makes of a line: blank, malformed, or a value with its
 * facts. The types stand apart from the parse so that the line records (`record.ts`), which the
 * parse builds, can implement them without importing the parse back.
 */

import type { IdKey } from "../base/ids";
import type { LineFinding } from "./findings";

export interface BlankLine {
  kind: "blank";
}

export interface MalformedLine {
  readonly kind: "malformed";
  /** `JSON.parse`'s message, e.g. "Unexpected end of JSON input". */
  readonly error: string;
}

export interface ValueLine extends LineFacts {
  readonly kind: "value";
  /**
   * The parsed value. It is not kept with the line: a bounded cache (`values.ts`) holds the values
   * of the lines used last, and a line whose value was let go is parsed again when asked.
   */
  readonly value: unknown;
  /** The value as an object, or undefined when the line is JSON but not an object. */
  readonly object: Record<string, unknown> | undefined;
}

/** The facts of a line that parses, without its value: what a `ValueLine` holds of its own. */
export interface LineFacts {
  /** Whether the value is falsy (`null`, `false`, `0`, `""`): Pi 1.x skips such lines. */
  falsy: boolean;
  /** Whether the value is an object (not an array or a primitive): what `object` would return. */
  isObject: boolean;
  /** For the model Pi's context reads from this line: an assistant message's provider and model, a model_change's provider and modelId. */
  model: { provider: unknown; modelId: unknown } | undefined;
  /** A thinking_level_change's `thinkingLevel`. */
  thinkingLevel: unknown;
  /** A message entry whose `message` is absent or null: Pi throws a TypeError building a context through it. */
  noMessage: boolean;
  /** `type` when it is a string. */
  type: string | undefined;
  /** `id` when it is a string. */
  id: string | undefined;
  /** `parentId` when it is a string or null; undefined when absent or of another type. */
  parentId: string | null | undefined;
  /** `id` as the key Pi's `byId` map files the entry under, whatever its type (see `idKey`). */
  idKey: IdKey;
  /** `parentId` as the key Pi looks the parent up by, whatever its type (see `idKey`). */
  parentKey: IdKey;
  /** `timestamp` in milliseconds when it is a valid ISO 8601 string. */
  time: number | undefined;
  /** For an assistant message: the ids of its `toolCall` blocks. */
  toolCallIds: string[] | undefined;
  /** For a toolResult message: its `toolCallId`. */
  toolResultId: string | undefined;
  /** For a message entry: `message.role` when it is a string. */
  role: string | undefined;
  /**
   * The key of the entry this line names besides its parent, as Pi would look it up: a label's or
   * context edit's `targetId`, a branch summary's `fromId`, a compaction's `firstKeptEntryId`.
   */
  reference: IdKey;
  /** Whether the line looks like something Pi wrote: a header, or an object with a known entry type or an id. */
  looksLikePi: boolean;
  findings: readonly LineFinding[];
}

export type ParsedLine = BlankLine | MalformedLine | ValueLine;
