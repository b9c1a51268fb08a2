/**
 * The Pi extension's handlers (`server/src/piExtension/`, as built in out/ and loaded by Pi),
 * driven here with a stand-in for Pi's API: loading it loads none of the analysis; what each
 * handler does where Pi has no UI; and bad input: a 1 GiB session and a 50 MB payload answered
 * without reading them, and a failure inside a handler caught, said, and never thrown into Pi.
 */

import { execFileSync } from "node:child_process";
import { closeSync, copyFileSync, ftruncateSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";

const OUT = join(__dirname, "../../out");
const FIXTURES = join(__dirname, "../parity/fixtures");

type Handler = (...args: unknown[]) => unknown;

/** Pi's API as far as the extension uses it: what it registers, and what it appends. */
function fakePi() {
  const handlers = new Map<string, Handler>();
  const appended: unknown[] = [];
  const pi = {
    on: (event: string, handler: Handler) => handlers.set(event, handler),
    registerCommand: (name: string, options: { handler: Handler }) => handlers.set(`/${name}`, options.handler),
    appendEntry: (customType: string) => appended.push(customType),
  };
  const extension = require(join(OUT, "piExtension/index.js")) as { default: (pi: unknown) => void };
  extension.default(pi);
  return { handlers, appended };
}

/** A context of Pi's for the session at `file`, with or without a UI, recording the notices. */
function fakeCtx(file: string | undefined, hasUI = true, getSessionFile?: () => string | undefined, branch = ["a0000001", "a0000002", "a0000003", "a0000004"]) {
  const notices: [string, string][] = [];
  const ctx = {
    hasUI,
    mode: hasUI ? "rpc" : "print",
    ui: { notify: (text: string, type = "info") => notices.push([type, text]), select: async () => undefined },
    sessionManager: { getSessionFile: getSessionFile ?? (() => file), getLeafId: () => null, getBranch: () => branch.map((id) => ({ id })) },
    waitForIdle: async () => {},
  };
  return { ctx, notices };
}

/** Resolves once the resume check, which `session_start` puts on a timer so as not to hold Pi's start up, has run. */
const afterStart = () => new Promise((done) => setTimeout(done, 0));

let root: string;
beforeAll(async () => {
  await ensureBuilt();
  root = mkdtempSync(join(tmpdir(), "pi-extension-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A fixture copied into the test's folder. */
function copied(name: string): string {
  const path = join(root, `${name}.jsonl`);
  copyFileSync(join(FIXTURES, `${name}.jsonl`), path);
  return path;
}

describe("the Pi extension", () => {
  it("loads none of the analysis when Pi loads it, nor for a session that has no file yet", () => {
    const script = `
      const ext = require(${JSON.stringify(join(OUT, "piExtension/index.js"))});
      const handlers = {};
      ext.default({ on: (e, h) => (handlers[e] = h), registerCommand: (n, o) => (handlers["/" + n] = o.handler), appendEntry() {} });
      const ctx = { hasUI: true, ui: { notify() {} }, sessionManager: { getSessionFile: () => undefined } };
      handlers.session_start({ reason: "startup" }, ctx);
      handlers.before_provider_request({ payload: {} }, ctx);
      // After the resume check's timer has run.
      setTimeout(() => {
        const loaded = Object.keys(require.cache).filter((k) => k.startsWith(${JSON.stringify(OUT)})).map((k) => k.slice(${OUT.length + 1}));
        process.stdout.write(JSON.stringify({ loaded: loaded.sort(), handlers: Object.keys(handlers).sort() }));
      }, 0);`;
    const result = JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" })) as { loaded: string[]; handlers: string[] };
    expect(result.handlers).toEqual(["/doctor", "before_provider_request", "session_shutdown", "session_start"]);
    // The text escaping of `say.ts` (and the loose reading it uses): two small modules, no analysis.
    expect(result.loaded).toEqual(["core/base/loose.js", "core/base/text.js", "piExtension/index.js", "piExtension/say.js"]);
  });

  it("writes the report to stderr where Pi has no UI (print and JSON mode), and applies no remedy", async () => {
    const { handlers, appended } = fakePi();
    const file = copied("fault-metadata-leaf");
    const before = readFileSync(file);
    const { ctx, notices } = fakeCtx(file, false);
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((text) => written.push(String(text)) > 0);
    try {
      await handlers.get("/doctor")!("", ctx);
    } finally {
      spy.mockRestore();
    }
    expect(notices).toEqual([]);
    expect(written.join("")).toContain(`Doctor: ${file}\n`);
    expect(written.join("")).toContain("1. Resume from the newest message");
    expect(appended).toEqual([]);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it("checks a resumed session once Pi has started, and not after Pi shut the session down", async () => {
    const { handlers } = fakePi();
    const file = copied("fault-tool-result-after-aborted-call");
    const { ctx, notices } = fakeCtx(file);
    handlers.get("session_start")!({ reason: "startup" }, ctx);
    // Nothing on Pi's way: the handler only set a timer.
    expect(notices).toEqual([]);
    handlers.get("session_shutdown")!({ reason: "quit" }, ctx);
    await afterStart();
    expect(notices).toEqual([]);
    // No check where nobody is at a UI (print, JSON mode): such a run is not held up by it.
    const printed = fakeCtx(file, false);
    handlers.get("session_start")!({ reason: "startup" }, printed.ctx);
    handlers.get("session_start")!({ reason: "resume" }, ctx);
    handlers.get("session_start")!({ reason: "new" }, ctx);
    await afterStart();
    expect(printed.notices).toEqual([]);
    expect(notices).toEqual([
      [
        "warning",
        "pi-session-lsp: Pi's next request from this session will fail: the provider refuses it, or Pi cannot build it (1 finding). /doctor explains what and what to do.",
      ],
    ]);
  });

  it("says why it does not read a 1 GiB session, without reading it", async () => {
    const { handlers } = fakePi();
    const file = join(root, "huge.jsonl");
    // A sparse file: 1 GiB long, no block written.
    const fd = openSync(file, "w");
    ftruncateSync(fd, 1024 * 1024 * 1024);
    closeSync(fd);
    const { ctx, notices } = fakeCtx(file);
    await handlers.get("/doctor")!("", ctx);
    expect(notices).toHaveLength(1);
    expect(notices[0]![0]).toBe("warning");
    expect(notices[0]![1]).toMatch(/the session is 1024 MB, over the 64 MB the doctor reads inside Pi .*pi-session-lsp doctor /);
    // The automatic checks stay silent on it: nothing to say on Pi's way but that they did not look.
    handlers.get("session_start")!({ reason: "startup" }, ctx);
    await afterStart();
    expect(handlers.get("before_provider_request")!({ payload: {} }, ctx)).toBeUndefined();
    expect(notices).toHaveLength(1);
  });

  it("reads no FIFO named like the session, and does not wait for a writer", async () => {
    const { handlers } = fakePi();
    const fifo = join(root, "fifo.jsonl");
    execFileSync("mkfifo", [fifo]);
    const { ctx, notices } = fakeCtx(fifo);
    await handlers.get("/doctor")!("", ctx);
    expect(notices).toEqual([["warning", `pi-session-lsp /doctor: ${fifo} is not a regular file.`]]);
  });

  it("answers a 50 MB payload without serialising it, leaves it as it is, and warns once per fault", () => {
    const { handlers } = fakePi();
    const file = copied("fault-tool-result-after-aborted-call");
    const { ctx, notices } = fakeCtx(file);
    const big = "x".repeat(50 * 1024 * 1024);
    const payload = { model: "claude-sonnet-4-5", messages: [{ role: "user", content: big }] };
    for (let i = 0; i < 3; i++) expect(handlers.get("before_provider_request")!({ payload }, ctx)).toBeUndefined();
    expect(payload.messages[0]!.content).toBe(big);
    expect(notices).toHaveLength(1);
    expect(notices[0]![0]).toBe("warning");
    expect(notices[0]![1]).toMatch(
      /^pi-session-lsp: this request to claude-sonnet-4-5 carries what the provider refuses \(it is sent unchanged\)\. line 4: orphaned-tool-result: /,
    );
    expect(notices[0]![1]).toContain("Remedy: ");
  });

  it("does not warn of a fault on an entry Pi's current branch leaves out (a move in /tree not yet in the file)", () => {
    const { handlers } = fakePi();
    const file = copied("fault-tool-result-after-aborted-call");
    const away = fakeCtx(file, true, undefined, ["a0000001"]);
    expect(handlers.get("before_provider_request")!({ payload: {} }, away.ctx)).toBeUndefined();
    expect(away.notices).toEqual([]);
    // Back on the branch that holds it, the warning comes, once.
    const back = fakeCtx(file);
    handlers.get("before_provider_request")!({ payload: {} }, back.ctx);
    expect(back.notices.map(([, text]) => text.includes("line 4: orphaned-tool-result"))).toEqual([true]);
  });

  it("catches a failure inside any handler, says it in one line, and lets Pi go on", async () => {
    const { handlers } = fakePi();
    const { ctx, notices } = fakeCtx(undefined, true, () => {
      throw new TypeError("the session manager is gone");
    });
    await expect(handlers.get("/doctor")!("", ctx)).resolves.toBeUndefined();
    expect(() => handlers.get("session_start")!({ reason: "resume" }, ctx)).not.toThrow();
    await afterStart();
    expect(handlers.get("before_provider_request")!({ payload: null }, ctx)).toBeUndefined();
    expect(notices.map(([type]) => type)).toEqual(["error", "error", "error"]);
    expect(notices[1]![1]).toBe("pi-session-lsp could not check this session: TypeError: the session manager is gone");
    expect(notices[0]![1]).toBe("pi-session-lsp /doctor failed: TypeError: the session manager is gone");
  });
});
