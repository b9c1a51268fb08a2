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

import { type IdKey, idKeyOf } from "./ids";
import { checkLine, type LineFinding } from "./lineFindings";
import { rememberValue, lineValue } from "./values";
import { ENTRY_TYPE_BY_NAME, isoTime, ROLE_BY_NAME } from "./schema";

export type { LineFinding } from "./lineFindings";

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

/**
 * Makes the record of a line that parses from its text and facts, for a document that keeps its
 * lines its own way (the streamed check keeps the text on disk): made once, instead of a record
 * holding the text and then a copy of its facts.
 */
export type ValueLineMaker = (text: string, facts: LineFacts) => CachedValueLine;

export function parseLine(text: string): ParsedLine {
  return parseLineWith(text, undefined);
}

/** `parseLine`, the record of a line that parses made by `make` (see `ValueLineMaker`); a function apart, so that `lines.map(parseLine)` passes no index for it. */
export function parseLineWith(text: string, make: ValueLineMaker | undefined): ParsedLine {
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
    const found = checkLine(text, object, type);
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
  const facts: LineFacts = {
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
  };
  const line = make === undefined ? new ParsedValueLine(text, facts) : make(text, facts);
  rememberValue(line, value);
  return line;
}

/**
 * The facts that most lines do not have, held apart so that the common line carries one pointer
 * (undefined) for all of them. `type` and `role` are here only when they are not among the names
 * `TYPE_NAMES` and `ROLE_NAMES` number; `idKey` and `parentKey` only when they differ from `id` and
 * `parentId` (a number id, say).
 */
export interface RareFacts {
  type?: string;
  role?: string;
  idKey?: IdKey;
  parentKey?: IdKey;
  model?: { provider: unknown; modelId: unknown };
  thinkingLevel?: unknown;
  /** One id as the string itself (most assistant messages call one tool), several as an array. */
  toolCallIds?: string | string[];
  toolResultId?: string;
  reference?: IdKey;
  findings?: readonly LineFinding[];
}

/** The entry types and roles a line's facts number in a few bits (0 stands for "absent"). */
const TYPE_NAMES: readonly (string | undefined)[] = [undefined, "session", ...ENTRY_TYPE_BY_NAME.keys()];
const ROLE_NAMES: readonly (string | undefined)[] = [undefined, ...ROLE_BY_NAME.keys()];
const TYPE_CODE = new Map(TYPE_NAMES.map((name, code) => [name, code]));
const ROLE_CODE = new Map(ROLE_NAMES.map((name, code) => [name, code]));
/** The code of a type or role held in `RareFacts` instead. */
const OTHER = 31;

// The bits of `CachedValueLine.bits`.
const FALSY = 1;
const IS_OBJECT = 2;
const LOOKS_LIKE_PI = 4;
const NO_MESSAGE = 8;
/** Whether `idKey` is in `RareFacts` (else it is `id`). */
const RARE_ID_KEY = 16;
/** Whether `parentKey` is in `RareFacts` (else it is `parentId`). */
const RARE_PARENT_KEY = 32;
const TYPE_SHIFT = 6;
const ROLE_SHIFT = 11;

/**
 * Every line naming the same provider and model as strings (most assistant messages of a session)
 * shares one object: the facts are read, never changed. Bounded, so that a file of a million
 * distinct models keeps its own objects instead of growing the table.
 */
const models = new Map<string, { provider: unknown; modelId: unknown }>();
const MAX_MODELS = 1000;

function sharedModel(model: { provider: unknown; modelId: unknown }): { provider: unknown; modelId: unknown } {
  const { provider, modelId } = model;
  if (typeof provider !== "string" || typeof modelId !== "string" || provider.length + modelId.length > 200) return model;
  const key = `${provider}\u0000${modelId}`;
  const shared = models.get(key);
  if (shared) return shared;
  if (models.size < MAX_MODELS) models.set(key, model);
  return model;
}

/**
 * A line that parses, with the facts every feature reads (ids, links, types, roles, findings) and
 * its value fetched through the cache (`values.ts`), which parses its text again when the value was
 * let go. Each kind of line keeps the text its own way: in memory for a document being edited, on
 * disk for a streamed check (`node/streamedDocument.ts`).
 *
 * The facts are packed, because there is one such object per line (50,000 in a 45 MB session,
 * millions in a streamed check): the ids and the time as fields, the flags, the type and the role
 * as numbers in one small integer, and the facts most lines lack in one optional object. The
 * getters give every `LineFacts` member back as it was parsed.
 */
export abstract class CachedValueLine implements ValueLine {
  readonly kind = "value";
  readonly id: string | undefined;
  readonly parentId: string | null | undefined;
  readonly time: number | undefined;
  private readonly bits: number;
  private readonly rare: RareFacts | undefined;

  /** The JSON text the value was parsed from (line 0 without its byte order mark). */
  abstract readonly text: string;

  /** Packs `facts`, keeping nothing else of it (another line's text, say). */
  constructor(facts: LineFacts | Packed) {
    if (facts instanceof Packed) {
      const { id, parentId, time, bits, rare } = facts.facts;
      this.id = id;
      this.parentId = parentId;
      this.time = time;
      this.bits = bits;
      // Lines parsed by another thread share this thread's model objects, as if parsed here.
      if (rare?.model) rare.model = sharedModel(rare.model);
      this.rare = rare;
      return;
    }
    if (facts instanceof CachedValueLine) {
      this.id = facts.id;
      this.parentId = facts.parentId;
      this.time = facts.time;
      this.bits = facts.bits;
      this.rare = facts.rare;
      return;
    }
    this.id = facts.id;
    this.parentId = facts.parentId;
    this.time = facts.time;
    let rare: RareFacts | undefined;
    const more = (): RareFacts => {
      rare ??= {};
      return rare;
    };
    let bits = (facts.falsy ? FALSY : 0) | (facts.isObject ? IS_OBJECT : 0) | (facts.looksLikePi ? LOOKS_LIKE_PI : 0) | (facts.noMessage ? NO_MESSAGE : 0);
    let typeCode = TYPE_CODE.get(facts.type);
    if (typeCode === undefined) {
      typeCode = OTHER;
      more().type = facts.type;
    }
    let roleCode = ROLE_CODE.get(facts.role);
    if (roleCode === undefined) {
      roleCode = OTHER;
      more().role = facts.role;
    }
    bits |= (typeCode << TYPE_SHIFT) | (roleCode << ROLE_SHIFT);
    if (facts.idKey !== facts.id) {
      bits |= RARE_ID_KEY;
      more().idKey = facts.idKey;
    }
    if (facts.parentKey !== facts.parentId) {
      bits |= RARE_PARENT_KEY;
      more().parentKey = facts.parentKey;
    }
    if (facts.model !== undefined) more().model = sharedModel(facts.model);
    if (facts.thinkingLevel !== undefined) more().thinkingLevel = facts.thinkingLevel;
    if (facts.toolCallIds !== undefined) more().toolCallIds = facts.toolCallIds.length === 1 ? facts.toolCallIds[0]! : facts.toolCallIds;
    if (facts.toolResultId !== undefined) more().toolResultId = facts.toolResultId;
    if (facts.reference !== undefined) more().reference = facts.reference;
    if (facts.findings.length > 0) more().findings = facts.findings;
    this.bits = bits;
    this.rare = rare;
  }

  /** The facts as this line holds them, in a form that crosses threads (`unpackedLine` makes the line again). */
  static packed(line: CachedValueLine): PackedFacts {
    return { id: line.id, parentId: line.parentId, time: line.time, bits: line.bits, rare: line.rare };
  }

  get falsy(): boolean {
    return (this.bits & FALSY) !== 0;
  }

  get isObject(): boolean {
    return (this.bits & IS_OBJECT) !== 0;
  }

  get looksLikePi(): boolean {
    return (this.bits & LOOKS_LIKE_PI) !== 0;
  }

  get noMessage(): boolean {
    return (this.bits & NO_MESSAGE) !== 0;
  }

  get type(): string | undefined {
    const code = (this.bits >> TYPE_SHIFT) & 31;
    return code === OTHER ? this.rare!.type : TYPE_NAMES[code];
  }

  get role(): string | undefined {
    const code = (this.bits >> ROLE_SHIFT) & 31;
    return code === OTHER ? this.rare!.role : ROLE_NAMES[code];
  }

  get idKey(): IdKey {
    return this.bits & RARE_ID_KEY ? this.rare!.idKey : this.id;
  }

  get parentKey(): IdKey {
    return this.bits & RARE_PARENT_KEY ? this.rare!.parentKey : this.parentId;
  }

  get model(): { provider: unknown; modelId: unknown } | undefined {
    return this.rare?.model;
  }

  get thinkingLevel(): unknown {
    return this.rare?.thinkingLevel;
  }

  get toolCallIds(): string[] | undefined {
    const ids = this.rare?.toolCallIds;
    // A one-element array costs 32 bytes more than its string, on thousands of lines.
    return typeof ids === "string" ? [ids] : ids;
  }

  get toolResultId(): string | undefined {
    return this.rare?.toolResultId;
  }

  get reference(): IdKey {
    return this.rare?.reference;
  }

  get findings(): readonly LineFinding[] {
    return this.rare?.findings ?? NO_FINDINGS;
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

/** The packed facts of a `CachedValueLine`: plain data, which a worker thread sends (see `core/packedLines.ts`). */
export interface PackedFacts {
  id: string | undefined;
  parentId: string | null | undefined;
  time: number | undefined;
  bits: number;
  rare: RareFacts | undefined;
}

/** Packed facts to be taken as they are by the constructor. */
class Packed {
  constructor(readonly facts: PackedFacts) {}
}

/** The line of text `text` (its JSON text, as `parseLine` was given it) whose parse packed to `facts`: equal to `parseLine(text)`. */
export function unpackedLine(text: string, facts: PackedFacts): ValueLine {
  return new ParsedValueLine(text, new Packed(facts));
}

/** A line of a document being edited: its text is held, by the document anyway. A primitive value (a number, `null`…) is small and kept. */
class ParsedValueLine extends CachedValueLine {
  constructor(
    readonly text: string,
    facts: LineFacts | Packed,
  ) {
    super(facts);
  }
}

function toolCallIdsOf(content: unknown[]): string[] | undefined {
  let ids: string[] | undefined;
  for (const block of content) {
    if (block === null || typeof block !== "object") continue;
    const b = block as Record<string, unknown>;
    if (b.type === "toolCall" && typeof b.id === "string") (ids ??= []).push(b.id);
  }
  // An array grown by `push` keeps room for 16 elements; the copy is as long as its content, and it
  // stays for the life of the line.
  return ids?.slice();
}
