/**
 * What the real pi-ai conversions do with a user message that has no text, recorded from Pi 1.6.0
 * and 0.74.2 by `empty-user.mjs` (expected/empty-user.tsv: version, API, content shape, and what
 * the request body held), against `emptyUserFate`, whose answer the `empty-user-message`
 * diagnostic states.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { emptyUserFate } from "../../server/src/features/providerRules";

const SHAPES: Record<string, unknown> = { '""': "", "[]": [], '[text ""]': [{ type: "text", text: "" }], '[text "  "]': [{ type: "text", text: "  " }] };

const rows = readFileSync(join(__dirname, "expected", "empty-user.tsv"), "utf8")
  .split("\n")
  .filter((line) => line !== "")
  .map((line) => line.split("\t") as [string, string, string, string]);

/** What the recorded body shows: no such user message, Bedrock's "<empty>" in its place, or the message sent without text. */
function recorded(body: string): string {
  if (body === "left out") return "left out";
  return body.includes("<empty>") ? "placeholder" : "sent empty";
}

describe("empty user messages, as the real conversions send them", () => {
  it("holds every API of the diagnostic, in four shapes, for both versions", () => {
    expect(rows.length).toBe(48);
    expect(rows.every(([, , , body]) => body === "left out" || body.startsWith("["))).toBe(true);
  });

  it.each(rows)("Pi %s, %s, content %s", (version, api, shape, body) => {
    const fate = emptyUserFate(api, SHAPES[shape], version === "1.6.0" ? "1.x" : "0.74");
    expect(fate).toBe(recorded(body));
  });
});
