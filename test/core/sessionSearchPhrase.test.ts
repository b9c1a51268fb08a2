/**
 * A phrase (`"quoted words"`) is matched as Pi 1.6's `/resume` matches it: in the session's
 * messages joined by " ", lowercased, with every whitespace run made one space
 * (`getNormalizedMessageText`). `SessionSearch` builds that text piece by piece; a run of
 * whitespace that ends one message and starts the next is still one space, so a phrase that runs
 * from one message into the next matches, however much whitespace lies between them.
 */

import { describe, expect, it } from "vitest";
import { parseSearchQuery, SessionSearch } from "../../server/src/core/disk/search";

/** Whether Pi's rule, on the whole joined text, finds the phrase. */
function piFinds(messages: string[], phrase: string): boolean {
  return messages.join(" ").toLowerCase().replace(/\s+/g, " ").trim().includes(phrase.toLowerCase().replace(/\s+/g, " ").trim());
}

function streamFinds(messages: string[], phrase: string): boolean {
  const search = new SessionSearch(parseSearchQuery(`"${phrase}"`));
  for (const m of messages) search.addMessage(m);
  return search.finish({ id: "0000", name: undefined, cwd: "/nowhere" }) !== undefined;
}

describe("a phrase across messages", () => {
  const cases: [string[], string][] = [
    [["see Kiwi  ", "\tzebra now"], "kiwi zebra"],
    [["see Kiwi", "zebra now"], "kiwi zebra"],
    [["see Kiwi \n", "zebra"], "kiwi zebra"],
    [["see Kiwi", "  zebra"], "kiwi zebra"],
    [["  ", " kiwi ", " ", "\u00a0zebra"], "kiwi zebra"],
    [["kiwi", "", "zebra"], "kiwi zebra"],
    [["kiwizebra"], "kiwi zebra"],
  ];
  for (const [messages, phrase] of cases) {
    it(`${JSON.stringify(messages)} ${piFinds(messages, phrase) ? "holds" : "does not hold"} "${phrase}", as Pi finds it`, () => {
      expect(streamFinds(messages, phrase)).toBe(piFinds(messages, phrase));
    });
  }
});
