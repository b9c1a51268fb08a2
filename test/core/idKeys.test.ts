/**
 * The two spellings of Pi's id rule agree: `core/base/ids.ts` keys the in-memory analysis by the parsed
 * values (`idKeyOf`, `isFollowed`), and `core/disk/keys.ts` keys the skeleton of a session of any
 * size by strings (`KeyMaker`, `truthyKey`). For every kind of JSON value an id can hold, both say
 * the same about which ids find each other (`Map`'s SameValueZero) and which `parentId`s Pi follows.
 */

import { describe, expect, it } from "vitest";
import { idKeyOf, isFollowed } from "../../server/src/core/base/ids";
import { KeyMaker, keyText, truthyKey } from "../../server/src/core/disk/keys";

/** Id values as `JSON.parse` gives them, each parsed anew (objects are then distinct, as in Pi). */
const JSON_IDS = ['""', '"a1"', '"\\u0000s"', "0", "-0", "5", "5.5", "false", "true", "null", "{}", "[]", '"5"', '"null"', '"0"'];

describe("the skeleton's keys and the analysis's keys", () => {
  it("follow the same parentIds", () => {
    const keys = new KeyMaker();
    for (const text of [...JSON_IDS, undefined]) {
      const value = text === undefined ? undefined : JSON.parse(text);
      expect(truthyKey(keys.key(value)), `parentId ${text}`).toBe(isFollowed(idKeyOf(value)));
    }
  });

  it("find the same ids", () => {
    const keys = new KeyMaker();
    for (const x of JSON_IDS) {
      for (const y of JSON_IDS) {
        const a = JSON.parse(x);
        const b = JSON.parse(y);
        const sameInMap = new Map([[idKeyOf(a), 1]]).has(idKeyOf(b));
        expect(keys.key(a) === keys.key(b), `${x} and ${y}`).toBe(sameInMap);
      }
    }
  });

  it("show a key as the id it stands for", () => {
    const keys = new KeyMaker();
    expect(keyText(keys.key("a1"))).toBe("a1");
    expect(keyText(keys.key("\u0000s"))).toBe("\u0000s");
    expect(keyText(keys.key(5))).toBe("5");
    expect(keyText(keys.key(null))).toBe("null");
    expect(keyText(keys.key(undefined))).toBe("(no id)");
    expect(keyText(keys.key({}))).toBe("(object id)");
  });
});
