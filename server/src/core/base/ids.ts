/**
 * Entry ids: how Pi files entries by id, and how new ids are made.
 *
 * Pi never validates an id. `_buildIndex` does `byId.set(entry.id, entry)` and the parent walk does
 * `current.parentId ? byId.get(current.parentId) : undefined`, so the key is whatever JSON value the
 * field holds, compared as a `Map` compares (SameValueZero): the number 5 finds the number 5 and not
 * the string "5", an absent id files the entry under `undefined`, and an object or array is a key
 * that no other value equals. `IdKey` is that key; an object or array is replaced by an opaque token
 * of its own, which keeps that identity without holding the value.
 *
 * New ids come in three kinds, each made here only: Pi's 8-hex entry ids (`generateId`), UUIDv7
 * session ids, and ids derived from content (for migrations that must be reproducible).
 */

import type * as Crypto from "node:crypto";

// Loaded when an id is first made: `node:crypto` took 6 ms of every `check` run and server start,
// and most of them make no id.
let cryptoModule: typeof Crypto | undefined;
const nodeCrypto = (): typeof Crypto => (cryptoModule ??= require("node:crypto") as typeof Crypto);

/** An id as Pi's `byId` map keys it: a JSON primitive, `undefined` (absent), or an opaque token for an object or array. */
export type IdKey = string | number | boolean | null | undefined | OpaqueId;

/** Stands for an object or array id: equal only to itself, as the parsed value is in Pi's map. */
export class OpaqueId {
  constructor(readonly kind: "object" | "array") {}
}

/** The key Pi files a value under (`byId.set(value, …)`, `byId.get(value)`). */
export function idKeyOf(value: unknown): IdKey {
  if (value === null || typeof value !== "object") return value as IdKey;
  return new OpaqueId(Array.isArray(value) ? "array" : "object");
}

/** Whether Pi follows a `parentId` holding this key: `current.parentId ? byId.get(…) : undefined`. */
export function isFollowed(key: IdKey): boolean {
  return Boolean(key);
}

/** A short description of a key that is not a string, for messages ("the number 5", "null", "an object"). */
export function describeKey(key: IdKey): string {
  if (key instanceof OpaqueId) return key.kind === "array" ? "an array" : "an object";
  if (key === undefined) return "absent";
  if (key === null) return "null";
  return typeof key === "string" ? `the string ${JSON.stringify(key)}` : `the ${typeof key} ${String(key)}`;
}

// ---- New ids ---------------------------------------------------------------------------------------

/** Uniform numbers in [0, 1): `Math.random`, or a seeded source in tests. */
export type Random = () => number;

function hexDigits(random: Random, count: number): string {
  let out = "";
  for (let i = 0; i < count; i++) out += (Math.floor(random() * 16) & 15).toString(16);
  return out;
}

/** The first digit of a UUID's variant field: 10xx in binary. */
function variantDigit(random: Random): string {
  return "89ab"[Math.floor(random() * 4) & 3]!;
}

/** A random UUID (version 4), from `random` when given, else from `crypto.randomUUID`. */
export function uuidv4(random?: Random): string {
  if (!random) return nodeCrypto().randomUUID();
  // Drawn in the order the digits are written, so that a seeded source gives readable ids.
  const head = `${hexDigits(random, 8)}-${hexDigits(random, 4)}-4${hexDigits(random, 3)}`;
  return `${head}-${variantDigit(random)}${hexDigits(random, 3)}-${hexDigits(random, 12)}`;
}

/** A UUIDv7 (RFC 9562), as Pi's session ids: 48 bits of Unix milliseconds, version 7, variant 10, random rest. */
export function uuidv7(now: Date, random: Random = Math.random): string {
  const ms = Math.max(0, Math.min(0xffffffffffff, Math.floor(now.getTime()) || 0))
    .toString(16)
    .padStart(12, "0");
  const version = `7${hexDigits(random, 3)}`;
  return `${ms.slice(0, 8)}-${ms.slice(8)}-${version}-${variantDigit(random)}${hexDigits(random, 3)}-${hexDigits(random, 12)}`;
}

/**
 * A fresh entry id as Pi's `generateId` makes one: the first 8 hex digits of a random UUID, tried
 * up to 100 times against the ids in use, then a whole UUID.
 */
export function freshEntryId(inUse: (id: string) => boolean, random?: Random): string {
  for (let attempt = 0; attempt < 100; attempt++) {
    const id = random ? hexDigits(random, 8) : nodeCrypto().randomUUID().slice(0, 8);
    if (!inUse(id)) return id;
  }
  let id = uuidv4(random);
  while (inUse(id)) id = uuidv4(random);
  return id;
}

/**
 * A reproducible 8-hex-digit id for the entry with this text at this ordinal, unique among `used`:
 * the first 8 hex digits of a SHA-256 of both, tried again with a counter on a collision, and past
 * 100 collisions (as Pi gives up on short ids after 100 random tries) the whole hash.
 */
export function contentId(text: string, ordinal: number, used: Set<unknown>): string {
  for (let attempt = 0; ; attempt++) {
    const hash = nodeCrypto().createHash("sha256").update(`${ordinal}\n${attempt}\n${text}`).digest("hex");
    const id = attempt < 100 ? hash.slice(0, 8) : hash;
    if (!used.has(id)) {
      used.add(id);
      return id;
    }
  }
}
