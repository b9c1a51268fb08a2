/**
 * `workspace/diagnostic` over stdio: the built server, HOME at a temporary folder holding Pi's
 * sessions folder for the workspace's project, answers for the session files that are not open,
 * each file as `check FILE --format json` answers; a second pull with the result ids reads nothing
 * (the work-done progress's last message counts the bytes read); reports stream as partial results
 * before the final answer; a cancelled pull stops; a FIFO and a link in the folder are skipped; the
 * caps on files and bytes hold; a change on disk asks the client to pull again.
 */

import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type Diagnostic,
  LSPErrorCodes,
  ResponseError,
  WorkDoneProgress,
  WorkspaceDiagnosticRequest,
  type WorkspaceDiagnosticReport,
  type WorkspaceDocumentDiagnosticReport,
} from "vscode-languageserver/node";
import { defaultSessionDir } from "../../server/src/core/disk/location";
import { parseFixture } from "../helpers/fixture";
import { BIN, ensureBuilt, type LspTestClient, PULL_CAPABILITIES, REPO_ROOT, spawnServer } from "../helpers/lspClient";

const SESSIONS = join(REPO_ROOT, "client-samples", "sessions");

let root: string;
let client: LspTestClient | undefined;

beforeAll(async () => {
  await ensureBuilt();
  root = realpathSync(mkdtempSync(join(tmpdir(), "pi-wsdiag-test-")));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => {
  client?.dispose();
  client = undefined;
});

/** A fresh HOME and project folder, with Pi's sessions folder for the project made. */
function workspace(name: string): { home: string; project: string; piFolder: string } {
  const home = join(root, name, "home");
  const project = join(root, name, "project");
  mkdirSync(project, { recursive: true });
  const piFolder = defaultSessionDir("1.x", project, join(home, ".pi", "agent"), { cwd: project, home });
  mkdirSync(piFolder, { recursive: true });
  return { home, project, piFolder };
}

const uri = (path: string) => pathToFileURL(path).href;

/** A valid session of about `bytes` bytes: a header, then user messages chained by parentId. */
function bigSession(bytes: number): string {
  const lines = ['{"type":"session","version":3,"id":"019cadfd-8900-70c4-be01-07d90c16aaaa","timestamp":"2026-03-02T10:00:00.001Z","cwd":"/home/dev/project"}'];
  const text = "x".repeat(4000);
  let size = lines[0]!.length;
  let parent: string | null = null;
  for (let i = 0; size < bytes; i++) {
    const id = i.toString(16).padStart(8, "0");
    const line = JSON.stringify({
      type: "message",
      id,
      parentId: parent,
      timestamp: "2026-03-02T10:00:05.004Z",
      message: { role: "user", content: text, timestamp: 1772445605003 },
    });
    lines.push(line);
    size += line.length + 1;
    parent = id;
  }
  return `${lines.join("\n")}\n`;
}

/** A pull client with a refresh handler, on the given workspace, with the given settings. */
async function start(ws: { home: string; project: string }, settings: Record<string, unknown> = {}): Promise<LspTestClient> {
  client = spawnServer(["--stdio"], { env: { HOME: ws.home } });
  const result = await client.initialize(
    { ...PULL_CAPABILITIES, workspace: { ...PULL_CAPABILITIES.workspace, diagnostics: { refreshSupport: true } } },
    { workspaceFolders: [{ uri: uri(ws.project), name: basename(ws.project) }], initializationOptions: settings },
  );
  expect(result.capabilities.diagnosticProvider).toMatchObject({ workspaceDiagnostics: true });
  return client;
}

interface Pull {
  /** Every report, from the partial results and the final answer, in arrival order. */
  items: WorkspaceDocumentDiagnosticReport[];
  /** "partial" for each partial result, "final" for the answer, in arrival order. */
  events: string[];
  /** The work-done progress's messages. */
  progress: { kind: string; message?: string }[];
  error?: ResponseError<unknown>;
}

let tokens = 0;

/** Pulls once with partial results and work-done progress; `onPartial` may cancel. */
async function pull(c: LspTestClient, previous: WorkspaceDocumentDiagnosticReport[] = [], onPartial?: (cancel: () => void) => void): Promise<Pull> {
  const partialResultToken = `partial-${++tokens}`;
  const workDoneToken = `work-${tokens}`;
  const out: Pull = { items: [], events: [], progress: [] };
  let cancel = () => {};
  const partial = c.connection.onProgress(WorkspaceDiagnosticRequest.partialResult, partialResultToken, (value) => {
    out.items.push(...value.items);
    out.events.push("partial");
    onPartial?.(cancel);
  });
  const work = c.connection.onProgress(WorkDoneProgress.type, workDoneToken, (value) => void out.progress.push(value));
  const previousResultIds = previous.flatMap((r) => (r.resultId ? [{ uri: r.uri, value: r.resultId }] : []));
  const { CancellationTokenSource } = await import("vscode-languageserver/node");
  const source = new CancellationTokenSource();
  cancel = () => source.cancel();
  try {
    const answer = await c.connection.sendRequest(WorkspaceDiagnosticRequest.type, { previousResultIds, partialResultToken, workDoneToken }, source.token);
    out.items.push(...answer.items);
    out.events.push("final");
  } catch (error) {
    if (!(error instanceof ResponseError)) throw error;
    out.error = error;
  } finally {
    partial.dispose();
    work.dispose();
  }
  return out;
}

const reportOf = (p: Pull, path: string) => p.items.filter((r) => r.uri === uri(path)).at(-1);
const lastMessage = (p: Pull) => p.progress.filter((v) => v.kind === "end").at(-1)?.message ?? "";

/** What `check --format json FILE` lists, run from the project as Pi would be. */
function checkJson(ws: { home: string; project: string }, path: string): Diagnostic[] {
  const run = spawnSync(process.execPath, [BIN, "check", "--format", "json", path], {
    cwd: ws.project,
    env: { ...process.env, HOME: ws.home },
    encoding: "utf8",
  });
  return (JSON.parse(run.stdout) as { diagnostics: Diagnostic[] }).diagnostics;
}

describe("workspace/diagnostic", () => {
  it("reports every closed session as check does, streams partial results first, then reads nothing for unchanged files", async () => {
    const ws = workspace("full");
    const broken = join(ws.piFolder, "broken.jsonl");
    const healthy = join(ws.piFolder, "healthy.jsonl");
    const inWorkspace = join(ws.project, "notes", "copy.jsonl");
    const data = join(ws.project, "data.jsonl");
    copyFileSync(join(SESSIONS, "broken.jsonl"), broken);
    copyFileSync(join(SESSIONS, "valid-branches.jsonl"), healthy);
    mkdirSync(join(ws.project, "notes"));
    copyFileSync(join(SESSIONS, "broken.jsonl"), inWorkspace);
    // A .jsonl file of the workspace that is no session of Pi's is left alone.
    writeFileSync(data, '{"x":1}\n{"x":2\n');
    const c = await start(ws);

    const first = await pull(c);
    expect(first.error).toBeUndefined();
    // Every report came as a partial result, and the final answer came last, empty.
    expect(first.events.at(-1)).toBe("final");
    expect(first.events.filter((e) => e === "partial").length).toBeGreaterThanOrEqual(2);
    expect(first.items.map((r) => r.uri).sort()).toEqual([broken, data, inWorkspace, healthy].map(uri).sort());
    for (const r of first.items) expect(r).toMatchObject({ kind: "full", version: null, resultId: expect.any(String) });

    const brokenReport = reportOf(first, broken) as { items: Diagnostic[] };
    expect(brokenReport.items.length).toBeGreaterThan(0);
    expect(brokenReport.items).toEqual(checkJson(ws, broken));
    expect((reportOf(first, inWorkspace) as { items: Diagnostic[] }).items).toEqual(checkJson(ws, inWorkspace));
    expect((reportOf(first, healthy) as { items: Diagnostic[] }).items).toEqual(checkJson(ws, healthy));
    expect((reportOf(first, data) as { items: Diagnostic[] }).items).toEqual([]);
    expect(lastMessage(first)).toMatch(/^4 files, 0 unchanged, 4 checked \([\d,]+ bytes read\)/);

    // With the result ids, nothing is read again: every file is unchanged and no byte was read.
    const second = await pull(c, first.items);
    expect(second.items.map((r) => r.kind)).toEqual(["unchanged", "unchanged", "unchanged", "unchanged"]);
    expect(lastMessage(second)).toBe("4 files, 4 unchanged, 0 checked (0 bytes read)");

    // A file written again is read again, and only it.
    writeFileSync(healthy, readFileSync(join(SESSIONS, "broken.jsonl")));
    const third = await pull(c, first.items);
    expect(reportOf(third, healthy)).toMatchObject({ kind: "full", items: checkJson(ws, healthy) });
    expect(lastMessage(third)).toMatch(/^4 files, 3 unchanged, 1 checked/);

    // A file removed has its list emptied.
    rmSync(inWorkspace);
    const fourth = await pull(c, first.items);
    expect(reportOf(fourth, inWorkspace)).toEqual({ kind: "full", uri: uri(inWorkspace), items: [], version: null });
  });

  it("says of every diagnostics fixture, and of a UTF-16 session, what check --format json says of the folder", async () => {
    const ws = workspace("fixtures");
    const fixtures = join(REPO_ROOT, "test", "fixtures", "diagnostics");
    const names = readdirSync(fixtures).filter((n) => n.endsWith(".txt"));
    for (const name of names) writeFileSync(join(ws.piFolder, name.replace(/\.txt$/, ".jsonl")), parseFixture(readFileSync(join(fixtures, name), "utf8")).text);
    // What Windows PowerShell writes: UTF-16 with a byte order mark, which check decodes whole.
    writeFileSync(
      join(ws.piFolder, "powershell-utf16.jsonl"),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(readFileSync(join(SESSIONS, "broken.jsonl"), "utf8"), "utf16le")]),
    );
    // A summary nested 5,000 levels deep: Pi's String() of it overflows the main thread's stack,
    // which check runs on; a worker thread's stack must be no deeper (4 MB would not overflow).
    const header = readFileSync(join(SESSIONS, "valid-branches.jsonl"), "utf8").split("\n")[0]!;
    const summary = `{"type":"branch_summary","id":"b1","parentId":null,"timestamp":"2026-03-02T10:00:02.000Z","fromId":"root","summary":${"[".repeat(5000)}${"]".repeat(5000)}}`;
    writeFileSync(join(ws.piFolder, "deep-summary.jsonl"), `${header}\n${summary}\n`);
    const c = await start(ws);
    const answer = await c.request<WorkspaceDiagnosticReport>("workspace/diagnostic", { previousResultIds: [] });
    const run = spawnSync(process.execPath, [BIN, "check", "--format", "json", ws.piFolder], {
      cwd: ws.project,
      env: { ...process.env, HOME: ws.home },
      encoding: "utf8",
    });
    const byCheck = new Map(
      run.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { file: string; diagnostics: Diagnostic[] })
        .map((r) => [uri(r.file), r.diagnostics]),
    );
    expect(answer.items.map((r) => r.uri).sort()).toEqual([...byCheck.keys()].sort());
    expect(byCheck.size, run.stderr).toBe(names.length + 2);
    for (const report of answer.items) expect((report as { items: Diagnostic[] }).items, report.uri).toEqual(byCheck.get(report.uri));
    expect(byCheck.get(uri(join(ws.piFolder, "powershell-utf16.jsonl")))?.length).toBeGreaterThan(0);
    expect(byCheck.get(uri(join(ws.piFolder, "deep-summary.jsonl")))?.map((d) => d.code)).toContain("request-throws");
  });

  it("answers without partial results when the client gives no token, and leaves open documents to textDocument/diagnostic", async () => {
    const ws = workspace("open");
    const broken = join(ws.piFolder, "broken.jsonl");
    const opened = join(ws.piFolder, "opened.jsonl");
    copyFileSync(join(SESSIONS, "broken.jsonl"), broken);
    copyFileSync(join(SESSIONS, "broken.jsonl"), opened);
    const c = await start(ws);
    await c.open(uri(opened), readFileSync(opened, "utf8"));
    const answer = await c.request<WorkspaceDiagnosticReport>("workspace/diagnostic", { previousResultIds: [] });
    expect(answer.items.map((r) => r.uri)).toEqual([uri(broken)]);
    expect(answer.items[0]).toMatchObject({ kind: "full", items: checkJson(ws, broken) });
    // Once closed, it is the workspace's again.
    await c.close(uri(opened));
    const after = await c.request<WorkspaceDiagnosticReport>("workspace/diagnostic", { previousResultIds: [] });
    expect(after.items.map((r) => r.uri).sort()).toEqual([uri(broken), uri(opened)].sort());
  });

  it("skips a FIFO and a link named *.jsonl, and says so once", async () => {
    const ws = workspace("special");
    const broken = join(ws.piFolder, "broken.jsonl");
    copyFileSync(join(SESSIONS, "broken.jsonl"), broken);
    const fifo = join(ws.piFolder, "fifo.jsonl");
    execFileSync("mkfifo", [fifo]);
    const outside = join(root, "special", "outside.jsonl");
    copyFileSync(join(SESSIONS, "broken.jsonl"), outside);
    const link = join(ws.piFolder, "link.jsonl");
    symlinkSync(outside, link);
    const toNull = join(ws.project, "zero.jsonl");
    symlinkSync("/dev/zero", toNull);
    const c = await start(ws);
    const first = await pull(c);
    expect(first.error).toBeUndefined();
    expect(first.items.map((r) => r.uri)).toEqual([uri(broken)]);
    const notes = c.logs.filter((l) => l.message.includes("not a regular file")).map((l) => l.message);
    expect(notes.sort()).toEqual([expect.stringContaining(`${fifo} is a FIFO`), expect.stringContaining(`${link} is a symbolic link`)]);
    await pull(c, first.items);
    expect(c.logs.filter((l) => l.message.includes("not a regular file"))).toHaveLength(2);
  });

  it("ends on a hostile workspace (links to itself, out and to /dev/zero, a FIFO, a hard link, 100,000 broken lines), each file once, as check says", async () => {
    const ws = workspace("hostile");
    const { seeded, writeHostileFolder } = await import("../helpers/hostile.mjs");
    const hostileRoot = join(ws.project, "hostile");
    const { dir } = writeHostileFolder(hostileRoot, seeded(30));
    const c = await start(ws);
    const answer = await c.request<WorkspaceDiagnosticReport>("workspace/diagnostic", { previousResultIds: [] });
    const run = spawnSync(process.execPath, [BIN, "check", "--format", "json", hostileRoot], {
      cwd: ws.project,
      env: { ...process.env, HOME: ws.home },
      encoding: "utf8",
    });
    const byCheck = new Map(
      run.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { file: string; diagnostics: Diagnostic[] })
        .map((r) => [uri(r.file), r.diagnostics]),
    );
    const uris = answer.items.map((r) => r.uri);
    // Each file once (the hard link is the same file), nothing through a link, the FIFO skipped.
    expect(new Set(uris).size).toBe(uris.length);
    for (const name of ["link-out.jsonl", "zero.jsonl", "dangling.jsonl", "fifo.jsonl"]) expect(uris).not.toContain(uri(join(dir, name)));
    expect(uris.some((u) => u.includes("/self/") || u.includes("/loop/") || u.includes("/shared/"))).toBe(false);
    expect(uris.length).toBeGreaterThan(10);
    // A file with a session header is reported as check reports it; one without is none of Pi's.
    for (const report of answer.items) {
      const items = (report as { items: Diagnostic[] }).items;
      if (items.length > 0) expect(items, report.uri).toEqual(byCheck.get(report.uri));
    }
    const huge = answer.items.find((r) => r.uri.endsWith("_huge.jsonl")) as { items: Diagnostic[] };
    expect(huge.items.length).toBeLessThanOrEqual(1000);
  });

  it("keeps to the caps on files and bytes: the files over the byte cap wait for the next pull, a file larger than it is never read", async () => {
    const ws = workspace("caps");
    const small = join(ws.piFolder, "a-small.jsonl");
    const half1 = join(ws.piFolder, "b-half.jsonl");
    const half2 = join(ws.piFolder, "c-half.jsonl");
    const huge = join(ws.piFolder, "d-huge.jsonl");
    copyFileSync(join(SESSIONS, "broken.jsonl"), small);
    writeFileSync(half1, bigSession(600 * 1024));
    writeFileSync(half2, bigSession(600 * 1024));
    writeFileSync(huge, bigSession(2 * 1024 * 1024));
    // The newest file is read first: b-half, then c-half would pass the cap of 1 MiB.
    utimesSync(half1, new Date(), new Date(Date.now() + 60_000));
    // A large data set of the workspace, no session: neither read nor said too large.
    const data = join(ws.project, "data.jsonl");
    writeFileSync(data, '{"x":1}\n'.repeat(300_000));
    const c = await start(ws, { workspaceDiagnosticsMaxMiB: 1 });
    const first = await pull(c);
    expect(first.items.map((r) => basename(r.uri)).sort()).toEqual(["a-small.jsonl", "b-half.jsonl"]);
    expect(lastMessage(first)).toMatch(/^5 files, 0 unchanged, 2 checked .*, 1 left for the next pull .*, 1 too large to check in the background/);
    expect(c.logs.some((l) => l.message.includes(`not checked: ${huge} is 2 MiB, more than the 1 MiB`))).toBe(true);
    expect(c.logs.some((l) => l.message.includes(data))).toBe(false);
    const second = await pull(c, first.items);
    expect(second.items.find((r) => r.uri === uri(half2))).toMatchObject({ kind: "full" });
    expect(lastMessage(second)).toMatch(/^5 files, 2 unchanged, 1 checked .*, 1 too large/);
    c.dispose();

    const capped = await start(ws, { workspaceDiagnosticsMaxFiles: 2 });
    const few = await pull(capped);
    expect(few.items).toHaveLength(2);
    expect(lastMessage(few)).toMatch(/3 left out \(piSession.workspaceDiagnosticsMaxFiles\)$/);
  });

  it("stops a cancelled pull: the error is RequestCancelled and the files after it are not reported", async () => {
    const ws = workspace("cancel");
    const files = Array.from({ length: 12 }, (_, i) => join(ws.piFolder, `s${i}.jsonl`));
    for (const f of files) writeFileSync(f, bigSession(3 * 1024 * 1024));
    const c = await start(ws);
    // Cancelled once the first report arrives; eleven files of 3 MiB are still to read.
    const cancelled = await pull(c, [], (cancel) => cancel());
    expect(cancelled.error?.code).toBe(LSPErrorCodes.RequestCancelled);
    expect(cancelled.items.length).toBeGreaterThanOrEqual(1);
    expect(cancelled.items.length).toBeLessThan(files.length);
    expect(cancelled.events).not.toContain("final");
    // The server goes on answering.
    const again = await pull(c, cancelled.items);
    expect(again.error).toBeUndefined();
    expect(new Set(again.items.map((r) => r.uri)).size).toBe(files.length);
  });

  it("asks the client to pull again when a session changes on disk", async () => {
    const ws = workspace("refresh");
    const broken = join(ws.piFolder, "broken.jsonl");
    copyFileSync(join(SESSIONS, "broken.jsonl"), broken);
    const c = await start(ws);
    await pull(c);
    const before = c.serverRequests.filter((r) => r.method === "workspace/diagnostic/refresh").length;
    writeFileSync(join(ws.piFolder, "new.jsonl"), readFileSync(join(SESSIONS, "valid-branches.jsonl")));
    await c.waitUntil(
      () => (c.serverRequests.filter((r) => r.method === "workspace/diagnostic/refresh").length > before ? true : undefined),
      "workspace/diagnostic/refresh after a new session file",
    );
  });
});
