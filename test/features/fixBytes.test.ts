/**
 * Safe fixes edit only the bytes they must (issue 10, item 2): joining a pretty-printed entry drops
 * whitespace between tokens, and the invalid-header fix replaces or inserts the id alone. Before,
 * both went through `JSON.stringify` of the parsed value, which rounds 12345678901234567890 to
 * 12345678901234567000, turns 1e999 into null and 1.50 into 1.5, moves integer-like keys first, and
 * drops a repeated key and a `"__proto__"` member.
 */

import { describe, expect, it } from "vitest";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { applySafeFixes } from "../../server/src/features/fixes/fixAll";
import { HEADER, user } from "../helpers/piLines";

const URI = "file:///home/dev/.pi/agent/sessions/--home-dev-p--/2026-03-02T10-00-00-000Z_x.jsonl";
const options = { now: () => new Date("2026-03-02T12:00:00.000Z"), random: () => 0.5 };
/** Members that `JSON.stringify(JSON.parse(…))` would not give back byte for byte. */
const ODD = '"n":12345678901234567890,"e":1e999,"f":1.50,"k":{"2":1,"1":2,"a":1,"a":2,"__proto__":3},"s":"two  spaces\\t\\"{ }\\""';

const fixAll = (text: string) => applySafeFixes(new SessionDocument(URI, "jsonl", 1, text), options).doc.getText();

describe("safe fixes keep every other byte", () => {
  it("joins a pretty-printed entry by dropping only the whitespace between its tokens", () => {
    const one = `{"type":"message","id":"b1","parentId":"a1","timestamp":"2026-03-02T10:00:02.000Z",${ODD},"message":{"role":"user","content":"x","timestamp":1}}`;
    // Spread over lines the way a person or a pretty-printer would, with tabs and a lone \r.
    const pretty = one.replace('"id":', '\n  "id" :').replace('"n":', '\n\t"n": ').replace('"message":', '\r\n  "message": ').replace(/}}$/, "}\n}");
    expect(pretty.split("\n").length).toBeGreaterThan(3);
    const a = user("a1", null, "hi");
    const text = `${HEADER}\n${a}\n${pretty}\n`;
    expect(computeDiagnostics(new SessionDocument(URI, "jsonl", 1, text)).map((d) => d.code)).toContain("malformed-json");
    expect(fixAll(text)).toBe(`${HEADER}\n${a}\n${one}\n`);
  });

  it("gives an invalid header its id and leaves the rest of the header as it was", () => {
    const numeric = `{"type":"session","version":3,"id":123,"timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p",${ODD}}`;
    const a = user("a1", null, "hi");
    expect(fixAll(`${numeric}\n${a}\n`)).toBe(`${numeric.replace('"id":123', '"id":"123"')}\n${a}\n`);
    const missing = `{"type":"session","version":3,"timestamp":"2026-03-02T10:00:00.000Z","cwd":"/p",${ODD}}`;
    const fixed = fixAll(`${missing}\n${a}\n`).split("\n")[0]!;
    const id = (JSON.parse(fixed) as { id: string }).id;
    expect(fixed).toBe(missing.replace('"type":"session"', `"type":"session","id":"${id}"`));
  });
});
