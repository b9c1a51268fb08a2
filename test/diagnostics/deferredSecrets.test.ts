/**
 * A document too large for the value cache finds its lines' credentials when their findings are
 * first read (`core/line/deferredSecrets.ts`), so that a large open's first answer, the structure
 * alone, does not search for them. Here the cache's budget is set to nothing, so that every
 * fixture is such a document: each line reads as `parseLine`'s, the structural diagnostics leave
 * every credential unsearched, and the complete list is the one of a document that searched at once.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Diagnostic } from "vscode-languageserver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findDeferredSecrets, parseLineDeferringSecrets, SecretsDeferredLine } from "../../server/src/core/line/deferredSecrets";
import { parseLine } from "../../server/src/core/line/parse";
import { setValueBudget } from "../../server/src/core/line/values";
import { SessionDocument } from "../../server/src/core/session/document";
import { runToEnd } from "../../server/src/core/base/steps";
import { collectDiagnostics, collectDiagnosticsSteps, collectStructuralDiagnostics } from "../../server/src/features/diagnostics";
import { parseFixture } from "../helpers/fixture";

const dir = join(__dirname, "../fixtures/diagnostics");
const texts = readdirSync(dir)
  .filter((f) => f.endsWith(".txt"))
  .sort()
  .map((f) => [f, parseFixture(readFileSync(join(dir, f), "utf8")).text] as const);

const key = (d: Diagnostic) => JSON.stringify([d.code, d.range, d.severity, d.message, d.relatedInformation ?? [], d.tags ?? []]);

/** Every fact of a parse as plain data, the findings included. */
function facts(text: string, parse: (text: string) => ReturnType<typeof parseLine>) {
  const p = parse(text);
  if (p.kind !== "value") return { kind: p.kind, error: p.kind === "malformed" ? p.error : undefined };
  const { kind, id, parentId, idKey, parentKey, type, role, time, falsy, isObject, looksLikePi, noMessage, reference, toolCallIds, toolResultId } = p;
  return {
    kind,
    id,
    parentId,
    idKey,
    parentKey,
    type,
    role,
    time,
    falsy,
    isObject,
    looksLikePi,
    noMessage,
    reference,
    toolCallIds,
    toolResultId,
    findings: p.findings,
  };
}

describe("a line whose credentials are found when its findings are read", () => {
  it("reads as parseLine's on every fixture line, credentials included", () => {
    let secrets = 0;
    for (const [file, text] of texts) {
      for (const line of text.split("\n")) {
        const deferred = facts(line, parseLineDeferringSecrets);
        expect(deferred, `${file}: ${line.slice(0, 80)}`).toEqual(facts(line, parseLine));
        if ("findings" in deferred && deferred.findings) secrets += deferred.findings.filter((f) => f.code === "secret").length;
      }
    }
    expect(secrets).toBeGreaterThan(0);
  });

  it("finds no credential in a value that is not an object, as parseLine finds none there", () => {
    const token = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";
    for (const line of [`["${token}"]`, `"${token}"`, `[{"key":"${token}"}]`]) {
      expect(facts(line, parseLineDeferringSecrets), line).toEqual(facts(line, parseLine));
    }
    // The same credential in an object is found by both.
    const inObject = `{"key":"${token}"}`;
    expect(facts(inObject, parseLineDeferringSecrets)).toEqual(facts(inObject, parseLine));
    expect(facts(inObject, parseLine).findings?.some((f) => f.code === "secret")).toBe(true);
  });

  it("searches its text only once, when its findings are first read", () => {
    const text = JSON.stringify({
      type: "custom",
      id: "a",
      parentId: null,
      timestamp: "2026-03-02T10:00:00.000Z",
      data: { key: "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789" },
    });
    const line = parseLineDeferringSecrets(text);
    if (!(line instanceof SecretsDeferredLine)) throw new Error("not a deferred line");
    expect(line.secretsFound).toBe(false);
    const first = line.findings;
    expect(line.secretsFound).toBe(true);
    expect(first.some((f) => f.code === "secret")).toBe(true);
    expect(line.findings).toBe(first);
  });

  it("is searched ahead until every line was: a document then walks its lines no more", () => {
    const deferred = (id: string) => {
      const line = parseLineDeferringSecrets(JSON.stringify({ type: "custom", id, parentId: null, timestamp: "2026-03-02T10:00:00.000Z", data: { n: 1 } }));
      if (!(line instanceof SecretsDeferredLine)) throw new Error("not a deferred line");
      return line;
    };
    const list = [deferred("a"), deferred("b")];
    const toFind = { pending: true };
    runToEnd(findDeferredSecrets(list, toFind));
    expect(list.map((l) => l.secretsFound)).toEqual([true, true]);
    expect(toFind.pending).toBe(false);
    // A document never adds a deferred line; one pushed here shows that the lines are not walked again.
    const late = deferred("c");
    list.push(late);
    runToEnd(findDeferredSecrets(list, toFind));
    expect(late.secretsFound).toBe(false);
    runToEnd(findDeferredSecrets(list, { pending: true }));
    expect(late.secretsFound).toBe(true);
  });

  it("is shared by a large document and its clones, which share its lines", () => {
    setValueBudget(0);
    try {
      const text = texts.map(([, t]) => t).find((t) => t.includes("sk-")) ?? texts[0]![1];
      const doc = new SessionDocument("file:///s.jsonl", "jsonl", 1, text);
      expect(doc.secretsToFind?.pending).toBe(true);
      const copy = doc.clone();
      collectDiagnostics(copy);
      expect(doc.secretsToFind?.pending).toBe(false);
      expect(doc.parsed.every((p) => !(p instanceof SecretsDeferredLine) || p.secretsFound)).toBe(true);
    } finally {
      setValueBudget(undefined);
    }
  });
});

describe("a document too large for the value cache", () => {
  beforeAll(() => setValueBudget(0));
  afterAll(() => setValueBudget(undefined));

  for (const [file, text] of texts) {
    it(file, () => {
      const doc = new SessionDocument("file:///s.jsonl", "jsonl", 1, text);
      collectStructuralDiagnostics(doc);
      const deferred = doc.parsed.filter((p): p is SecretsDeferredLine => p instanceof SecretsDeferredLine);
      if (text.length > 0 && text.trim().length > 0 && doc.parsed.some((p) => p.kind === "value")) expect(deferred.length).toBeGreaterThan(0);
      expect(deferred.filter((p) => p.secretsFound)).toEqual([]);
      // (A file that is not a session, or an oh-my-pi one, stops before the line check: its lines are never searched.)
      const complete = runToEnd(collectDiagnosticsSteps(doc)).diagnostics;
      setValueBudget(undefined);
      try {
        const atOnce = new SessionDocument("file:///s.jsonl", "jsonl", 1, text);
        expect(atOnce.parsed.some((p) => p instanceof SecretsDeferredLine)).toBe(false);
        expect(complete.map(key)).toEqual(collectDiagnostics(atOnce).diagnostics.map(key));
      } finally {
        setValueBudget(0);
      }
    });
  }
});
