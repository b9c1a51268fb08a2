/**
 * The request table (`lsp/requests/index.ts`): every request is there once, and every request of
 * the LSP specification the server answers has a params shape, so that a request added without
 * one is noticed here rather than by a client whose malformed params make a feature throw.
 */

import { describe, expect, it } from "vitest";
import { REQUESTS } from "../../server/src/lsp/requests";

/** The specification's requests the server answers, each checked against its params' shape. */
const SHAPED = [
  "textDocument/diagnostic",
  "workspace/diagnostic",
  "textDocument/definition",
  "textDocument/references",
  "textDocument/documentHighlight",
  "textDocument/documentLink",
  "textDocument/hover",
  "textDocument/prepareCallHierarchy",
  "callHierarchy/incomingCalls",
  "callHierarchy/outgoingCalls",
  "textDocument/prepareTypeHierarchy",
  "typeHierarchy/supertypes",
  "typeHierarchy/subtypes",
  "workspace/symbol",
  "textDocument/documentSymbol",
  "textDocument/foldingRange",
  "textDocument/inlayHint",
  "textDocument/completion",
  "textDocument/prepareRename",
  "textDocument/rename",
  "textDocument/formatting",
  "textDocument/codeAction",
  "codeAction/resolve",
  "textDocument/codeLens",
  "codeLens/resolve",
  "workspace/executeCommand",
];

describe("the request table", () => {
  it("holds each method once", () => {
    const methods = REQUESTS.map((r) => r.method);
    expect(new Set(methods).size).toBe(methods.length);
  });

  it("gives a params shape to every request of the specification, and none to the server's own, which checks its params itself", () => {
    expect(REQUESTS.filter((r) => r.params !== undefined).map((r) => r.method)).toEqual(SHAPED);
    expect(REQUESTS.filter((r) => r.params === undefined).map((r) => r.method)).toEqual(["piSession/buildContext"]);
  });

  // By its type, the connection itself refuses a request sent without params; by a bare method it
  // would call the handler with the cancellation token in the params' place.
  it("registers every specification request by its protocol type, and only the server's own by its method", () => {
    expect(REQUESTS.filter((r) => typeof r.type === "string").map((r) => r.method)).toEqual(["piSession/buildContext"]);
  });
});
