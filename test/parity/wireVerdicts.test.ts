/**
 * The wire verdict table (expected/wire-verdicts.tsv, written by test/pi/wire/verdicts.mjs), replayed
 * without Pi: for every session of the corpus and each of three APIs, the provider's verdict is
 * computed again from the body Pi 1.6 sends (kept in expected/wire or expected/wire-captured), ours
 * again from the sources, and both must be the table's; every row agrees, or is in the documented
 * allow-list with its reason. A change to our rules or to the validator that changes a verdict fails
 * here until the table is regenerated and still agrees.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REFUSED_CODES, REQUEST_FAILS_CODES } from "../../server/src/core/base/codes";
import { activeContext } from "../../server/src/core/pi/activeContext";
import { findModel } from "../../server/src/core/pi/provider/catalog";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { requestDiagnosticsFor } from "../../server/src/features/requestDiagnostics";

type Rules = typeof import("../pi/wire/verdictRules.mjs", { with: { "resolution-mode": "import" }});

const root = __dirname;
let rules: Rules;
beforeAll(async () => {
  rules = await import("../pi/wire/verdictRules.mjs");
});

const core = () => ({
  SessionDocument,
  computeDiagnostics,
  requestDiagnosticsFor,
  activeContext,
  REFUSED_CODES,
  REQUEST_FAILS_CODES,
  findModel,
});

interface Row {
  fixture: string;
  api: string;
  model: string;
  source: string;
  provider: string;
  rule: string;
  ours: string;
  code: string;
  agree: string;
}

function table(): Row[] {
  const [head, ...lines] = readFileSync(join(root, "expected", "wire-verdicts.tsv"), "utf8")
    .trimEnd()
    .split("\n");
  const columns = head!.split("\t");
  return lines.map((line) => Object.fromEntries(line.split("\t").map((v, i) => [columns[i], v])) as unknown as Row);
}

describe("the wire verdict table", () => {
  it("has a row for every corpus session and wire case and each of the three APIs, sent to the API's model", () => {
    const rows = table();
    const sessions = rules.corpus(root);
    expect(sessions.filter((f) => f.startsWith("case-")).length).toBeGreaterThan(3);
    expect(sessions).toContain("fault-request-too-large.jsonl");
    expect(sessions.length).toBe(
      readdirSync(join(root, "fixtures")).filter((f) => f.endsWith(".jsonl")).length + 1 + readdirSync(join(root, "wire-cases")).length,
    );
    const expected = sessions.flatMap((f) => rules.APIS.map((api) => `${rules.stem(f)} ${api} ${rules.storedRecord(root, f, api)?.model}`));
    expect(rows.map((r) => `${r.fixture} ${r.api} ${r.model}`)).toEqual(expected);
    expect(rules.APIS).toEqual(["anthropic-messages", "openai-completions", "openai-responses"]);
  });

  it("gives every row the provider's verdict on Pi's body and ours on the session, as computed now", () => {
    const c = core();
    let text = { fixture: "", value: "" };
    for (const row of table()) {
      const fixture = `${row.fixture}.jsonl`;
      if (text.fixture !== fixture) text = { fixture, value: rules.sessionText(root, fixture) };
      const record = rules.storedRecord(root, fixture, row.api);
      expect(record, `${row.fixture} ${row.api}: no record of what Pi sent`).toBeDefined();
      expect(record!.source).toBe(row.source);
      const provider = rules.providerVerdict(record!);
      expect(`${provider.verdict} ${provider.rule}`, `${row.fixture} ${row.api}`).toBe(`${row.provider} ${row.rule}`);
      expect(record!.model).toBe(row.model);
      const ours = rules.ourVerdict(c, text.value, rules.modelFor(c, row.api, record!.model));
      expect(`${ours.verdict} ${ours.code}`, `${row.fixture} ${row.api}`).toBe(`${row.ours} ${row.code}`);
      const key = `${row.fixture} ${row.api}`;
      const agreed = rules.agree(provider, ours);
      expect(row.agree, key).toBe(agreed ? "yes" : "allowed");
      if (!agreed) expect(rules.ALLOWED[key], `${key} disagrees and is not in ALLOWED`).toMatch(/\w/);
    }
  });

  it("makes every code that fails a request for the row's model, and maps every provider rule to one", () => {
    for (const code of REQUEST_FAILS_CODES) expect(rules.REQUEST_FAMILY, code).toContain(code);
    for (const codes of Object.values(rules.RULE_CODES)) for (const code of codes) expect(REQUEST_FAILS_CODES).toContain(code);
  });

  it("allows only rows that disagree, each with its reason", () => {
    const disagreeing = new Set(
      table()
        .filter((r) => r.agree !== "yes")
        .map((r) => `${r.fixture} ${r.api}`),
    );
    expect(Object.keys(rules.ALLOWED).filter((k) => !disagreeing.has(k))).toEqual([]);
    for (const reason of Object.values(rules.ALLOWED)) expect(reason.length).toBeGreaterThan(20);
  });

  it("holds each kind of verdict the corpus shows: refused by the provider, not sent, and accepted", () => {
    const rows = table();
    const kinds = new Set(rows.map((r) => `${r.api} ${r.provider} ${r.rule}`));
    for (const kind of [
      "anthropic-messages refused anthropic-tool-result-without-tool-use",
      "anthropic-messages refused anthropic-image-count",
      "anthropic-messages refused anthropic-image-dimensions",
      "anthropic-messages refused anthropic-image-dimensions-many",
      "openai-completions refused openai-tool-without-tool-calls",
      "openai-responses refused responses-output-without-call",
      "openai-responses not sent threw",
      "anthropic-messages not sent open-failed",
      "anthropic-messages not sent context-failed",
      "openai-completions accepted ",
    ]) {
      expect(kinds, kind).toContain(kind);
    }
    // Issue 13's example bricks all three.
    expect(rows.filter((r) => r.fixture === "fault-tool-result-after-aborted-call").map((r) => `${r.provider} ${r.ours} ${r.code}`)).toEqual([
      "refused fails orphaned-tool-result",
      "refused fails orphaned-tool-result",
      "refused fails orphaned-tool-result",
    ]);
  });
});
