/**
 * The cap on diagnostics per file (`features/diagnosticCap.ts`), on lists `computeDiagnostics`
 * really returns, and through the server's pull (the CLI's side is in test/cli/output.test.ts).
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionDocument } from "../../server/src/core/session/document";
import { capDiagnostics, MAX_PER_CODE, MAX_PER_FILE } from "../../server/src/features/diagnosticCap";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { ensureBuilt, spawnServer, type LspTestClient } from "../helpers/lspClient";

const header = '{"type":"session","version":3,"id":"0197a0b0-0000-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.002Z","cwd":"/home/dev/p"}';
const user = (id: string, parent: string) =>
  `{"type":"message","id":"${id}","parentId":"${parent}","timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1772445601000}}`;

function diagnosticsOf(text: string) {
  return computeDiagnostics(new SessionDocument("file:///s.jsonl", "jsonl", 0, text));
}

function countByCode(list: { code?: unknown }[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const d of list) counts.set(String(d.code), (counts.get(String(d.code)) ?? 0) + 1);
  return counts;
}

describe("capDiagnostics", () => {
  it("keeps a list within the caps as it is", () => {
    const list = diagnosticsOf(`${header}\nx\n${user("a1", "zz")}\n\n`);
    const capped = capDiagnostics(list);
    expect(capped.diagnostics).toEqual(list);
    expect(capped.omitted.size).toBe(0);
  });

  it("shows at most perCode of a code, the last saying how many more there are", () => {
    const list = diagnosticsOf(`${header}\n${"x\n".repeat(5000)}`);
    expect(list.length).toBe(5000);
    const { diagnostics, omitted } = capDiagnostics(list);
    expect(diagnostics).toHaveLength(MAX_PER_CODE);
    expect(diagnostics.slice(0, -1)).toEqual(list.slice(0, MAX_PER_CODE - 1));
    const last = diagnostics[MAX_PER_CODE - 1]!;
    expect(last.range).toEqual(list[MAX_PER_CODE - 1]!.range);
    expect(last.code).toBe("malformed-json");
    expect(last.message).toBe(
      `${list[MAX_PER_CODE - 1]!.message} (… and 4,800 more like this in this file, not shown: at most 200 per code and 1,000 per file are reported)`,
    );
    expect(omitted).toEqual(new Map([["malformed-json", 4800]]));
  });

  it("shares perFile between codes: every code keeps at least one, small codes keep all", () => {
    // 3,000 malformed lines, 3,000 blank lines, 3,000 dangling parents, and one BOM.
    const lines = [`\uFEFF${header}`];
    for (let i = 0; i < 3000; i++) lines.push("x", "", user(`e${i}`, `missing${i}`));
    const list = diagnosticsOf(`${lines.join("\n")}\n`);
    const all = countByCode(list);
    expect(all.get("bom")).toBe(1);
    const { diagnostics, omitted } = capDiagnostics(list, { perCode: 500, perFile: 700 });
    const shown = countByCode(diagnostics);
    expect(diagnostics.length).toBeLessThanOrEqual(700);
    expect(new Set(shown.keys())).toEqual(new Set(all.keys()));
    expect(shown.get("bom")).toBe(1);
    for (const [code, n] of shown) expect(n + (omitted.get(code) ?? 0), code).toBe(all.get(code));
    // The order of the list is kept.
    const order = list.filter((d) => diagnostics.some((k) => k.range === d.range && k.code === d.code));
    expect(diagnostics.map((d) => d.range)).toEqual(order.map((d) => d.range));
  });

  it("keeps every code of a file, so errors are never hidden behind warnings", () => {
    const codes = Array.from({ length: 30 }, (_, i) => ({ code: `c${i}`, severity: (1 + (i % 4)) as 1 | 2 | 3 | 4 }));
    const list = codes.flatMap(({ code, severity }) =>
      Array.from({ length: 100 }, (_, k) => ({ range: { start: { line: k, character: 0 }, end: { line: k, character: 1 } }, code, severity, message: "m" })),
    );
    const { diagnostics } = capDiagnostics(list, { perCode: 100, perFile: 40 });
    expect(diagnostics.length).toBeLessThanOrEqual(40);
    expect(new Set(diagnostics.map((d) => d.code))).toEqual(new Set(codes.map((c) => c.code)));
  });
});

describe("the server's diagnostics are capped the same way", () => {
  let client: LspTestClient;
  beforeAll(async () => {
    await ensureBuilt();
    client = spawnServer();
    await client.initialize({ textDocument: { diagnostic: { dynamicRegistration: false } } });
  });
  afterAll(async () => {
    await client.shutdownAndExit();
    client.dispose();
  });

  it("answers a pull on 20,000 broken lines with at most MAX_PER_FILE diagnostics", async () => {
    const text = `${header}\n${"x\n".repeat(20_000)}${user("a1", "zz")}\n`;
    const uri = "file:///capped.jsonl";
    await client.open(uri, text);
    const items = await client.pullItems(uri);
    const report = { items: items as { code: string; message: string }[] };
    expect(report.items.length).toBeLessThanOrEqual(MAX_PER_FILE);
    const capped = capDiagnostics(diagnosticsOf(text)).diagnostics;
    expect(report.items.map((d) => [d.code, d.message])).toEqual(capped.map((d) => [d.code, d.message]));
    expect(report.items.some((d) => d.code === "dangling-parent")).toBe(true);
    expect(report.items.filter((d) => d.code === "malformed-json").at(-1)!.message).toContain("19,800 more like this");
  });
});
