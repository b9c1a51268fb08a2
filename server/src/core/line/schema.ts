/**
 * The shapes Pi writes: the header, the entry base, every entry type and every message role, as
 * data. Field checks, and later hovers and completion, read these tables instead of hard-coding
 * field names, so a new entry type is one row here.
 *
 * Pi itself validates none of these fields when it loads a file; the tables say what Pi *writes*,
 * and each row notes what Pi does with the field, so that a diagnostic can say what a wrong value
 * will do.
 */

/** The JSON kinds a value can have, as `jsonKind` reports them. */
export type JsonKind = "string" | "number" | "boolean" | "null" | "array" | "object" | "undefined";

/** A parsed JSON object whose members can be read, or undefined for arrays, null and primitives. */
export function asObject(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The JSON kind of a parsed value; "undefined" for a member that is absent. */
export function jsonKind(value: unknown): JsonKind {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  const t = typeof value;
  if (t === "string" || t === "number" || t === "boolean") return t;
  return "object";
}

export interface FieldSpec {
  name: string;
  kinds: readonly JsonKind[];
  required: boolean;
  /** Whether the value is a timestamp string in ISO 8601 form. */
  iso?: boolean;
  /**
   * What follows when the field is missing or of the wrong type, as a sentence that fits both
   * cases. Fields without one use the default of their table.
   */
  effect?: string;
  /** What follows from this particular wrong value, where that depends on the value. */
  effectOf?: (value: unknown) => string | undefined;
}

export interface EntryTypeSpec {
  type: string;
  summary: string;
  /** How the entry reaches the model's context, or why it does not. */
  context: string;
  since: string;
  fields: readonly FieldSpec[];
}

export interface RoleSpec {
  role: string;
  summary: string;
  /** How Pi turns the message into model input (`convertToLlm` in Pi's `core/messages.ts`). */
  toModel: string;
  fields: readonly FieldSpec[];
}

const req = (name: string, kinds: readonly JsonKind[], effect?: string): FieldSpec => ({ name, kinds, required: true, effect });
const opt = (name: string, kinds: readonly JsonKind[], effect?: string): FieldSpec => ({ name, kinds, required: false, effect });

const STR: readonly JsonKind[] = ["string"];
const NUM: readonly JsonKind[] = ["number"];
const BOOL: readonly JsonKind[] = ["boolean"];
const OBJ: readonly JsonKind[] = ["object"];
const ARR: readonly JsonKind[] = ["array"];
const CONTENT: readonly JsonKind[] = ["string", "array"];

const MODEL_EFFECT = "The context's model is then not a valid model.";
const USAGE_EFFECT = "Pi then cannot attribute this usage in the session's cost.";

export const HEADER_FIELDS: readonly FieldSpec[] = [
  // The header's `id` is not listed: a header without a string id is `invalid-header`, a whole-file fault.
  { name: "timestamp", kinds: STR, required: true, iso: true, effect: "Pi's session list then shows no valid creation time." },
  req("cwd", STR, "Pi then has no valid working directory for the session."),
  opt("parentSession", STR, "Pi then shows no valid parent session."),
];

/** What Pi does with an `id` that is not a string: its `byId` map files the entry under the value itself. */
function idEffect(value: unknown): string | undefined {
  const kind = jsonKind(value);
  if (kind === "number" || kind === "boolean")
    return `Pi files the entry under the ${kind} ${String(value)}: only a parentId holding that same ${kind} finds it (the string "${String(value)}" does not).`;
  if (kind === "null") return "Pi files the entry under null, which no parent lookup asks for: nothing can refer to this entry.";
  if (kind === "object" || kind === "array") return `Pi files the entry under this ${kind}, which no other value equals: nothing can refer to this entry.`;
  return undefined;
}

/** What Pi does with a `parentId` that is neither a string nor null: `parentId ? byId.get(parentId) : undefined`. */
function parentIdEffect(value: unknown): string | undefined {
  const kind = jsonKind(value);
  if (!value) return "Pi reads a falsy parentId as no parent: the entry is a root.";
  if (kind === "number" || kind === "boolean")
    return `Pi looks the parent up by the ${kind} ${String(value)}, which only an id holding that same ${kind} matches.`;
  if (kind === "object" || kind === "array") return `Pi looks the parent up by this ${kind}, which no id equals: the entry is a root.`;
  return undefined;
}

export const BASE_FIELDS: readonly FieldSpec[] = [
  { ...req("id", STR, "Nothing can refer to this entry."), effectOf: idEffect },
  { ...req("parentId", ["string", "null"], "Pi then treats the entry as a root."), effectOf: parentIdEffect },
  { name: "timestamp", kinds: STR, required: true, iso: true, effect: "Pi then cannot order this entry among sibling branches." },
];

/** The effect of a bad field in a message or content block, unless the field says otherwise. */
export const MESSAGE_FIELD_EFFECT = "Pi sends the message to the model as it is, which the provider may reject.";

export const ENTRY_TYPES: readonly EntryTypeSpec[] = [
  {
    type: "message",
    summary: "A conversation message (user, assistant, tool result, bash execution, custom or system).",
    context: "Yes: the stored message is sent as it is.",
    since: "v1",
    fields: [req("message", OBJ)],
  },
  {
    type: "thinking_level_change",
    summary: "Changes the thinking level for the rest of the branch.",
    context: "No message; sets the context's thinking level.",
    since: "v1",
    fields: [req("thinkingLevel", STR, "The context's thinking level is then not a valid level.")],
  },
  {
    type: "model_change",
    summary: "Switches the model for the rest of the branch.",
    context: "No message; sets the context's model.",
    since: "v1",
    fields: [req("provider", STR, MODEL_EFFECT), req("modelId", STR, MODEL_EFFECT)],
  },
  {
    type: "compaction",
    summary: "Replaces the history before `firstKeptEntryId` with a summary.",
    context: "Yes: the last compaction on the path becomes a compaction summary message.",
    since: "v1",
    fields: [
      req("summary", STR, "The model then receives no real summary of the compacted history."),
      req("firstKeptEntryId", STR, "Pi then keeps nothing from before the compaction."),
      req("tokensBefore", NUM, "Pi then shows no valid token count for the compaction."),
      opt("fromHook", BOOL, "Pi then cannot tell whether an extension wrote the compaction."),
      opt("usage", OBJ, "Pi then cannot count the compaction's cost."),
      opt("systemMessage", OBJ, "Pi 1.x then sends an invalid system message before the summary."),
    ],
  },
  {
    type: "branch_summary",
    summary: "Summarises a branch that was left, at the point where the conversation continues.",
    context: "Yes, when `summary` is not empty: a branch summary message.",
    since: "v2",
    fields: [
      req("fromId", STR, "The summary then names no branch."),
      req("summary", STR, "The summary then contributes nothing, or an invalid message, to the context."),
      opt("fromHook", BOOL, "Pi then cannot tell whether an extension wrote the summary."),
      opt("usage", OBJ, "Pi then cannot count the summary's cost."),
    ],
  },
  {
    type: "custom",
    summary: "State saved by an extension.",
    context: "No.",
    since: "v2",
    fields: [req("customType", STR, "Extensions then cannot recognise this entry.")],
  },
  {
    type: "custom_message",
    summary: "A message injected by an extension.",
    context: "Yes: a custom message (sent to the model as user input).",
    since: "v2",
    fields: [
      req("customType", STR, "Extensions then cannot recognise this message."),
      req("content", CONTENT, "The model then receives an invalid message."),
      req("display", BOOL, "Pi then cannot tell whether to show the message."),
    ],
  },
  {
    type: "label",
    summary: "Sets or clears a bookmark label on another entry.",
    context: "No.",
    since: "v2",
    fields: [req("targetId", STR, "The label then applies to no entry."), opt("label", STR, "Pi then sets no usable label.")],
  },
  {
    type: "session_info",
    summary: "Names the session; the last one in the file wins.",
    context: "No.",
    since: "v3",
    fields: [opt("name", STR, "Reading the session name then throws in Pi (`name.trim is not a function`), which breaks its session list.")],
  },
  {
    type: "usage",
    summary: "Token usage not tied to a message (for example cache warming); counted in cost totals.",
    context: "No; counted in the session's cost.",
    since: "Pi 0.87 (1.x)",
    fields: [
      req("kind", STR, USAGE_EFFECT),
      req("provider", STR, USAGE_EFFECT),
      req("model", STR, USAGE_EFFECT),
      req("usage", OBJ, "Pi then cannot count this usage in the session's cost."),
      opt("note", STR, "Pi then shows no valid note."),
    ],
  },
  {
    type: "context_edit",
    summary: "Replaces or removes the content another entry contributes to the context.",
    context: "No message of its own; edits its target's message (Pi 1.x only).",
    since: "Pi 0.87 (1.x)",
    fields: [req("targetId", STR, "The edit then applies to no entry."), req("replacement", ["object", "null"], "Pi 1.x then cannot apply the edit.")],
  },
];

export const ENTRY_TYPE_BY_NAME: ReadonlyMap<string, EntryTypeSpec> = new Map(ENTRY_TYPES.map((t) => [t.type, t]));

/**
 * The header (`type: "session"`), described like an entry type for hovers. It is not in
 * `ENTRY_TYPES`: it is not an entry, and its checks use `HEADER_FIELDS`, which leave out `id` and
 * `version` because their faults concern the whole file.
 */
export const SESSION_HEADER_TYPE: EntryTypeSpec = {
  type: "session",
  summary:
    "The session header. It must be the first parseable line, with a string `id`: otherwise Pi 0.73/0.74 overwrites the file with a fresh header and Pi 1.x refuses to open it. Later `session` lines are ignored.",
  context: "No; it names the session, its working directory and the file it was forked from.",
  since: "v1 (`version` since v2; the current version is 3)",
  fields: [req("id", STR), opt("version", NUM, "An absent version means v1: Pi migrates the file and rewrites it with random ids."), ...HEADER_FIELDS],
};

const TS = (): FieldSpec => req("timestamp", NUM, "Pi then cannot date this message.");

export const ROLES: readonly RoleSpec[] = [
  { role: "user", summary: "What the user typed.", toModel: "Sent as it is, as a user message.", fields: [req("content", CONTENT), TS()] },
  {
    role: "assistant",
    summary: "A model reply: text, thinking and tool calls.",
    toModel: "Sent as it is: the provider replays its text, thinking and tool calls.",
    fields: [
      req("content", ARR),
      req("api", STR),
      req("provider", STR, MODEL_EFFECT),
      req("model", STR, MODEL_EFFECT),
      req("usage", OBJ, "Pi then cannot count this reply's tokens and cost."),
      req("stopReason", STR),
      TS(),
      opt("errorMessage", STR),
    ],
  },
  {
    role: "toolResult",
    summary: "The result of a tool call, answering a `toolCall` block of an earlier assistant message.",
    toModel: "Sent as it is; providers reject a tool result whose `toolCallId` answers no tool call before it.",
    fields: [
      req("toolCallId", STR, "The result then answers no tool call, which providers reject."),
      req("toolName", STR),
      req("content", ARR),
      req("isError", BOOL),
      TS(),
    ],
  },
  {
    role: "bashExecution",
    summary: "A shell command the user ran with `!`; sent to the model as user text unless excluded.",
    toModel:
      'Turned into a user text message: Ran `command`, then the output in a code block (or "(no output)") and notes on cancellation, exit code and truncation. Dropped when `excludeFromContext` is true.',
    fields: [
      req("command", STR),
      req("output", STR),
      opt("exitCode", ["number", "null"]),
      req("cancelled", BOOL),
      req("truncated", BOOL),
      opt("fullOutputPath", STR),
      opt("excludeFromContext", BOOL),
      TS(),
    ],
  },
  {
    role: "custom",
    summary: "An extension's message; sent to the model as user input.",
    toModel: "Turned into a user message with its `content`.",
    fields: [req("customType", STR), req("content", CONTENT), req("display", BOOL), TS()],
  },
  {
    role: "system",
    summary: "A system prompt update (Pi 1.x): prompt sections patched by name, tools added and removed.",
    toModel:
      "Pi 1.x sends it as a system message; for providers without mid-conversation system messages, all of them are replayed into one leading system message. Pi 0.73/0.74 does not know the role and drops it.",
    fields: [req("content", CONTENT), opt("sections", OBJ), opt("toolsAdded", ARR), opt("toolsRemoved", ARR), TS()],
  },
  {
    role: "branchSummary",
    summary: "A branch summary; Pi produces it while building the context and never stores it.",
    toModel: "Turned into a user message: the branch summary prefix, the summary, the suffix.",
    fields: [req("summary", STR), TS()],
  },
  {
    role: "compactionSummary",
    summary: "A compaction summary; Pi produces it while building the context and never stores it.",
    toModel:
      'Turned into a user message: "The conversation history before this point was compacted into the following summary:", then the summary in `<summary>` tags.',
    fields: [req("summary", STR), TS()],
  },
  {
    role: "hookMessage",
    summary: "The v2 name of the `custom` role; Pi renames it when it migrates a v2 file.",
    toModel: "In a v2 file Pi renames it to `custom` on open, which is sent as user input; in a v3 file it stays an unknown role and is dropped.",
    fields: [req("customType", STR), req("content", CONTENT), req("display", BOOL), TS()],
  },
];

export const ROLE_BY_NAME: ReadonlyMap<string, RoleSpec> = new Map(ROLES.map((r) => [r.role, r]));

/** Content block types and their fields, for roles whose content is an array of blocks. */
export const BLOCK_FIELDS: ReadonlyMap<string, readonly FieldSpec[]> = new Map([
  ["text", [req("text", STR)]],
  ["thinking", [req("thinking", STR)]],
  ["image", [req("data", STR), req("mimeType", STR)]],
  ["toolCall", [req("id", STR), req("name", STR), req("arguments", OBJ)]],
]);

/** Numeric fields of a `Usage` object. */
export const USAGE_NUMBERS: readonly string[] = ["input", "output", "cacheRead", "cacheWrite", "totalTokens"];

/** `usage` entry kinds Pi itself writes; any other kind is counted as ordinary usage. */
export const KNOWN_USAGE_KINDS: ReadonlySet<string> = new Set(["cache_warm"]);

export const CURRENT_VERSION = 3;
