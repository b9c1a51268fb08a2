/**
 * A large session is answered in two parts when it is opened (`lsp/diagnostics.ts`): first its
 * structural diagnostics, then the complete list, pushed again or pulled again after a
 * `workspace/diagnostic/refresh`. Here every fixture is held to it, with the size from which an
 * open is staged set to 0 (`$PI_SESSION_LSP_STAGED_OPEN_CHARS`): the first answer holds every
 * structural fault the complete list holds and nothing it does not, and the complete list equals
 * the one a server that answers at once gives (which `agreement.test.ts` holds to `check`'s).
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ClientCapabilities, Diagnostic } from "vscode-languageserver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionDocument } from "../../server/src/core/session/document";
import { collectDiagnostics, collectDiagnosticsSteps } from "../../server/src/features/diagnostics";
import { parseFixture } from "../helpers/fixture";
import { type LspTestClient, PULL_CAPABILITIES, PUSH_CAPABILITIES, startInProcess } from "../helpers/lspClient";

const dir = join(__dirname, "../fixtures/diagnostics");
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".txt"))
  .sort();

/** The codes of a session's structure: the lines that are not JSON, the header, ids, parents, cycles, duplicates. */
const STRUCTURAL_CODES = new Set([
  "empty-file",
  "missing-header",
  "invalid-header",
  "second-header",
  "misplaced-header",
  "old-version",
  "invalid-version",
  "bom",
  "malformed-json",
  "truncated-line",
  "not-an-object",
  "blank-line",
  "parent-cycle",
  "self-parent",
  "dangling-parent",
  "duplicate-id",
  "no-final-newline",
]);

const REFRESHING_PULL: ClientCapabilities = { ...PULL_CAPABILITIES, workspace: { ...PULL_CAPABILITIES.workspace, diagnostics: { refreshSupport: true } } };

const key = (d: Diagnostic) => JSON.stringify([d.code, d.range, d.severity, d.message, d.relatedInformation ?? [], d.tags ?? []]);

/** A server started in this process with `$PI_SESSION_LSP_STAGED_OPEN_CHARS` set to `stagedFrom` while it initializes. */
async function server(capabilities: ClientCapabilities, stagedFrom: string | undefined): Promise<LspTestClient> {
  const saved = process.env.PI_SESSION_LSP_STAGED_OPEN_CHARS;
  if (stagedFrom === undefined) delete process.env.PI_SESSION_LSP_STAGED_OPEN_CHARS;
  else process.env.PI_SESSION_LSP_STAGED_OPEN_CHARS = stagedFrom;
  try {
    const client = startInProcess();
    await client.initialize(capabilities);
    return client;
  } finally {
    if (saved === undefined) delete process.env.PI_SESSION_LSP_STAGED_OPEN_CHARS;
    else process.env.PI_SESSION_LSP_STAGED_OPEN_CHARS = saved;
  }
}

/** Checks the first answer against the complete list of a server that answers at once, and the complete list equal to it. */
function expectStaged(first: readonly Diagnostic[], complete: readonly Diagnostic[], atOnce: readonly Diagnostic[]): void {
  expect(complete.map(key)).toEqual(atOnce.map(key));
  const all = new Set(atOnce.map(key));
  for (const d of first) expect(all.has(key(d)), `${key(d)} is not in the complete list`).toBe(true);
  const firstKeys = new Set(first.map(key));
  for (const d of atOnce.filter((d) => STRUCTURAL_CODES.has(String(d.code))))
    expect(firstKeys.has(key(d)), `${key(d)} is missing from the first answer`).toBe(true);
}

describe("an open answered in two parts", () => {
  let atOnce: LspTestClient;
  let pulled: LspTestClient;
  let pushed: LspTestClient;
  let notRefreshing: LspTestClient;

  beforeAll(async () => {
    atOnce = await server(PULL_CAPABILITIES, undefined);
    pulled = await server(REFRESHING_PULL, "0");
    pushed = await server(PUSH_CAPABILITIES, "0");
    notRefreshing = await server(PULL_CAPABILITIES, "0");
  });

  afterAll(async () => {
    for (const c of [atOnce, pulled, pushed, notRefreshing]) await c?.dispose();
  });

  it("covers every structural code among the fixtures' diagnostics", () => {
    const codes = new Set(files.flatMap((f) => parseFixture(readFileSync(join(dir, f), "utf8")).expected.map((e) => e.code)));
    for (const code of ["missing-header", "invalid-header", "malformed-json", "parent-cycle", "dangling-parent", "duplicate-id", "bom"])
      expect(codes).toContain(code);
  });

  for (const file of files) {
    it(file, async () => {
      const { text } = parseFixture(readFileSync(join(dir, file), "utf8"));
      const uri = `file:///staged/${file.replace(/\.txt$/, ".jsonl")}`;
      await atOnce.open(uri, text);
      const expected = await atOnce.pullItems(uri);
      await atOnce.close(uri);

      // Pulled: the first answer, then a refresh, then the complete list under a new result id.
      const refreshes = pulled.serverRequests.filter((r) => r.method === "workspace/diagnostic/refresh").length;
      await pulled.open(uri, text);
      const first = await pulled.pullDiagnostics(uri);
      if (first.kind !== "full") throw new Error("the first pull was not a full report");
      await pulled.waitUntil(
        () => (pulled.serverRequests.filter((r) => r.method === "workspace/diagnostic/refresh").length > refreshes ? true : undefined),
        "the refresh after the first answer",
      );
      const again = await pulled.pullDiagnostics(uri, first.resultId);
      const complete = again.kind === "full" ? again.items : first.items;
      await pulled.close(uri);
      expectStaged(first.items, complete, expected);

      // Pushed: two publishes of version 1, the structural ones, then the complete list.
      const since = pushed.mark();
      await pushed.open(uri, text);
      const firstPush = await pushed.waitForDiagnostics(uri, (p) => p.version === 1, { since });
      const secondPush = await pushed.waitForDiagnostics(uri, (p) => p.version === 1 && p !== firstPush, { since });
      await pushed.close(uri);
      expectStaged(firstPush.diagnostics, secondPush.diagnostics, expected);

      // A pulling client that cannot be asked to pull again gets the complete list at once.
      await notRefreshing.open(uri, text);
      expect((await notRefreshing.pullItems(uri)).map(key)).toEqual(expected.map(key));
      await notRefreshing.close(uri);
    });
  }

  it("answers an edit sent right after the first answer with the complete list of the new text", async () => {
    const { text } = parseFixture(readFileSync(join(dir, "dangling-parent.txt"), "utf8"));
    const uri = "file:///staged/edited.jsonl";
    await pulled.open(uri, text);
    await pulled.pullDiagnostics(uri);
    // Sent at once: the complete list of the opened text, if still being made, is dropped for the new text.
    await pulled.change(uri, [{ text: `${text}{broken\n` }]);
    const afterEdit = await pulled.pullItems(uri);
    await atOnce.open(uri, `${text}{broken\n`);
    expect(afterEdit.map(key)).toEqual((await atOnce.pullItems(uri)).map(key));
    await atOnce.close(uri);
    await pulled.close(uri);
  });
});

describe("the complete list made in steps", () => {
  it("yields between the checks and within the provider request's, and ends with the list made at once", () => {
    let mostSteps = 0;
    for (const file of files) {
      const { text } = parseFixture(readFileSync(join(dir, file), "utf8"));
      const steps = collectDiagnosticsSteps(new SessionDocument("file:///s.jsonl", "jsonl", 1, text));
      let count = 0;
      let next = steps.next();
      for (; !next.done; next = steps.next()) count++;
      mostSteps = Math.max(mostSteps, count);
      const atOnce = collectDiagnostics(new SessionDocument("file:///s.jsonl", "jsonl", 1, text)).diagnostics;
      expect(next.value.diagnostics.map(key), file).toEqual(atOnce.map(key));
    }
    // Eleven checks, and the four pieces of the provider request's (each version's context and request).
    expect(mostSteps).toBeGreaterThanOrEqual(15);
  });
});
