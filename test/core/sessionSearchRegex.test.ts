/**
 * A `re:` search of a session with more message text than it holds at once (`MAX_REGEX_TEXT`)
 * tests the rest message by message, as before, but hands them to the regular expression in
 * batches when it can take many at once (`SearchRegex.testAny`): the command line's bounded
 * regex pays a script call for each call, which per message made a search of a session with
 * 750,000 messages take a minute instead of seconds.
 */

import { describe, expect, it } from "vitest";
import { MAX_REGEX_TEXT, type SearchRegex } from "../../server/src/core/disk/regexMessages";
import { parseSearchQuery, SessionSearch } from "../../server/src/core/disk/search";

/** A regex that counts its calls. */
function counting(regex: RegExp): SearchRegex & { calls: number } {
  const r = {
    calls: 0,
    test(text: string) {
      r.calls++;
      return regex.test(text);
    },
    testAny(texts: readonly string[]) {
      r.calls++;
      return texts.some((t) => regex.test(t));
    },
  };
  return r;
}

function search(regex: SearchRegex, messages: Iterable<string>) {
  const query = { ...parseSearchQuery("re:needle"), regex };
  const s = new SessionSearch(query);
  for (const m of messages) s.addMessage(m);
  return s.finish({ id: "s1", name: undefined, cwd: "/p" });
}

function* longSession(...last: string[]): Generator<string> {
  // One string of a megabyte, many times: past the limit without holding 64 MB of distinct text.
  const big = "x".repeat(1 << 20);
  for (let i = 0; i <= MAX_REGEX_TEXT / big.length; i++) yield big;
  for (let i = 0; i < 20_000; i++) yield `message ${i}`;
  yield* last;
}

describe("a re: search past the text held at once", () => {
  it("finds a match in the last of 20,000 further messages, in a few calls", () => {
    const regex = counting(/needle/i);
    const match = search(regex, longSession("the needle"));
    expect(match).toMatchObject({ tier: "text", fields: ["messages"], approximate: true });
    // The held text once, the rest in batches of a megabyte: not one call a message.
    expect(regex.calls).toBeLessThan(10);
  });

  it("says no match when none of them matches, and tests the id and cwd after", () => {
    const regex = counting(/needle/i);
    expect(search(regex, longSession("nothing here"))).toBeUndefined();
    expect(regex.calls).toBeLessThan(10);
  });

  it("tests each message on its own, as before: no match across two of them", () => {
    const regex = counting(/need\s+le/i);
    expect(search(regex, longSession("need", "le"))).toBeUndefined();
    // Held whole (a short session), the two messages joined by " " do match.
    expect(search(counting(/need\s+le/i), ["need", "le"])).toMatchObject({ fields: ["messages"] });
  });

  it("with a plain RegExp, which has no testAny, the same answer", () => {
    const query = { ...parseSearchQuery("re:needle") };
    const s = new SessionSearch(query);
    for (const m of longSession("the needle")) s.addMessage(m);
    expect(s.finish({ id: "s1", name: undefined, cwd: "/p" })).toMatchObject({ fields: ["messages"], approximate: true });
  });
});

describe("the message a re: search shows", () => {
  function searchPlaced(regex: SearchRegex, messages: string[]) {
    const query = { ...parseSearchQuery("re:needle"), regex };
    const s = new SessionSearch(query);
    for (const [i, m] of messages.entries()) s.addMessage(m, { line: i + 1, id: `e${i}`, role: i % 2 === 0 ? "user" : "assistant" });
    return s.finish({ id: "s1", name: undefined, cwd: "/p" });
  }

  it("is the first message the pattern matches on its own, found in a few calls among thousands", () => {
    const messages = Array.from({ length: 5_000 }, (_, i) => (i === 3_217 || i === 4_000 ? `a needle in message ${i}` : `hay ${i}`));
    const regex = counting(/needle/i);
    const match = searchPlaced(regex, messages);
    expect(match?.entry).toEqual({ line: 3_219, id: "e3217", role: "assistant", snippet: "a needle in message 3217" });
    // Halving: about log2(5,000) calls, not one a message.
    expect(regex.calls).toBeLessThan(20);
  });

  it("is none when only the joined text matches (a match across two messages)", () => {
    const match = searchPlaced(/need le/i, ["a need", "le here"]);
    expect(match).toMatchObject({ fields: ["messages"] });
    expect(match?.entry).toBeUndefined();
  });
});
