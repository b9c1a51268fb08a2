/**
 * The findings of one parsed line that need only its own text: missing fields, values of the wrong
 * kind, unknown types and roles, timestamps Pi cannot read. Spans are located in the line only for
 * the findings actually made, so a well-formed line costs one allocation-free pass over its fields.
 *
 * Like the parse that calls it, the check never throws: the result depends only on the line.
 */

import type { DiagnosticCode } from "../base/codes";
import { clip } from "../base/text";
import { locate, type JsonPath, type Span } from "./locate";
import {
  BASE_FIELDS,
  BLOCK_FIELDS,
  ENTRY_TYPE_BY_NAME,
  HEADER_FIELDS,
  MESSAGE_FIELD_EFFECT,
  ROLE_BY_NAME,
  USAGE_NUMBERS,
  jsonKind,
  type FieldSpec,
} from "./schema";
import { isIsoTimestamp } from "./isoTime";
import { findSecrets, maskSecret, SECRET_KIND_NAMES } from "./secrets";

/** A problem found in one line, positioned by UTF-16 offsets within that line. */
export interface LineFinding {
  code: DiagnosticCode;
  message: string;
  span: Span;
  /** The field a missing-field or wrong-type finding is about, as a dotted path ("message.role"). */
  field?: string;
}

/**
 * The findings of the line `text`, whose value is `object` and whose `type` is a string or undefined.
 * `withSecrets: false` leaves out the credentials found in its text (`secretFindings`), which come
 * last: a reader that appends them later has the same list.
 */
export function checkLine(text: string, object: Record<string, unknown>, type: string | undefined, withSecrets = true): LineFinding[] {
  const found: LineFinding[] = [];
  try {
    new LineChecker(text, object, found).check(type);
  } catch {
    // The checker is written not to throw; should a shape slip through anyway, the line keeps
    // the findings made so far rather than breaking the invariant that parsing never fails.
  }
  if (withSecrets) addSecretFindings(text, found);
  return found;
}

/**
 * The findings of the credentials in a line's text, the last of `checkLine`'s. They read the text
 * alone, not its value, so a parse may leave them for later (`core/line/deferredSecrets.ts`): they
 * are two thirds of the time of a line's checks.
 */
export function addSecretFindings(text: string, found: LineFinding[]): void {
  for (const secret of findSecrets(text)) {
    found.push({
      code: "secret",
      message: `This looks like ${SECRET_KIND_NAMES[secret.kind]} (${maskSecret(text, secret)}, ${secret.end - secret.start} characters). Pi sends it to the provider with the context, and it goes wherever the session is shared; \`pi-session-lsp redact\` writes a copy with each credential replaced.`,
      span: { start: secret.start, end: secret.end },
    });
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
    if (usageValid(u)) return;
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
      for (const name of COST_NUMBERS) {
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

/** What `checkUsage` reads, each a number when present: the usage's counts and its cost's. */
const COST_NUMBERS: readonly string[] = ["input", "output", "cacheRead", "cacheWrite", "total"];

/**
 * Whether `checkUsage` finds nothing in `u`, told with a load of each field by its name: every
 * assistant message has a usage, and the loops over the names' lists, which look each one up by a
 * name held in a variable, cost `check` 18 ms on a 45 MB session. Kept to the lists by the check below.
 */
function usageValid(u: Record<string, unknown>): boolean {
  const { input, output, cacheRead, cacheWrite, totalTokens, cost } = u;
  if (!(isNumberOrAbsent(input) && isNumberOrAbsent(output) && isNumberOrAbsent(cacheRead) && isNumberOrAbsent(cacheWrite) && isNumberOrAbsent(totalTokens)))
    return false;
  if (cost === undefined) return true;
  if (cost === null || typeof cost !== "object" || Array.isArray(cost)) return false;
  const c = cost as Record<string, unknown>;
  return (
    isNumberOrAbsent(c.input) && isNumberOrAbsent(c.output) && isNumberOrAbsent(c.cacheRead) && isNumberOrAbsent(c.cacheWrite) && isNumberOrAbsent(c.total)
  );
}

// `usageValid` names the fields of these lists one by one: a name added to a list must be added there too.
if (USAGE_NUMBERS.join() !== "input,output,cacheRead,cacheWrite,totalTokens" || COST_NUMBERS.join() !== "input,output,cacheRead,cacheWrite,total")
  throw new Error("usageValid no longer reads the fields checkUsage checks");

/** A JSON value's field: absent (no JSON value is undefined), or a number. */
function isNumberOrAbsent(value: unknown): boolean {
  return value === undefined || typeof value === "number";
}

/** "an assistant", "an entry", but "a user", "a usage": the words here that start with "u" sound like "you". */
function article(word: string): string {
  return /^[aeio]/i.test(word) ? "an" : "a";
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
