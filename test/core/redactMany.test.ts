/**
 * With many distinct secrets, `redactLine` and `replaceInStrings` look a text up once for where
 * any secret may start instead of searching it once per secret: the result is the one the same
 * functions give with only the few secrets the text holds (searched one by one), including a
 * secret shorter than the lookup's prefix, one inside a longer one, one after an escape's
 * backslash, and one that is part of an id.
 */

import { describe, expect, it } from "vitest";
import { type RedactedSecret, type RedactionSink, redactLine, replaceInStrings } from "../../server/src/core/edits/redact";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A deterministic token of `length` characters, the `n`th. */
function token(n: number, length: number): string {
  let out = "";
  let x = (n + 1) * 2654435761;
  for (let i = 0; i < length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out += ALPHABET[x % ALPHABET.length];
  }
  return out;
}

function secret(raw: string, n: number): RedactedSecret {
  return { kind: "github-token", raw, value: raw, masked: "…", placeholder: `[REDACTED:github-token:${n.toString(16).padStart(8, "0")}]`, line: 0 };
}

const tokens = Array.from({ length: 1100 }, (_, n) => `ghp_${token(n, 36)}`);
const short = "pw9";
const inner = tokens[7]!.slice(4, 24);
const all = [...tokens, inner, short].map(secret).sort((x, y) => y.raw.length - x.raw.length);

function record(): { sink: RedactionSink; said: string[] } {
  const said: string[] = [];
  return { said, sink: { replaced: (line, s) => said.push(`r ${line} ${s.raw}`), kept: (line, s) => said.push(`k ${line} ${s.raw}`) } };
}

const lines = [
  JSON.stringify({ type: "message", id: "a1", message: { role: "user", content: `use ${tokens[3]} and ${tokens[1050]} or ${tokens[3]}` } }),
  JSON.stringify({ type: "message", id: "a2", message: { role: "user", content: `a password ${short}, ${tokens[7]} and its middle ${inner}` } }),
  `{"type":"message","id":"a3","message":{"role":"user","content":"escaped \\\\${tokens[9]} and \\${tokens[9]}"}}`,
  JSON.stringify({ type: "message", id: tokens[11], message: { role: "user", content: `the id ${tokens[11]}` } }),
  JSON.stringify({ type: "message", id: "a5", message: { role: "user", content: "nothing here" } }),
];

describe("redaction with many secrets", () => {
  it("has more secrets than a text is searched for one by one, and lines that hold a few of them", () => {
    expect(all.length).toBeGreaterThan(1100);
    expect(lines.filter((l) => all.some((s) => l.includes(s.raw))).length).toBe(4);
  });

  for (const [n, text] of lines.entries()) {
    it(`redacts line ${n + 1} as the secrets it holds alone redact it`, () => {
      const few = all.filter((s) => text.includes(s.raw));
      expect(few.length).toBeLessThan(8);
      const many = record();
      const alone = record();
      const got = redactLine(text, n, all, many.sink);
      expect(got).toBe(redactLine(text, n, few, alone.sink));
      expect(many.said).toEqual(alone.said);
      expect(replaceInStrings(text, all)).toBe(replaceInStrings(text, few));
      if (few.length > 0 && n !== 3) expect(got).not.toBe(text);
    });
  }
});
