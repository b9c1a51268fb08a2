/**
 * The editor's index of every session, over stdio: the built server started with HOME at a fake
 * Pi home, so that it finds Pi's sessions folder as Pi would. Workspace symbols reach sessions that
 * are not open (ids, names, labels, first messages), the index is built in the background with
 * $/progress and follows files Pi writes, `parentSession` leads to the parent and the parent's
 * references are its forks, and a session of a moved project says so and where Pi looks.
 */

import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Location, SymbolInformation } from "vscode-languageserver/node";
import { until } from "../helpers/limits";
import { ensureBuilt, type LspTestClient, PUSH_CAPABILITIES, spawnServer } from "../helpers/lspClient";
import type { FakeHome } from "../sessions/fakeHome.mjs" with { "resolution-mode": "import" };

let root: string;
let home: FakeHome;
let client: LspTestClient | undefined;

beforeAll(async () => {
  await ensureBuilt();
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-index-test-")));
  const { buildFakeHome } = await import("../sessions/fakeHome.mjs");
  home = buildFakeHome(root);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

afterEach(() => {
  client?.dispose();
  client = undefined;
});

const uri = (path: string) => pathToFileURL(path).href;

/** `$/progress` values, which the protocol library handles itself instead of passing them on as notifications. */
let progress: { kind: string; title?: string; percentage?: number; message?: string }[] = [];

/** A server on the fake home; `beforeInitialize` runs on its client before `initialize`. */
async function start(folders: string[] = [home.projects.alpha, home.projects.gamma], beforeInitialize = (_: LspTestClient) => {}): Promise<LspTestClient> {
  client = spawnServer(["--stdio"], { env: { HOME: home.home } });
  beforeInitialize(client);
  progress = [];
  client.connection.onNotification("$/progress", (p: { value: (typeof progress)[number] }) => void progress.push(p.value));
  await client.initialize(
    { ...PUSH_CAPABILITIES, workspace: { didChangeWatchedFiles: { dynamicRegistration: true } } },
    { workspaceFolders: folders.map((f) => ({ uri: uri(f), name: basename(f) })) },
  );
  return client;
}

const indexed = (c: LspTestClient) => c.waitUntil(() => c.logs.find((l) => l.message.startsWith("indexed ")), "the index to be built");
const symbols = (c: LspTestClient, query: string) => c.request<SymbolInformation[]>("workspace/symbol", { query });

describe("workspace index", () => {
  it("builds in the background with $/progress and finds closed sessions by name, label, id and first message", async () => {
    // The index asks for a progress token before it reads a file: held back, it has read nothing,
    // and a request is answered all the same, from what has been indexed so far (nothing closed).
    let release = () => {};
    const c = await start(undefined, (c) => {
      release = c.hold("window/workDoneProgress/create");
    });
    expect(await symbols(c, "flaky")).toEqual([]);
    release();
    const done = await indexed(c);
    // A1-A4, A6 and the empty-named ones of alpha, B1, B2 and G1: every file with a header (A5 has none, one is empty).
    expect(done.message).toMatch(/^indexed 8 sessions/);
    expect(c.serverRequests.map((r) => r.method)).toContain("window/workDoneProgress/create");
    // The server ends the progress right after logging; a round trip brings everything it sent before.
    await symbols(c, "");
    expect(progress[0]).toMatchObject({ kind: "begin", title: "Indexing Pi sessions" });
    expect(progress.at(-1)).toEqual({ kind: "end" });

    const named = await symbols(c, "Beta deploy");
    expect(named).toContainEqual(
      expect.objectContaining({ name: "Beta deploy", kind: 2, location: expect.objectContaining({ uri: uri(home.written.b1.path) }) }),
    );
    const label = (await symbols(c, "flaky-login")).find((s) => s.name === "flaky-login")!;
    expect(label.location.uri).toBe(uri(home.written.a1.path));
    expect(label.containerName).toBe("Fix the flaky login test");
    // The label sits on the entry it names: the first user message, line 4 of A1.
    const a1Lines = readFileSync(home.written.a1.path, "utf8").split("\n");
    expect(a1Lines[label.location.range.start.line]).toContain('"type":"message"');
    expect(a1Lines[label.location.range.start.line]!.slice(label.location.range.start.character, label.location.range.end.character)).toMatch(/^"a001\d{4}"$/);
    const id = await symbols(c, "session 019d2b00");
    expect(id.map((s) => s.location.uri)).toContain(uri(home.written.a3.path));
    const first = await symbols(c, "Port the gamma renderer");
    expect(first[0]).toMatchObject({ name: "Port the gamma renderer to WebGPU.", location: { uri: uri(home.written.g1.path) } });
  });

  it("leads from parentSession to the parent, and from a session to its forks", async () => {
    const c = await start();
    await indexed(c);
    const a2 = readFileSync(home.written.a2.path, "utf8");
    await c.open(uri(home.written.a2.path), a2);
    const header = a2.split("\n")[0]!;
    const valueStart = header.indexOf('"parentSession":') + '"parentSession":'.length;
    const at = valueStart + 3;
    const definition = await c.request<Location[]>("textDocument/definition", {
      textDocument: { uri: uri(home.written.a2.path) },
      position: { line: 0, character: at },
    });
    expect(definition).toHaveLength(1);
    expect(definition[0]!.uri).toBe(uri(home.written.a1.path));
    const a1Header = readFileSync(home.written.a1.path, "utf8").split("\n")[0]!;
    expect(definition[0]!.range.start).toEqual({ line: 0, character: a1Header.indexOf('"019d1a00') });

    // On A1's header: the sessions forked from it (A2, closed or open).
    await c.open(uri(home.written.a1.path), readFileSync(home.written.a1.path, "utf8"));
    const forks = await c.request<Location[]>("textDocument/references", {
      textDocument: { uri: uri(home.written.a1.path) },
      position: { line: 0, character: 5 },
      context: { includeDeclaration: false },
    });
    expect(forks).toEqual([
      {
        uri: uri(home.written.a2.path),
        range: { start: { line: 0, character: valueStart }, end: { line: 0, character: header.indexOf('"', valueStart + 1) + 1 } },
      },
    ]);
    // A3 was forked into another project (B2, never opened): found from the index.
    const a3 = readFileSync(home.written.a3.path, "utf8");
    await c.open(uri(home.written.a3.path), a3);
    const a3Forks = await c.request<Location[]>("textDocument/references", {
      textDocument: { uri: uri(home.written.a3.path) },
      position: { line: 0, character: 5 },
      context: { includeDeclaration: true },
    });
    expect(a3Forks.map((l) => l.uri)).toEqual([uri(home.written.a3.path), uri(home.written.b2.path)]);
  });

  it("finds a session's forks from a header that a lone \\r splits into two of the client's lines", async () => {
    // The position's LSP line was compared with the header's Pi line: on the part of the header
    // after the "\r" (LSP line 1, Pi line 0) the forks were not looked for.
    const c = await start();
    await indexed(c);
    const a1 = readFileSync(home.written.a1.path, "utf8").replace('{"type":"session",', '{"type":"session",\r');
    await c.open(uri(home.written.a1.path), a1);
    const forks = await c.request<Location[]>("textDocument/references", {
      textDocument: { uri: uri(home.written.a1.path) },
      position: { line: 1, character: 5 },
      context: { includeDeclaration: false },
    });
    expect(forks.map((l) => l.uri)).toEqual([uri(home.written.a2.path)]);
  });

  it("says that a moved project's folder is gone and where Pi looks instead", async () => {
    const c = await start();
    await indexed(c);
    const text = readFileSync(home.written.g1.path, "utf8");
    await c.open(uri(home.written.g1.path), text);
    const published = await c.waitForDiagnostics(uri(home.written.g1.path), (p) => p.diagnostics.length > 0);
    const moved = published.diagnostics.find((d) => d.code === "cwd-missing")!;
    expect(moved.severity).toBe(2);
    expect(moved.message).toContain(`The project folder ${home.projects.gammaOld} no longer exists`);
    expect(moved.message).toContain(
      `If the project is now ${home.projects.gamma}, Pi run there looks in ${join(home.sessions, `--${home.projects.gamma.slice(1).replace(/\//g, "-")}--`)}`,
    );
    const cwdAt = text.split("\n")[0]!.indexOf(`"${home.projects.gammaOld}"`);
    expect(moved.range.start).toEqual({ line: 0, character: cwdAt });
  });

  it("says that a session lies in another project's folder", async () => {
    const misplaced = join(home.dirs.alpha, basename(home.written.b1.path));
    copyFileSync(home.written.b1.path, misplaced);
    try {
      const c = await start();
      await c.open(uri(misplaced), readFileSync(misplaced, "utf8"));
      const published = await c.waitForDiagnostics(uri(misplaced), (p) => p.diagnostics.some((d) => d.code === "folder-mismatch"));
      const d = published.diagnostics.find((x) => x.code === "folder-mismatch")!;
      expect(d.message).toContain(`but Pi keeps the sessions of ${home.projects.beta} in ${home.dirs.beta}`);
    } finally {
      rmSync(misplaced);
    }
  });

  it("follows what Pi writes: a new session and a renamed one show up without a restart", async () => {
    const c = await start();
    await indexed(c);
    const fresh = join(home.dirs.beta, "2026-03-09T00-00-00-000Z_019dabcd-0000-7000-8000-00000000abcd.jsonl");
    writeFileSync(
      fresh,
      `${JSON.stringify({ type: "session", version: 3, id: "019dabcd-0000-7000-8000-00000000abcd", timestamp: "2026-03-09T00:00:00.000Z", cwd: home.projects.beta })}\n`,
    );
    appendFileSync(
      fresh,
      `${JSON.stringify({ type: "session_info", id: "n1", parentId: null, timestamp: "2026-03-09T00:00:01.000Z", name: "Nightly rebuild" })}\n`,
    );
    appendFileSync(
      home.written.b1.path,
      `${JSON.stringify({ type: "session_info", id: "b0019999", parentId: null, timestamp: "2026-03-09T00:00:02.000Z", name: "Beta deploy, take two" })}\n`,
    );
    try {
      // No message says that a file was read again: ask until it shows (WAIT_MS stops a hang).
      const found = async (query: string) => {
        let hits: SymbolInformation[] = [];
        await until(async () => (hits = await symbols(c, query)).length > 0, `a symbol for ${JSON.stringify(query)}`);
        return hits;
      };
      expect((await found("Nightly rebuild"))[0]?.location.uri).toBe(uri(fresh));
      expect((await found("take two"))[0]?.location.uri).toBe(uri(home.written.b1.path));
    } finally {
      rmSync(fresh);
    }
  });
});
