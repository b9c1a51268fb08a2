/**
 * `tree`'s short ids: the shortest start of an id no other entry's id has, at least 8 characters,
 * checked against the definition on random ids (many sharing long starts) and on the edge cases.
 */

import { describe, expect, it } from "vitest";
import { SHORT_ID_MIN, ShortIds } from "../../server/src/core/disk/shortIds";
import type { Skeleton } from "../../server/src/core/disk/skeleton";

/** A skeleton holding only the keys `ShortIds` reads. */
const skeletonOf = (keys: string[]) => ({ n: keys.length, keys }) as unknown as Skeleton;

/** The definition: the shortest start, of at least 8 characters, that no other id starts with (else the whole id). */
function expected(id: string, ids: string[]): string {
  for (let n = SHORT_ID_MIN; n < id.length; n++) {
    const start = id.slice(0, n);
    if (!ids.some((other) => other !== id && other.startsWith(start))) return start;
  }
  return id;
}

describe("ShortIds", () => {
  it("agrees with the definition on ids that share long starts", () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 50; round++) {
      const ids = Array.from({ length: 40 }, () => Array.from({ length: 6 + Math.floor(random() * 8) }, () => "ab"[Math.floor(random() * 2)]).join(""));
      const short = new ShortIds(skeletonOf(ids));
      for (const id of ids) expect(short.of(id), `${id} among ${ids.join(",")}`).toBe(expected(id, ids));
    }
  });

  it("gives the whole id when it is the start of another, and skips ids that are not strings", () => {
    const short = new ShortIds(skeletonOf(["abcdefgh", "abcdefghij", "\u0000n12345678", "\u0000s\u0000abcdefgh", "\u0000s\u0000abcdefgz"]));
    expect(short.of("abcdefgh")).toBe("abcdefgh");
    expect(short.of("abcdefghij")).toBe("abcdefghi");
    // "\0s…" is the key of a string id that starts with NUL: that string is what is compared.
    expect(short.of("\u0000abcdefgh")).toBe("\u0000abcdefgh");
    // The number 12345678 cannot be named by a prefix, and "12345678" is no id here.
    expect(short.of("12345678")).toBe("12345678");
    expect(short.of("not-an-id")).toBe("not-an-id");
  });
});
