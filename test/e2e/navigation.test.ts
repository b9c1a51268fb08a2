/**
 * Navigation over stdio: the compiled server answers definition, references, highlights, links,
 * hover and document symbols the way the pure features do, on a session the real Pi wrote.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Location } from "vscode-languageserver/node";
import { ensureBuilt, type LspTestClient, PULL_CAPABILITIES, spawnServer } from "../helpers/lspClient";

const uri = "file:///work/sessions/written-16-branches.jsonl";
const text = readFileSync(join(__dirname, "../parity/fixtures/written-16-branches.jsonl"), "utf8");
const lines = text.split("\n");
let client: LspTestClient;

/** The position of the first occurrence of `needle` on `line` (plus `delta` characters). */
function at(line: number, needle: string, delta = 1) {
  const character = lines[line]!.indexOf(needle);
  if (character < 0) throw new Error(`${needle} not on line ${line}`);
  return { line, character: character + delta };
}

beforeAll(async () => {
  await ensureBuilt();
  client = spawnServer();
  await client.initialize(PULL_CAPABILITIES);
  await client.open(uri, text);
});

afterAll(async () => {
  const exit = await client.shutdownAndExit();
  expect(exit.code).toBe(0);
});

describe("navigation over stdio", () => {
  it("jumps from a parentId to the parent entry's id", async () => {
    const parentId = (JSON.parse(lines[3]!) as { parentId: string }).parentId;
    const result = (await client.connection.sendRequest("textDocument/definition", {
      textDocument: { uri },
      position: at(3, `"parentId":"${parentId}"`, 13),
    })) as Location[];
    expect(result).toHaveLength(1);
    const target = lines.findIndex((l) => l.includes(`"id":"${parentId}"`));
    expect(result[0]!.range.start.line).toBe(target);
    expect(lines[target]!.slice(result[0]!.range.start.character, result[0]!.range.end.character)).toBe(`"${parentId}"`);
  });

  it("finds the children of an entry that starts two branches", async () => {
    // The entry on line 3 has more than one child in this Pi-written session.
    const id = (JSON.parse(lines[3]!) as { id: string }).id;
    const children = lines.filter((l) => l.includes(`"parentId":"${id}"`)).length;
    const result = (await client.connection.sendRequest("textDocument/references", {
      textDocument: { uri },
      position: at(3, `"id":"${id}"`, 6),
      context: { includeDeclaration: false },
    })) as Location[];
    expect(children).toBeGreaterThan(1);
    expect(result.length).toBeGreaterThanOrEqual(children);
    const highlights = (await client.connection.sendRequest("textDocument/documentHighlight", {
      textDocument: { uri },
      position: at(3, `"id":"${id}"`, 6),
    })) as unknown[];
    expect(highlights).toHaveLength(result.length + 1);
  });

  it("hovers an entry type and an assistant message", async () => {
    const typeHover = (await client.connection.sendRequest("textDocument/hover", { textDocument: { uri }, position: at(1, '"model_change"') })) as {
      contents: { kind: string; value: string };
    };
    expect(typeHover.contents.kind).toBe("markdown");
    expect(typeHover.contents.value).toContain("model_change");
    const assistant = lines.findIndex((l) => l.includes('"role":"assistant"'));
    const entryHover = (await client.connection.sendRequest("textDocument/hover", { textDocument: { uri }, position: at(assistant, '"usage"') })) as {
      contents: { value: string };
    };
    expect(entryHover.contents.value).toContain("assistant");
    expect(entryHover.contents.value).toMatch(/Tokens/);
  });

  it("walks the tree through the type hierarchy, one level per request", async () => {
    const [item] = (await client.connection.sendRequest("textDocument/prepareTypeHierarchy", { textDocument: { uri }, position: at(3, '"id"') })) as {
      name: string;
      data: unknown;
    }[];
    expect(item).toBeDefined();
    const subtypes = (await client.connection.sendRequest("typeHierarchy/subtypes", { item })) as { range: { start: { line: number } } }[];
    const id = (JSON.parse(lines[3]!) as { id: string }).id;
    expect(subtypes.map((s) => s.range.start.line).sort()).toEqual(lines.flatMap((l, i) => (l.includes(`"parentId":"${id}"`) ? [i] : [])).sort());
    const supertypes = (await client.connection.sendRequest("typeHierarchy/supertypes", { item })) as { range: { start: { line: number } } }[];
    expect(supertypes.map((s) => s.range.start.line)).toEqual([2]);
    const incoming = (await client.connection.sendRequest("callHierarchy/incomingCalls", { item })) as unknown[];
    expect(incoming.length).toBeGreaterThanOrEqual(subtypes.length);
  });

  it("finds open sessions' symbols from the workspace", async () => {
    const symbols = (await client.connection.sendRequest("workspace/symbol", { query: "" })) as { name: string; location: { uri: string } }[];
    expect(symbols.length).toBeGreaterThan(0);
    expect(symbols.every((s) => s.location.uri === uri)).toBe(true);
  });

  it("completes entry ids inside a parentId, the leaf first", async () => {
    const parentId = (JSON.parse(lines[3]!) as { parentId: string }).parentId;
    const result = (await client.connection.sendRequest("textDocument/completion", {
      textDocument: { uri },
      position: at(3, `"parentId":"${parentId}"`, 12),
    })) as { items: { label: string }[] };
    const leafId = (JSON.parse(lines.filter((l) => l.trim()).at(-1)!) as { id: string }).id;
    expect(result.items.length).toBeGreaterThan(1);
    expect(result.items[0]!.label).toBe(leafId);
  });

  it("renames an id with every reference, and refuses an id that exists", async () => {
    const id = (JSON.parse(lines[3]!) as { id: string }).id;
    const position = at(3, `"id":"${id}"`, 6);
    const prepared = (await client.connection.sendRequest("textDocument/prepareRename", { textDocument: { uri }, position })) as { placeholder: string };
    expect(prepared.placeholder).toBe(id);
    const edit = (await client.connection.sendRequest("textDocument/rename", { textDocument: { uri }, position, newName: "renamed1" })) as {
      changes: Record<string, { newText: string }[]>;
    };
    const references = lines.filter((l) => l.includes(`"${id}"`)).length;
    expect(edit.changes[uri]!.length).toBeGreaterThanOrEqual(references);
    expect(edit.changes[uri]!.every((e) => e.newText === '"renamed1"')).toBe(true);
    const taken = (JSON.parse(lines[2]!) as { id: string }).id;
    await expect(client.connection.sendRequest("textDocument/rename", { textDocument: { uri }, position, newName: taken })).rejects.toMatchObject({
      code: -32602,
    });
  });

  it("formats a Pi-written session into itself", async () => {
    const edits = await client.connection.sendRequest("textDocument/formatting", { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } });
    expect(edits).toEqual([]);
  });

  it("answers an unknown document with nothing rather than an error", async () => {
    const result = await client.connection.sendRequest("textDocument/definition", {
      textDocument: { uri: "file:///nope.jsonl" },
      position: { line: 0, character: 0 },
    });
    expect(result).toEqual([]);
  });
});

describe("outline and folding over stdio", () => {
  it("caps the outline at piSession.maxSymbols and tells the client", async () => {
    const capped = spawnServer();
    try {
      await capped.initialize(PULL_CAPABILITIES, { initializationOptions: { piSession: { maxSymbols: 3 } } });
      await capped.open(uri, text);
      const symbols = (await capped.connection.sendRequest("textDocument/documentSymbol", { textDocument: { uri } })) as {
        name: string;
        children?: unknown[];
      }[];
      const count = (list: { children?: unknown[] }[]): number => list.reduce((n, s) => n + 1 + count((s.children ?? []) as { children?: unknown[] }[]), 0);
      expect(count(symbols)).toBe(3);
      const reached = await capped.waitUntil(
        () => capped.otherNotifications.find((n) => n.method === "piSession/resultLimitReached"),
        "piSession/resultLimitReached",
      );
      expect(reached.params).toEqual({ uri, feature: "documentSymbols", limit: 3 });
      expect(capped.logs.some((l) => l.message.includes("stops at 3 symbols"))).toBe(true);
    } finally {
      expect((await capped.shutdownAndExit()).code).toBe(0);
    }
  });

  it("gives the whole outline and folding ranges with default settings", async () => {
    const symbols = (await client.connection.sendRequest("textDocument/documentSymbol", { textDocument: { uri } })) as { name: string }[];
    expect(symbols[0]!.name).toMatch(/^session/);
    expect(symbols.some((s) => /^branch 1 of \d/.test(s.name))).toBe(true);
    const ranges = (await client.connection.sendRequest("textDocument/foldingRange", { textDocument: { uri } })) as { startLine: number; endLine: number }[];
    expect(ranges.length).toBeGreaterThan(0);
    expect(ranges.every((r) => r.startLine < r.endLine)).toBe(true);
  });
});
