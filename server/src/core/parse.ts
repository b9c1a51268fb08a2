/**
 * The per-line parse: one line of text in, a `ParsedLine` out.
 *
 * Architecture invariant: the result depends only on the line's text, never on its neighbours or
 * its position, so it can be cached across edits and shared between documents. Facts that need
 * other lines (is this the header, does this parent exist) are derived later by `analyze`.
 *
 * The parse never throws. A line Pi cannot parse becomes a `malformed` line with the error;
 * a line that parses also carries the findings that need only its own text (field types, unknown
 * roles, bad timestamps), with spans located in the line.
 */

import type { DiagnosticCode } from "./codes";
import { type IdKey, idKeyOf } from "./ids";
import { clip } from "./text";
import { rememberValue, lineValue } from "./values";
import { locate, type JsonPath, type Span } from "./locate";
import {
  BASE_FIELDS,
  BLOCK_FIELDS,
  ENTRY_TYPE_BY_NAME,
  HEADER_FIELDS,
  MESSAGE_FIELD_EFFECT,
  ROLE_BY_NAME,
  USAGE_NUMBERS,
  isIsoTimestamp,
  isoTime,
  jsonKind,
  type FieldSpec,
} from "./schema";

/** A problem found in one line, positioned by UTF-16 offsets within that line. */
export interface LineFinding {
  code: DiagnosticCode;
  message: string;
  span: Span;
  /** The field a missing-field or wrong-type finding is about, as a dotted path ("message.role"). */
  field?: string;
}

export interface BlankLine {
  kind: "blank";
}

export interface MalformedLine {
  readonly kind: "malformed";
  /** `JSON.parse`'s message, e.g. "Unexpected end of JSON input". */
  readonly error: string;
}

export interface ValueLine {
  readonly kind: "value";
  /**
   * The parsed value. It is not kept with the line: a bounded cache (`values.ts`) holds the values
   * of the lines used last, and a line whose value was let go is parsed again when asked.
   */
  readonly value: unknown;
  /** The value as an object, or undefined when the line is JSON but not an object. */
  readonly object: Record<string, unknown> | undefined;
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

const BLANK: BlankLine = { kind: "blank" };
const NO_FINDINGS: readonly LineFinding[] = Object.freeze([]);

/** Whether Pi treats the line as blank: `line.trim()` is empty. */
function isBlank(text: string): boolean {
  // Almost every line starts with "{"; only the others need the full trim.
  return text.charCodeAt(0) !== 123 && text.trim().length === 0;
}

/** Whether `c` can start a JSON value (`{ [ " - 0-9 t f n`). */
function startsValue(c: number): boolean {
  return c === 123 || c === 91 || c === 34 || c === 45 || (c >= 48 && c <= 57) || c === 116 || c === 102 || c === 110;
}

/**
 * A line that cannot be JSON because of its first character, found without `JSON.parse` (which
 * costs microseconds to throw, minutes on millions of such lines). `JSON.parse`'s own message is
 * made only if a diagnostic asks for it.
 */
class UnparsableLine implements MalformedLine {
  readonly kind = "malformed";
  private message: string | undefined;

  constructor(private readonly text: string) {}

  get error(): string {
    if (this.message === undefined) {
      try {
        JSON.parse(this.text);
        this.message = "Unexpected token";
      } catch (e) {
        this.message = e instanceof Error ? e.message : String(e);
      }
    }
    return this.message;
  }
}

export function parseLine(text: string): ParsedLine {
  if (isBlank(text)) return BLANK;
  let first = 0;
  for (let c = text.charCodeAt(0); c === 32 || c === 9 || c === 10 || c === 13; c = text.charCodeAt(++first));
  if (!startsValue(text.charCodeAt(first))) return new UnparsableLine(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { kind: "malformed", error: e instanceof Error ? e.message : String(e) };
  }
  const object = value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  const type = typeof object?.type === "string" ? object.type : undefined;
  const id = typeof object?.id === "string" ? object.id : undefined;
  const rawParent = object?.parentId;
  const parentId = typeof rawParent === "string" || rawParent === null ? rawParent : undefined;
  const idKey = object ? idKeyOf(object.id) : undefined;
  const parentKey = object ? idKeyOf(rawParent) : undefined;
  const looksLikePi =
    type !== undefined && (type === "session" || ENTRY_TYPE_BY_NAME.has(type) || (id !== undefined && object !== undefined && "parentId" in object));
  const timestamp = object?.timestamp;
  const time = typeof timestamp === "string" ? isoTime(timestamp) : undefined;
  let findings: readonly LineFinding[] = NO_FINDINGS;
  if (object) {
    const found: LineFinding[] = [];
    try {
      new LineChecker(text, object, found).check(type);
    } catch {
      // The checker is written not to throw; should a shape slip through anyway, the line keeps
      // the findings made so far rather than breaking the invariant that parsing never fails.
    }
    // Most lines have no finding; they share one empty array instead of holding 50,000.
    if (found.length > 0) findings = found;
  }
  let toolCallIds: string[] | undefined;
  let toolResultId: string | undefined;
  let role: string | undefined;
  const message = type === "message" ? object!.message : undefined;
  if (message !== null && typeof message === "object") {
    const m = message as Record<string, unknown>;
    if (typeof m.role === "string") role = m.role;
    if (m.role === "toolResult" && typeof m.toolCallId === "string") toolResultId = m.toolCallId;
    else if (m.role === "assistant" && Array.isArray(m.content)) toolCallIds = toolCallIdsOf(m.content);
  }
  const referenceField =
    type === "label" || type === "context_edit" ? "targetId" : type === "branch_summary" ? "fromId" : type === "compaction" ? "firstKeptEntryId" : undefined;
  const reference = referenceField && object ? idKeyOf(object[referenceField]) : undefined;
  const m = message !== null && typeof message === "object" ? (message as Record<string, unknown>) : undefined;
  const model =
    type === "model_change"
      ? { provider: object!.provider, modelId: object!.modelId }
      : role === "assistant"
        ? { provider: m!.provider, modelId: m!.model }
        : undefined;
  const thinkingLevel = type === "thinking_level_change" ? object!.thinkingLevel : undefined;
  const line = new ParsedValueLine(text, {
    type,
    id,
    parentId,
    idKey,
    parentKey,
    time,
    toolCallIds,
    toolResultId,
    role,
    reference,
    looksLikePi,
    findings,
    falsy: !value,
    isObject: object !== undefined,
    model,
    thinkingLevel,
    noMessage: type === "message" && (message === undefined || message === null),
  });
  rememberValue(line, value);
  return line;
}

type Facts = Omit<ValueLine, "kind" | "value" | "object">;

/**
 * A line that parses, with the facts every feature reads (ids, links, types, roles, findings) and
 * its value fetched through the cache. A primitive value (a number, `null`…) is small and kept.
 */
class ParsedValueLine implements ValueLine {
  readonly kind = "value";
  type!: string | undefined;
  id!: string | undefined;
  parentId!: string | null | undefined;
  idKey!: IdKey;
  parentKey!: IdKey;
  time!: number | undefined;
  toolCallIds!: string[] | undefined;
  toolResultId!: string | undefined;
  role!: string | undefined;
  reference!: IdKey;
  looksLikePi!: boolean;
  findings!: readonly LineFinding[];
  falsy!: boolean;
  isObject!: boolean;
  model!: { provider: unknown; modelId: unknown } | undefined;
  thinkingLevel: unknown;
  noMessage!: boolean;

  constructor(
    /** The JSON text the value was parsed from (held by the document anyway). */
    readonly text: string,
    facts: Facts,
  ) {
    Object.assign(this, facts);
  }

  get value(): unknown {
    return lineValue(this);
  }

  get object(): Record<string, unknown> | undefined {
    if (!this.isObject) return undefined;
    const value = lineValue(this);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  }
}

/** Collects the findings of one line; spans are located lazily, only for actual findings. */
class LineChecker {
  constructor(
    private readonly text: string,
    private readonly object: Record<string, unknown>,
    private readonly findings: LineFinding[],
  ) {}

  check(type: string | undefined): void {
    if (type === "session") {
      this.checkFields(this.object, [], HEADER_FIELDS, "the header");
      return;
    }
    this.checkFields(this.object, [], BASE_FIELDS, "an entry");
    if (type === undefined) {
      if (!("type" in this.object))
        this.add("missing-field", "This entry has no `type`. Pi keeps it in the tree, but it contributes nothing to the context.", this.wholeObject());
      else
        this.add(
          "wrong-type",
          `\`type\` should be a string, not ${describe(this.object.type)}. Pi keeps the entry, but it contributes nothing to the context.`,
          this.valueSpan(["type"]),
        );
      return;
    }
    const spec = ENTRY_TYPE_BY_NAME.get(type);
    if (!spec) {
      this.add(
        "unknown-entry-type",
        `Unknown entry type "${type}". Pi keeps the entry in the tree (it can be the leaf), but it contributes nothing to the context.`,
        this.valueSpan(["type"]),
      );
      return;
    }
    if (type === "message") {
      this.checkMessage();
      return;
    }
    this.checkFields(this.object, [], spec.fields, `${article(type)} ${type} entry`);
    if (type === "usage") this.checkUsageKind();
    if (type === "context_edit") this.checkReplacement();
    if (type === "compaction" || type === "branch_summary" || type === "usage") this.checkUsage(this.object.usage, ["usage"]);
  }

  private checkMessage(): void {
    const message = this.object.message;
    if (message === undefined || message === null) {
      const span = message === null ? this.valueSpan(["message"]) : this.valueSpan(["type"]);
      this.add(
        "missing-message",
        `This message entry has no \`message\`${message === null ? " (it is null)" : ""}. Pi throws a TypeError when it builds a context that includes this entry.`,
        span,
      );
      return;
    }
    if (jsonKind(message) !== "object") {
      this.add(
        "wrong-type",
        `\`message\` should be an object, not ${describe(message)}. Pi keeps it in the context, but converting it to model input drops it.`,
        this.valueSpan(["message"]),
        "message",
      );
      return;
    }
    const m = message as Record<string, unknown>;
    const role = m.role;
    if (typeof role !== "string") {
      if (role === undefined)
        this.add(
          "missing-field",
          "This message has no `role`. Pi keeps it in the context, but converting it to model input drops it.",
          this.keySpan(["message"]),
        );
      else
        this.add(
          "wrong-type",
          `\`role\` should be a string, not ${describe(role)}. Pi keeps the message, but converting it to model input drops it.`,
          this.valueSpan(["message", "role"]),
        );
      return;
    }
    const spec = ROLE_BY_NAME.get(role);
    if (!spec) {
      this.add(
        "unknown-role",
        `Unknown message role "${role}". Pi keeps the message in the context, but converting it to model input drops it (an extension may define it).`,
        this.valueSpan(["message", "role"]),
      );
      return;
    }
    this.checkFields(m, ["message"], spec.fields, `${article(role)} ${role} message`, MESSAGE_FIELD_EFFECT);
    if (Array.isArray(m.content)) this.checkBlocks(m.content, ["message", "content"]);
    if (role === "assistant") this.checkUsage(m.usage, ["message", "usage"]);
  }

  private checkBlocks(blocks: unknown[], path: JsonPath): void {
    for (let i = 0; i < blocks.length; i++) {
      const block = blocks[i];
      if (jsonKind(block) !== "object") {
        this.add("wrong-type", `Content blocks should be objects, not ${describe(block)}.`, this.valueSpan([...path, i]));
        continue;
      }
      const b = block as Record<string, unknown>;
      const fields = typeof b.type === "string" ? BLOCK_FIELDS.get(b.type) : undefined;
      if (typeof b.type !== "string") {
        this.add(
          b.type === undefined ? "missing-field" : "wrong-type",
          "A content block needs a string `type` (text, image, thinking or toolCall).",
          this.valueSpan([...path, i]),
        );
      } else if (fields && !fieldsValid(b, fields)) {
        this.checkFields(b, [...path, i], fields, `${article(b.type)} ${b.type} block`, MESSAGE_FIELD_EFFECT);
      }
    }
  }

  private checkUsage(usage: unknown, path: JsonPath): void {
    if (jsonKind(usage) !== "object") return;
    const u = usage as Record<string, unknown>;
    for (const name of USAGE_NUMBERS) {
      if (name in u && typeof u[name] !== "number") {
        this.add(
          "wrong-type",
          `\`usage.${name}\` should be a number, not ${describe(u[name])}. Pi adds it into the session's token totals.`,
          this.valueSpan([...path, name]),
        );
      }
    }
    const cost = u.cost;
    if (cost !== undefined && jsonKind(cost) !== "object") {
      this.add(
        "wrong-type",
        `\`usage.cost\` should be an object, not ${describe(cost)}. Pi adds it into the session's cost.`,
        this.valueSpan([...path, "cost"]),
      );
    } else if (cost !== undefined) {
      const c = cost as Record<string, unknown>;
      for (const name of ["input", "output", "cacheRead", "cacheWrite", "total"]) {
        if (name in c && typeof c[name] !== "number") {
          this.add(
            "wrong-type",
            `\`usage.cost.${name}\` should be a number, not ${describe(c[name])}. Pi adds it into the session's cost.`,
            this.valueSpan([...path, "cost", name]),
          );
        }
      }
    }
  }

  private checkReplacement(): void {
    const replacement = this.object.replacement;
    if (jsonKind(replacement) !== "object") return;
    const fields = [
      { name: "content", kinds: ["string", "array"] as const, required: true, effect: "Pi 1.x then replaces the target's content with nothing valid." },
    ];
    this.checkFields(replacement as Record<string, unknown>, ["replacement"], fields, "a replacement");
  }

  private checkUsageKind(): void {
    // Pi 1.x's own writers use "cache_warm"; any other kind is counted as ordinary usage.
    const kind = this.object.kind;
    if (typeof kind === "string" && kind !== "cache_warm") {
      this.add("unknown-usage-kind", `Unknown usage kind "${kind}". Pi counts it as ordinary usage.`, this.valueSpan(["kind"]));
    }
  }

  private checkFields(object: Record<string, unknown>, path: JsonPath, fields: readonly FieldSpec[], what: string, defaultEffect = ""): void {
    // Nearly every line is well formed: a check that allocates nothing settles those first.
    if (fieldsValid(object, fields)) return;
    for (const field of fields) {
      const value = object[field.name];
      const effect = (value === undefined ? undefined : field.effectOf?.(value)) ?? field.effect ?? defaultEffect;
      const name = [...path, field.name].join(".");
      if (value === undefined) {
        if (field.required) this.add("missing-field", `${capitalize(what)} should have \`${field.name}\`. ${effect}`.trimEnd(), this.anchorFor(path), name);
        continue;
      }
      if (!field.kinds.includes(jsonKind(value))) {
        this.add(
          "wrong-type",
          `\`${field.name}\` should be ${field.kinds.join(" or ")}, not ${describe(value)}. ${effect}`.trimEnd(),
          this.valueSpan([...path, field.name]),
          name,
        );
        continue;
      }
      if (field.iso && typeof value === "string" && !isIsoTimestamp(value)) {
        // Pi reads timestamps with `new Date()`: a string it can still read loses nothing but its form.
        const readable = !Number.isNaN(new Date(value).getTime());
        const message = readable
          ? `\`${field.name}\` "${clip(value)}" is not in the form Pi writes (2026-01-31T12:00:00.000Z, UTC). Pi still reads it with \`new Date()\`, as local time unless it names a zone.`
          : `\`${field.name}\` "${clip(value)}" is not a time Pi can read (Pi writes 2026-01-31T12:00:00.000Z). ${effect}`;
        this.add("invalid-timestamp", message.trimEnd(), this.valueSpan([...path, field.name]), name);
      }
    }
  }

  /** Where to put a "missing field" finding: the role of a message, the type of a block or entry. */
  private anchorFor(path: JsonPath): Span {
    const candidates: JsonPath[] = path.length === 0 ? [["type"]] : path.length === 1 ? [[...path, "role"], path] : [[...path, "type"], path];
    for (const candidate of candidates) {
      const found = locate(this.text, candidate);
      if (found) return found.value;
    }
    return this.wholeObject();
  }

  private valueSpan(path: JsonPath): Span {
    return locate(this.text, path)?.value ?? this.wholeObject();
  }

  private keySpan(path: JsonPath): Span {
    const found = locate(this.text, path);
    return found?.key ?? found?.value ?? this.wholeObject();
  }

  private wholeObject(): Span {
    const start = this.text.length - this.text.trimStart().length;
    return { start, end: this.text.trimEnd().length };
  }

  private add(code: DiagnosticCode, message: string, span: Span, field?: string): void {
    this.findings.push(field === undefined ? { code, message, span } : { code, message, span, field });
  }
}

export function describe(value: unknown): string {
  const kind = jsonKind(value);
  switch (kind) {
    case "null":
      return "null";
    case "string":
      return `the string "${clip(value as string)}"`;
    case "number":
    case "boolean":
      return `${kind} ${String(value)}`;
    default:
      return `an ${kind}`;
  }
}

function toolCallIdsOf(content: unknown[]): string[] | undefined {
  let ids: string[] | undefined;
  for (const block of content) {
    if (block === null || typeof block !== "object") continue;
    const b = block as Record<string, unknown>;
    if (b.type === "toolCall" && typeof b.id === "string") (ids ??= []).push(b.id);
  }
  return ids;
}

/** Whether every field is present when required, of an allowed kind, and a valid time where it must be. */
function fieldsValid(object: Record<string, unknown>, fields: readonly FieldSpec[]): boolean {
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    const value = object[field.name];
    if (value === undefined) {
      if (field.required) return false;
      continue;
    }
    if (!field.kinds.includes(jsonKind(value))) return false;
    if (field.iso && !isIsoTimestamp(value as string)) return false;
  }
  return true;
}

/** "an assistant", "an entry", but "a user", "a usage": the words here that start with "u" sound like "you". */
function article(word: string): string {
  return /^[aeio]/i.test(word) ? "an" : "a";
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
