/**
 * `redact`'s decision: which characters of a session are replaced, and by what. The credentials
 * are found line by line as the `secret` diagnostic finds them (`core/line/secrets.ts`); then every
 * occurrence of each one in the whole text is replaced, so that a key found once beside its name
 * (`OPENAI_API_KEY=sk-…`) is also gone where it appears bare. Same secret, same placeholder.
 *
 * The replacement works on each line's raw JSON text: a secret's characters need no escape, a
 * placeholder holds none (`[REDACTED:kind:hash8]`), and an occurrence right after a backslash is
 * part of an escape and left alone, so every line that was valid JSON stays valid JSON and the
 * lines nobody touched stay byte for byte. A secret that is also part of a field that links the
 * tree (an id, a parent, a tool call's id) is not replaced in that line, so that the tree, and the
 * pairing of tool calls and results, are what they were.
 */

import type * as Crypto from "node:crypto";
import { findSecrets, maskSecret, type SecretKind } from "../line/secrets";
import { splitLines } from "../line/split";

// Loaded when a placeholder is first made, as `core/base/ids.ts` loads it: most runs redact nothing.
let cryptoModule: typeof Crypto | undefined;
const nodeCrypto = (): typeof Crypto => (cryptoModule ??= require("node:crypto") as typeof Crypto);

/** A fresh key for `redactionPlaceholder`: 32 random bytes, never written anywhere. */
export function newRedactionKey(): Uint8Array {
  return nodeCrypto().randomBytes(32);
}

/**
 * The placeholder of a secret, `[REDACTED:kind:hash8]`, as `redact` and the editor's fix write it:
 * hash8 is the start of an HMAC-SHA-256 of the secret's value under `key`, so that the same secret
 * gets the same placeholder under one key, and the placeholder cannot confirm a guess of the secret
 * without the key (a plain hash of a short password could be).
 */
export function redactionPlaceholder(kind: SecretKind, value: string, key: Uint8Array): string {
  return `[REDACTED:${kind}:${nodeCrypto().createHmac("sha256", key).update(value).digest("hex").slice(0, 8)}]`;
}

/** One credential: where it was first found, and what replaces it everywhere. */
export interface RedactedSecret {
  kind: SecretKind;
  /** Its raw text in the line (JSON-escaped where it spans escapes: a private key's `\n`). */
  raw: string;
  /** Its value as the session's strings hold it. */
  value: string;
  /** Its masked form for people (`sk-ant-…a1b2`). */
  masked: string;
  placeholder: string;
  /** The 0-based line it was first found on. */
  line: number;
}

/** One replacement made: the line and the secret. */
export interface Replacement {
  line: number;
  secret: RedactedSecret;
}

export interface Redaction {
  text: string;
  /** The distinct secrets, longest first. */
  secrets: RedactedSecret[];
  replacements: Replacement[];
  /** Occurrences left in place because they are part of an id or a link, by line. */
  kept: Replacement[];
}

/** At most this many distinct secrets are replaced (a hostile file of millions costs a bounded time per line). */
export const MAX_DISTINCT_SECRETS = 10_000;

/**
 * The distinct secrets of a session, gathered line by line (so that a file streamed in chunks
 * finds the same ones as its whole text): the first place each is found, its placeholder made
 * once. At most `MAX_DISTINCT_SECRETS` are kept; lines after that are not searched.
 */
export class SecretCollector {
  private readonly byRaw = new Map<string, RedactedSecret>();

  constructor(private readonly placeholderOf: (kind: SecretKind, value: string) => string) {}

  /** Whether more lines are worth searching (the bound on distinct secrets is not reached). */
  get open(): boolean {
    return this.byRaw.size < MAX_DISTINCT_SECRETS;
  }

  /** Searches one line's text (without its line ending), the `line`th of the file. */
  add(text: string, line: number): void {
    if (!this.open) return;
    for (const match of findSecrets(text)) {
      const raw = text.slice(match.start, match.end);
      if (this.byRaw.has(raw)) continue;
      const value = decoded(raw);
      this.byRaw.set(raw, { kind: match.kind, raw, value, masked: maskSecret(text, match), placeholder: this.placeholderOf(match.kind, value), line });
    }
  }

  /** The secrets found, longest first, so that a secret inside another is not replaced in half of the longer one. */
  secrets(): RedactedSecret[] {
    return [...this.byRaw.values()].sort((x, y) => y.raw.length - x.raw.length);
  }
}

/** Where `redactLine` tells what it did: each occurrence replaced, and each left in place. */
export interface RedactionSink {
  replaced(line: number, secret: RedactedSecret): void;
  kept(line: number, secret: RedactedSecret): void;
}

/**
 * The redacted text of `text`. `placeholderOf(kind, value)` names a secret (the caller keys its
 * hash); it is called once per distinct secret.
 */
export function redactText(text: string, placeholderOf: (kind: SecretKind, value: string) => string): Redaction {
  const { lines, eols } = splitLines(text);
  const collector = new SecretCollector(placeholderOf);
  for (let line = 0; line < lines.length && collector.open; line++) collector.add(lines[line]!, line);
  const secrets = collector.secrets();
  const replacements: Replacement[] = [];
  const kept: Replacement[] = [];
  const sink: RedactionSink = { replaced: (line, secret) => replacements.push({ line, secret }), kept: (line, secret) => kept.push({ line, secret }) };
  const out: string[] = [];
  for (let line = 0; line < lines.length; line++) {
    let t = lines[line]!;
    if (secrets.length > 0) t = redactLine(t, line, secrets, sink);
    out.push(t, eols[line] ?? "");
  }
  return { text: out.join(""), secrets, replacements, kept };
}

/**
 * Above this many secrets, a text is searched once for the places where any of them may start
 * (`secretsIn`) instead of once per secret: a hostile session of 10,000 distinct keys would
 * otherwise cost 10,000 searches of each line and of each string of the proof's contexts (a 12 MB
 * session took 19 s, a 1 GB one would take half an hour). The lookup (a slice and a map lookup
 * per character) costs what some 500 to 1,000 searches cost (measured: 300 secrets searched in
 * turn are twice as fast as the lookup), so fewer secrets are searched for in turn.
 */
const INDEXED_FROM = 1024;
/** The characters a secret is looked up by: its start (a shorter secret is always a candidate). */
const PREFIX_CHARS = 6;

interface SecretIndex {
  byPrefix: Map<string, number[]>;
  short: number[];
}

const indexes = { raw: new WeakMap<readonly RedactedSecret[], SecretIndex>(), value: new WeakMap<readonly RedactedSecret[], SecretIndex>() };

/**
 * The secrets whose `raw` (or `value`) may occur in `text`, in the order of `secrets`: those whose
 * first characters occur there, found in one pass over `text` through an index of the secrets made
 * once per list; all of them when they are few.
 */
function secretsIn(text: string, secrets: readonly RedactedSecret[], of: "raw" | "value"): readonly RedactedSecret[] {
  if (secrets.length < INDEXED_FROM) return secrets;
  let index = indexes[of].get(secrets);
  if (index === undefined) {
    index = { byPrefix: new Map(), short: [] };
    for (let i = 0; i < secrets.length; i++) {
      const s = secrets[i]![of];
      if (s.length < PREFIX_CHARS) index.short.push(i);
      else {
        const prefix = s.slice(0, PREFIX_CHARS);
        const list = index.byPrefix.get(prefix);
        if (list) list.push(i);
        else index.byPrefix.set(prefix, [i]);
      }
    }
    indexes[of].set(secrets, index);
  }
  const found = new Set(index.short);
  for (let at = 0; at + PREFIX_CHARS <= text.length; at++) {
    const list = index.byPrefix.get(text.slice(at, at + PREFIX_CHARS));
    if (list) for (const i of list) found.add(i);
  }
  return [...found].sort((x, y) => x - y).map((i) => secrets[i]!);
}

/** One line's text (without its line ending) with every occurrence of `secrets` (longest first) replaced, but in the fields that link the tree. */
export function redactLine(text: string, line: number, secrets: readonly RedactedSecret[], sink: RedactionSink): string {
  let links: string[] | undefined;
  let t = text;
  for (const secret of secretsIn(text, secrets, "raw")) {
    if (!t.includes(secret.raw)) continue;
    links ??= linkValues(text);
    if (links.some((value) => value.includes(secret.value))) {
      sink.kept(line, secret);
      continue;
    }
    const pieces: string[] = [];
    let from = 0;
    for (let at = t.indexOf(secret.raw); at >= 0; at = t.indexOf(secret.raw, at + secret.raw.length)) {
      // After an odd number of backslashes the first character belongs to an escape (`\n`): left alone.
      let slashes = 0;
      while (at - slashes > 0 && t.charCodeAt(at - slashes - 1) === 92) slashes++;
      if (slashes % 2 === 1) continue;
      pieces.push(t.slice(from, at), secret.placeholder);
      from = at + secret.raw.length;
      sink.replaced(line, secret);
    }
    if (pieces.length > 0) t = pieces.join("") + t.slice(from);
  }
  return t;
}

/** The strings of a line that link entries or tool calls: never changed, so that the tree stays as it was. */
export function linkValues(text: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [];
  const o = value as Record<string, unknown>;
  const found: string[] = [];
  const add = (v: unknown) => {
    if (typeof v === "string") found.push(v);
  };
  for (const key of ["id", "parentId", "targetId", "fromId", "firstKeptEntryId", "type"]) add(o[key]);
  const m = o.message;
  if (m !== null && typeof m === "object" && !Array.isArray(m)) {
    const message = m as Record<string, unknown>;
    add(message.toolCallId);
    add(message.role);
    if (Array.isArray(message.content)) {
      for (const block of message.content) {
        if (block !== null && typeof block === "object" && (block as Record<string, unknown>).type === "toolCall") add((block as Record<string, unknown>).id);
      }
    }
  }
  return found;
}

/** The value of a raw JSON string's characters (a secret never holds an unescaped quote). */
export function decoded(raw: string): string {
  if (!raw.includes("\\")) return raw;
  try {
    const v: unknown = JSON.parse(`"${raw}"`);
    return typeof v === "string" ? v : raw;
  } catch {
    return raw;
  }
}

/** `text` with each secret's value replaced by its placeholder (`secrets` longest first, as `Redaction.secrets`): what a string of the redacted copy's context must equal. */
export function replaceInStrings(text: string, secrets: readonly RedactedSecret[]): string {
  let t = text;
  // Longest first, as the file was redacted.
  for (const s of secretsIn(text, secrets, "value")) if (t.includes(s.value)) t = t.split(s.value).join(s.placeholder);
  return t;
}
