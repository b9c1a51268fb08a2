/**
 * Ids as the skeleton keys them: one string per id that `Map`s compare as Pi's `byId` compares the
 * id values (strings and numbers by value, objects by identity), so that the shape of a session of
 * any size is held in plain strings. Every rule about those keys is here.
 */

import type { IdKeying } from "../session/piIndex";

/** The key of an absent id (`undefined`). */
export const ABSENT_KEY = "\u0000u";
/** The key of a `null` id. */
export const NULL_KEY = "\u0000z";

/** Keys for ids as a `Map` compares them: strings by value, numbers by value, objects by identity. */
export class KeyMaker {
  private objects = 0;

  key(value: unknown): string {
    switch (typeof value) {
      case "string":
        return value.charCodeAt(0) === 0 ? `\u0000s${value}` : value;
      case "number":
        return `\u0000n${value}`;
      case "boolean":
        return `\u0000b${value}`;
      case "undefined":
        return ABSENT_KEY;
      default:
        return value === null ? NULL_KEY : `\u0000o${++this.objects}`;
    }
  }
}

/** The id behind a key, for display: the string itself, else its JSON. */
export function keyText(key: string): string {
  if (key.charCodeAt(0) !== 0) return key;
  switch (key[1]) {
    case "s":
      return key.slice(2);
    case "n":
    case "b":
      return key.slice(2);
    case "u":
      return "(no id)";
    case "z":
      return "null";
    default:
      return "(object id)";
  }
}

/** Whether Pi reads the id behind `key` as truthy: `""`, `0`, `false`, `null` and an absent id are not. */
export function truthyKey(key: string | undefined): boolean {
  if (key === undefined || key === "") return false;
  return !(key === "\u0000n0" || key === "\u0000bfalse" || key === ABSENT_KEY || key === NULL_KEY);
}

/** The skeleton's keys as Pi's index (`PiIndex`) reads them. */
export const DISK_KEYS: IdKeying<string> = { follows: truthyKey, isNull: (key) => key === NULL_KEY };
