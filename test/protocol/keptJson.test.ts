/**
 * The UTF-8 JSON kept for the next context answer (server/src/lsp/keptJson.ts): the same list asked
 * for again is the same bytes, a list sharing its first and last elements with a kept one encodes
 * only the elements between them, and every list and string written is `JSON.stringify`'s UTF-8,
 * whatever was changed between two answers.
 */

import { beforeEach, describe, expect, it } from "vitest";
import { forgetKeptJson, KEPT_LIST_CHARS, KEPT_LISTS, KEPT_STRING_CHARS, keptListJson, keptStringJson } from "../../server/src/lsp/keptJson";
import { seededRandom } from "../helpers/lspClient";

/** Messages of about 300 characters, with text beyond ASCII, enough of them to be kept. */
const COUNT = Math.ceil(KEPT_LIST_CHARS / 300) + 10;
const message = (i: number) => ({ role: i % 2 ? "user" : "assistant", content: `message ${i} “é” 😀 ${"x".repeat(250)}` });

/** `keptListJson` of `list`, counting the elements it had to write afresh. */
function encoded(list: readonly unknown[]): { bytes: Buffer | undefined; fresh: number } {
  let fresh = 0;
  const bytes = keptListJson(list, (element) => {
    fresh++;
    return JSON.stringify(element) ?? "null";
  });
  return { bytes, fresh };
}

beforeEach(() => forgetKeptJson());

describe("keptListJson", () => {
  it("keeps a large list's bytes, and gives them again for the same elements", () => {
    const list = Array.from({ length: COUNT }, (_, i) => message(i));
    const first = encoded(list);
    expect(first.fresh).toBe(COUNT);
    expect(first.bytes?.toString("utf8")).toBe(JSON.stringify(list));
    const again = encoded(list.slice());
    expect(again.fresh).toBe(0);
    expect(again.bytes).toBe(first.bytes);
  });

  it("leaves a short list to the caller", () => {
    expect(encoded([message(1), message(2)]).bytes).toBeUndefined();
  });

  it("encodes only what changed between the shared first and last elements", () => {
    const list = Array.from({ length: COUNT }, (_, i) => message(i));
    encoded(list);
    const swapped = list.slice();
    swapped[100] = message(-1);
    const one = encoded(swapped);
    expect(one.fresh).toBe(1);
    expect(one.bytes?.toString("utf8")).toBe(JSON.stringify(swapped));
    const appended = [...swapped, message(-2), message(-3)];
    const two = encoded(appended);
    expect(two.fresh).toBe(2);
    expect(two.bytes?.toString("utf8")).toBe(JSON.stringify(appended));
    const shortened = appended.slice(5);
    const none = encoded(shortened);
    expect(none.fresh).toBe(0);
    expect(none.bytes?.toString("utf8")).toBe(JSON.stringify(shortened));
  });

  it("writes JSON.stringify's bytes through random changes, holes and values without JSON included", () => {
    const random = seededRandom(34);
    const pool = Array.from({ length: 50 }, (_, i) => message(i + COUNT));
    const odd: unknown[] = [undefined, null, 5, "text", () => 1, [1, [2]], { toJSON: () => undefined }];
    let list: unknown[] = Array.from({ length: COUNT }, (_, i) => message(i));
    let reused = 0;
    for (let round = 0; round < 60; round++) {
      const next = list.slice();
      const at = Math.floor(random() * next.length);
      const change = Math.floor(random() * 5);
      if (change === 0) next.splice(at, 1);
      else if (change === 1) next.splice(at, 0, pool[round % pool.length]);
      else if (change === 2) next[at] = odd[round % odd.length];
      else if (change === 3)
        next.length += 2; // two holes at the end
      else next.splice(0, Math.floor(random() * 3));
      const { bytes, fresh } = encoded(next);
      expect(bytes?.toString("utf8")).toBe(JSON.stringify(next));
      if (fresh < next.length / 2) reused++;
      list = next;
    }
    expect(reused).toBeGreaterThan(50);
  });

  it(`keeps the last ${KEPT_LISTS} lists`, () => {
    const lists = Array.from({ length: KEPT_LISTS + 1 }, (_, k) => Array.from({ length: COUNT }, (_, i) => message(i + k * COUNT)));
    for (const list of lists) encoded(list);
    expect(encoded(lists[KEPT_LISTS]!).fresh).toBe(0);
    expect(encoded(lists[1]!).fresh).toBe(0);
    expect(encoded(lists[0]!).fresh).toBe(COUNT);
  });

  it("lets the kept lists go when told", () => {
    const list = Array.from({ length: COUNT }, (_, i) => message(i));
    encoded(list);
    forgetKeptJson();
    expect(encoded(list).fresh).toBe(COUNT);
  });
});

describe("keptStringJson", () => {
  it("keeps a long string's JSON, found again for an equal string", () => {
    const text = `# “Markdown” 😀 \ud800 \n${"line\n".repeat(KEPT_STRING_CHARS / 5)}`;
    const bytes = keptStringJson(text);
    expect(bytes?.toString("utf8")).toBe(JSON.stringify(text));
    expect(keptStringJson(`${text.slice(0, -1)}\n`)).toBe(bytes);
    expect(keptStringJson(`${text}!`)?.toString("utf8")).toBe(JSON.stringify(`${text}!`));
    expect(keptStringJson("short")).toBeUndefined();
  });
});
