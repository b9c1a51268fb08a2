/**
 * The record of a line that parses: `parseLine`'s facts (`LineFacts`), packed, because there is one
 * such record per line (50,000 in a 45 MB session, millions in a streamed check), and its value
 * fetched through the cache (`values.ts`). `parse.ts` makes the facts; this module only stores them
 * and gives them back, and packs them as plain data for another thread (`packedLines.ts`).
 */

import type { IdKey } from "../base/ids";
import type { LineFinding } from "./findings";
import type { LineFacts, ValueLine } from "./facts";
import { ENTRY_TYPE_BY_NAME, ROLE_BY_NAME } from "./schema";
import { lineValue } from "./values";

/** The findings of most lines: none, one shared empty array instead of 50,000. */
export const NO_FINDINGS: readonly LineFinding[] = Object.freeze([]);

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
  /** The time when it does not pack into the line's own fields (see `PACKED_TIME`). */
  time?: number;
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
/** Whether the text was stored another way (`textStored`); not a fact of the parse, so never packed or copied. */
const TEXT_STORED = 1 << 16;
/**
 * Whether the time is packed: its quotient by `TIME_DIVISOR` in `storedTime` (a small integer,
 * stored in the field itself) and the remainder in the bits from `TIME_SHIFT` on. A time as a number
 * of its own is a 16-byte heap number, one per line. A time that does not fit (before 1970, after
 * the year 2527, not whole milliseconds) is held in the rare facts instead, so that `storedTime`
 * never holds a fraction (V8 would then box every line's).
 */
const PACKED_TIME = 1 << 17;
const TIME_SHIFT = 18;
const TIME_DIVISOR = 1 << 13;
const TIME_BITS = PACKED_TIME | ((TIME_DIVISOR - 1) << TIME_SHIFT);
/** The largest time that packs: its quotient fits a small integer (31 bits). */
const MAX_PACKED_TIME = 2 ** 31 * TIME_DIVISOR - 1;

function packs(time: number | undefined): time is number {
  return time !== undefined && Number.isInteger(time) && time >= 0 && time <= MAX_PACKED_TIME;
}

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
 * The tool call ids of the lines made last, newest last, so that a tool result's `toolResultId` is
 * the very string of the call it answers, a few lines above it, instead of a copy of it (48 bytes
 * for each of the 20,000 results of a 45 MB session). A ring of the last `RECENT_CALL_IDS`, read
 * from the newest: a result answers one of the last few calls, and comparing it with those costs
 * less than the map this was (hashing every call's id and every result's, 11 ms of a `check` of
 * that session).
 */
const RECENT_CALL_IDS = 64;
const recentCallIds: string[] = new Array(RECENT_CALL_IDS).fill("");
let nextCallId = 0;

function rememberCallIds(ids: string | readonly string[]): void {
  if (typeof ids === "string") rememberCallId(ids);
  else for (const id of ids) rememberCallId(id);
}

function rememberCallId(id: string): void {
  recentCallIds[nextCallId] = id;
  nextCallId = (nextCallId + 1) % RECENT_CALL_IDS;
}

function sharedCallId(id: string): string {
  for (let back = 1; back <= RECENT_CALL_IDS; back++) {
    const recent = recentCallIds[(nextCallId - back + RECENT_CALL_IDS) % RECENT_CALL_IDS]!;
    if (recent === id) return recent;
  }
  return id;
}

/**
 * A line that parses, with the facts every feature reads (ids, links, types, roles, findings) and
 * its value fetched through the cache (`values.ts`), which parses its text again when the value was
 * let go. Each kind of line keeps the text its own way: in memory for a document being edited, on
 * disk for a streamed check (`io/streamedDocument.ts`).
 *
 * The facts are packed, because there is one such object per line (50,000 in a 45 MB session,
 * millions in a streamed check): the ids as fields, the flags, the type, the role and part of the
 * time as numbers in one small integer (the rest of the time in a field of its own), and the facts
 * most lines lack in one optional object. The
 * getters give every `LineFacts` member back as it was parsed.
 */
export abstract class CachedValueLine implements ValueLine {
  /** On the prototype (below), the same for every line: a field of its own took 8 bytes a line. */
  declare readonly kind: "value";
  readonly id: string | undefined;
  readonly parentId: string | null | undefined;
  /** The time divided by `TIME_DIVISOR` when the bits hold it (`PACKED_TIME`), else undefined. */
  private readonly storedTime: number | undefined;
  private bits: number;
  /**
   * The rare facts; a string when the only one is `toolResultId` (a tool result's line, 40 % of a
   * session's entries), which saves each such line the 56 bytes of an object holding it.
   */
  private readonly rare: RareFacts | string | undefined;

  /** The JSON text the value was parsed from (line 0 without its byte order mark). */
  abstract readonly text: string;

  /** Packs `facts`, keeping nothing else of it (another line's text, say). */
  constructor(facts: LineFacts | Packed) {
    if (facts instanceof Packed) {
      const { id, parentId, time, bits } = facts.facts;
      let { rare } = facts.facts;
      this.id = id;
      this.parentId = parentId;
      this.storedTime = packs(time) ? Math.floor(time / TIME_DIVISOR) : undefined;
      this.bits = (bits & ~TIME_BITS) | timeBits(time);
      if (!packs(time) && time !== undefined) rare = { ...rare, time };
      // Lines parsed by another thread share this thread's model objects, as if parsed here.
      if (rare?.model) rare.model = sharedModel(rare.model);
      if (rare?.toolCallIds) rememberCallIds(rare.toolCallIds);
      if (rare?.toolResultId) rare.toolResultId = sharedCallId(rare.toolResultId);
      this.rare = compactRare(rare, rare === undefined ? 0 : factCount(rare));
      return;
    }
    if (facts instanceof CachedValueLine) {
      this.id = facts.id;
      this.parentId = facts.parentId;
      this.storedTime = facts.storedTime;
      this.bits = facts.bits & ~TEXT_STORED;
      this.rare = facts.rare;
      return;
    }
    this.id = facts.id;
    this.parentId = facts.parentId;
    const { time } = facts;
    this.storedTime = packs(time) ? Math.floor(time / TIME_DIVISOR) : undefined;
    let rare: RareFacts | undefined;
    // Each call sets one fact: the count says which of the compact forms the facts fit.
    let rareCount = 0;
    const more = (): RareFacts => {
      rare ??= {};
      rareCount++;
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
    if (facts.toolCallIds !== undefined) {
      more().toolCallIds = facts.toolCallIds.length === 1 ? facts.toolCallIds[0]! : facts.toolCallIds;
      rememberCallIds(facts.toolCallIds);
    }
    if (facts.toolResultId !== undefined) more().toolResultId = sharedCallId(facts.toolResultId);
    if (facts.reference !== undefined) more().reference = facts.reference;
    if (facts.findings.length > 0) more().findings = facts.findings;
    if (!packs(time) && time !== undefined) more().time = time;
    this.bits = bits | timeBits(time);
    this.rare = compactRare(rare, rareCount);
  }

  /** The facts as this line holds them, in a form that crosses threads (`unpackedLine` makes the line again). */
  static packed(line: CachedValueLine): PackedFacts {
    const rare = line.rare;
    return {
      id: line.id,
      parentId: line.parentId,
      time: line.time,
      bits: line.bits & ~(TEXT_STORED | TIME_BITS),
      rare: typeof rare === "string" ? { toolResultId: rare } : rare,
    };
  }

  /** The rare facts held as an object (none when the only one is `toolResultId`, held as a string). */
  private get rareFacts(): RareFacts | undefined {
    const rare = this.rare;
    return typeof rare === "string" ? undefined : rare;
  }

  /**
   * Whether the line's text was put in place of itself stored another way (a rope of one-byte
   * pieces, `SessionDocument.storeLineAs`): reading the text to find out would undo that. A bit of
   * the line's own, where a table of the lines so stored took 0.5 MB for the 45 MB session.
   */
  get textStored(): boolean {
    return (this.bits & TEXT_STORED) !== 0;
  }

  /** Records that the text was stored another way (`textStored`). */
  markTextStored(): void {
    this.bits |= TEXT_STORED;
  }

  get time(): number | undefined {
    const bits = this.bits;
    if (bits & PACKED_TIME) return this.storedTime! * TIME_DIVISOR + ((bits >>> TIME_SHIFT) & (TIME_DIVISOR - 1));
    return this.rareFacts?.time;
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
    return code === OTHER ? this.rareFacts!.type : TYPE_NAMES[code];
  }

  get role(): string | undefined {
    const code = (this.bits >> ROLE_SHIFT) & 31;
    return code === OTHER ? this.rareFacts!.role : ROLE_NAMES[code];
  }

  get idKey(): IdKey {
    return this.bits & RARE_ID_KEY ? this.rareFacts!.idKey : this.id;
  }

  get parentKey(): IdKey {
    return this.bits & RARE_PARENT_KEY ? this.rareFacts!.parentKey : this.parentId;
  }

  get model(): { provider: unknown; modelId: unknown } | undefined {
    return this.rareFacts?.model;
  }

  get thinkingLevel(): unknown {
    return this.rareFacts?.thinkingLevel;
  }

  get toolCallIds(): string[] | undefined {
    const ids = this.rareFacts?.toolCallIds;
    // A one-element array costs 32 bytes more than its string, on thousands of lines.
    return typeof ids === "string" ? [ids] : ids;
  }

  get toolResultId(): string | undefined {
    const rare = this.rare;
    return typeof rare === "string" ? rare : rare?.toolResultId;
  }

  get reference(): IdKey {
    return this.rareFacts?.reference;
  }

  get findings(): readonly LineFinding[] {
    return this.rareFacts?.findings ?? NO_FINDINGS;
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

/** The bits that hold the rest of `time` when it packs (`PACKED_TIME`), else 0. */
function timeBits(time: number | undefined): number {
  return packs(time) ? PACKED_TIME | ((time % TIME_DIVISOR) << TIME_SHIFT) : 0;
}

/** How many facts `rare` holds. */
function factCount(rare: RareFacts): number {
  let count = 0;
  for (const key in rare) if (rare[key as keyof RareFacts] !== undefined) count++;
  return count;
}

/**
 * `rare`, which holds `count` facts, as a line holds it: its `toolResultId` alone when that is the
 * only fact, and an object of just the facts of an assistant's message (its model, and its tool
 * calls if it makes any) in the two forms most such facts take: an object literal holding exactly
 * its properties is 32 or 40 bytes, where one that properties were added to is 56 (22,500 of them
 * in the 45 MB session).
 */
function compactRare(rare: RareFacts | undefined, count: number): RareFacts | string | undefined {
  if (rare === undefined) return undefined;
  const { toolResultId, model, toolCallIds } = rare;
  if (count === 1 && toolResultId !== undefined) return toolResultId;
  if (count === 1 && model !== undefined) return { model };
  if (count === 2 && model !== undefined && toolCallIds !== undefined) return { model, toolCallIds };
  return rare;
}

Object.defineProperty(CachedValueLine.prototype, "kind", { value: "value", enumerable: true });

/** The packed facts of a `CachedValueLine`: plain data, which a worker thread sends (see `core/line/packed.ts`). */
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
export class ParsedValueLine extends CachedValueLine {
  constructor(
    readonly text: string,
    facts: LineFacts | Packed,
  ) {
    super(facts);
  }
}
