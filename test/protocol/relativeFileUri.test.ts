/**
 * A `file:` URI without a "/" after the scheme (`file:x.jsonl`, `file:../y`) is not a file URI
 * (RFC 8089 allows only an absolute path), though `new URL` and Node's `fileURLToPath` read it as
 * `/x.jsonl`. The server treats such a document as one with no path, like an `untitled:` one: no
 * parentSession link, fork action or session folder resolved against `/`, and no such workspace
 * folder indexed.
 */

import { afterEach, describe, expect, it } from "vitest";
import { documentPath } from "../../server/src/core/base/posixPath";
import { cwdForDocument } from "../../server/src/core/disk/location";
import type { ClientCapabilities } from "vscode-languageserver/node";
import { type LspTestClient, PULL_CAPABILITIES, startInProcess } from "../helpers/lspClient";

const HEADER = `{"type":"session","version":3,"id":"019cae1a-4f00-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/home/dev/project","parentSession":"../etc/parent.jsonl"}`;
const USER = `{"type":"message","id":"a0000002","parentId":null,"timestamp":"2026-03-02T10:00:02.000Z","message":{"role":"user","content":"hi","timestamp":1772445602000}}`;
const TEXT = `${HEADER}\n${USER}\n`;
const CAPABILITIES: ClientCapabilities = {
  ...PULL_CAPABILITIES,
  workspace: { ...PULL_CAPABILITIES.workspace, workspaceEdit: { documentChanges: true, resourceOperations: ["create"] } },
};

let client: LspTestClient | undefined;
afterEach(() => {
  client?.dispose();
  client = undefined;
});

/** What the server answers about the session's links and actions, for a document opened as `uri`. */
async function answers(c: LspTestClient, uri: string) {
  await c.open(uri, TEXT);
  const textDocument = { uri };
  const onParent = { line: 0, character: HEADER.indexOf("../etc") + 2 };
  const links = await c.request<unknown[]>("textDocument/documentLink", { textDocument });
  const definition = await c.request<unknown[]>("textDocument/definition", { textDocument, position: onParent });
  const range = { start: { line: 1, character: 0 }, end: { line: 1, character: 5 } };
  const actions = await c.request<{ title: string }[]>("textDocument/codeAction", { textDocument, range, context: { diagnostics: [] } });
  return { links, definition, actions: actions.map((a) => a.title).filter((t) => /^Fork/.test(t)) };
}

describe("a relative file: URI", () => {
  it("names no path", () => {
    for (const uri of ["file:x.jsonl", "file:./x.jsonl", "file:../etc/passwd", "FILE:x.jsonl", "untitled:x.jsonl"]) {
      expect(documentPath(uri), uri).toBeUndefined();
      expect(cwdForDocument(uri), uri).toBe("/");
    }
    expect(documentPath("file:///tmp/a%20b.jsonl")).toBe("/tmp/a b.jsonl");
    expect(documentPath("file:/tmp/x.jsonl")).toBe("/tmp/x.jsonl");
    expect(documentPath("file://localhost/tmp/x.jsonl")).toBe("/tmp/x.jsonl");
    expect(documentPath("file://host/tmp/x.jsonl")).toBeUndefined();
  });

  it("is answered as an untitled document: no link, definition or fork resolved against /", async () => {
    client = startInProcess();
    const c = client;
    await c.initialize(CAPABILITIES);
    const relative = await answers(c, "file:x.jsonl");
    const untitled = await answers(c, "untitled:x.jsonl");
    expect(relative).toEqual(untitled);
    expect(relative).toEqual({ links: [], definition: [], actions: [] });
    // An absolute file URI is a file: its parentSession links to the folder beside it, and it can be forked.
    const absolute = await answers(c, "file:///tmp/pi-session-lsp-relative/x.jsonl");
    expect(JSON.stringify(absolute.links)).toContain("file:///tmp/etc/parent.jsonl");
    expect(absolute.actions.length).toBeGreaterThan(0);
  });
});
