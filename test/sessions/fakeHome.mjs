// A fake Pi home for the session commands' tests and for test/sessions/oracle.mjs, which runs the
// real Pi on the same folders: several projects, forks, a moved project, ambiguous id prefixes, a
// shared session folder, a symbolic link to a project, and files Pi leaves out of its lists.
//
// Everything is deterministic: ids, timestamps, file names and modification times are fixed, so
// results recorded from the real Pi (with the temporary root replaced by "<ROOT>") are stable.
// Plain JavaScript so that the oracle script can import it without a build; fakeHome.d.mts types it.

import * as fs from "node:fs";
import * as path from "node:path";

const T0 = Date.parse("2026-03-02T10:00:00.000Z");
const HOUR = 3600_000;

/** Pi's folder name for a cwd (both versions, for an absolute cwd). */
export function encodeCwd(cwd) {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

const usage = (input, output, cost) => ({
  input,
  output,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: input + output,
  cost: { input: cost / 2, output: cost / 2, cacheRead: 0, cacheWrite: 0, total: cost },
});

/** Builds one session's lines the way Pi's SessionManager writes them. */
class Writer {
  constructor({ id, cwd, at, parentSession, version = 3 }) {
    this.id = id;
    this.at = at;
    this.clock = at;
    this.n = 0;
    this.leaf = null;
    this.lines = [];
    this.header = { type: "session", version, id, timestamp: new Date(at).toISOString(), cwd };
    if (parentSession) this.header.parentSession = parentSession;
    this.lines.push(this.header);
  }

  nextId() {
    this.n++;
    return `${this.id.slice(-4)}${String(this.n).padStart(4, "0")}`;
  }

  add(fields, parentId = this.leaf) {
    this.clock += 1000;
    const entry = { type: fields.type, id: fields.id ?? this.nextId(), parentId, timestamp: new Date(this.clock).toISOString(), ...fields };
    delete entry.type;
    const line = { type: fields.type, ...entry };
    this.lines.push(line);
    this.leaf = line.id;
    return line.id;
  }

  model(provider, modelId) {
    return this.add({ type: "model_change", provider, modelId });
  }

  thinking(level) {
    return this.add({ type: "thinking_level_change", thinkingLevel: level });
  }

  user(text) {
    return this.add({ type: "message", message: { role: "user", content: [{ type: "text", text }], timestamp: this.clock + 1000 } });
  }

  assistant(text, { model = "claude-sonnet-4-5", provider = "anthropic", tools = [], tokens = [1200, 80], cost = 0.0048, stopReason } = {}) {
    const content = [];
    if (text) content.push({ type: "text", text });
    for (const [i, [name, args]] of tools.entries())
      content.push({ type: "toolCall", id: `toolu_${this.id.slice(-4)}_${this.n + 1}_${i}`, name, arguments: args });
    return this.add({
      type: "message",
      message: {
        role: "assistant",
        content,
        api: "anthropic-messages",
        provider,
        model,
        usage: usage(tokens[0], tokens[1], cost),
        stopReason: stopReason ?? (tools.length > 0 ? "toolUse" : "stop"),
        timestamp: this.clock + 1000,
      },
    });
  }

  /** Results for every tool call of the last assistant message. */
  results(output = "ok") {
    const last = this.lines[this.lines.length - 1];
    for (const block of last.message.content.filter((b) => b.type === "toolCall")) {
      this.add({
        type: "message",
        message: {
          role: "toolResult",
          toolCallId: block.id,
          toolName: block.name,
          content: [{ type: "text", text: output }],
          isError: false,
          timestamp: this.clock + 1000,
        },
      });
    }
    return this.leaf;
  }

  name(name) {
    return this.add({ type: "session_info", name });
  }

  label(targetId, label) {
    return this.add({ type: "label", targetId, label });
  }

  compaction(firstKeptEntryId, tokensBefore, readFiles, modifiedFiles) {
    return this.add({ type: "compaction", summary: "## Goal\nShip it.", firstKeptEntryId, tokensBefore, details: { readFiles, modifiedFiles } });
  }

  branchSummary(fromId, summary, parentId) {
    return this.add({ type: "branch_summary", fromId, summary }, parentId);
  }

  usageEntry(kind, tokens, cost) {
    return this.add({ type: "usage", kind, provider: "anthropic", model: "claude-sonnet-4-5", usage: usage(tokens, 0, cost) });
  }

  branchFrom(id) {
    this.leaf = id;
  }

  text() {
    return `${this.lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
  }

  fileName() {
    return `${this.header.timestamp.replace(/[:.]/g, "-")}_${this.id}.jsonl`;
  }
}

const uuid = (prefix, tail) => `${prefix}-0000-7000-8000-${tail.padStart(12, "0")}`;

/**
 * Builds the fake home under `root` and returns its paths and the sessions it wrote. Nothing
 * outside `root` is touched.
 */
export function buildFakeHome(root) {
  const home = path.join(root, "home", "dev");
  const agentDir = path.join(home, ".pi", "agent");
  const sessions = path.join(agentDir, "sessions");
  const projects = {
    alpha: path.join(root, "work", "alpha"),
    beta: path.join(root, "work", "beta"),
    gammaOld: path.join(root, "old", "gamma"),
    gamma: path.join(root, "new", "gamma"),
    empty: path.join(root, "work", "empty"),
  };
  for (const dir of [projects.alpha, projects.beta, projects.gamma, projects.empty]) fs.mkdirSync(dir, { recursive: true });
  fs.mkdirSync(path.join(root, "links"), { recursive: true });
  const alphaLink = path.join(root, "links", "alpha-link");
  fs.symlinkSync(projects.alpha, alphaLink);
  const shared = path.join(root, "shared-sessions");
  const written = {};
  let mtimeStep = 0;

  const write = (key, dir, w, { text } = {}) => {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, w.fileName());
    fs.writeFileSync(file, text ?? w.text());
    // Modification times in writing order, an hour apart (Pi 1.x's listAll orders files by them).
    const mtime = new Date(T0 + 30 * 24 * HOUR + ++mtimeStep * HOUR);
    fs.utimesSync(file, mtime, mtime);
    written[key] = { path: file, id: w.id, cwd: w.header.cwd };
    return file;
  };
  const alphaDir = path.join(sessions, encodeCwd(projects.alpha));
  const betaDir = path.join(sessions, encodeCwd(projects.beta));
  const gammaOldDir = path.join(sessions, encodeCwd(projects.gammaOld));

  // alpha/A1: a named session with two branches, a label, tools that read and edit files.
  const a1 = new Writer({ id: uuid("019d1a00", "a001"), cwd: projects.alpha, at: T0 });
  a1.model("anthropic", "claude-sonnet-4-5");
  a1.thinking("medium");
  const ask = a1.user("The login test fails on CI about one run in five. Find out why.");
  a1.assistant("", { tools: [["read", { path: "test/login.test.ts" }]] });
  a1.results("import { login } from '../src/login';");
  a1.assistant("", { tools: [["bash", { command: "npm test -- login" }]] });
  a1.results("1 failed");
  const fork = a1.assistant("The test waits a fixed 100 ms for the session cookie; on CI the cookie can come later.");
  a1.user("Make it wait for the cookie instead.");
  a1.assistant("", { tools: [["edit", { path: "test/login.test.ts", oldText: "sleep(100)", newText: "await cookie()" }]] });
  a1.results("Edited");
  a1.assistant("Done: the test now waits for the cookie.", { tokens: [2400, 120], cost: 0.0096 });
  a1.label(ask, "flaky-login");
  a1.branchFrom(fork);
  a1.branchSummary(a1.leaf, "Tried a longer sleep; still flaky.", fork);
  a1.user("Or just raise the timeout to 500 ms?");
  a1.assistant("That hides the race; waiting for the cookie is better.", { model: "claude-opus-4-1", tokens: [3000, 60], cost: 0.05 });
  a1.name("Fix the flaky login test");
  write("a1", alphaDir, a1);

  // alpha/A2: forked from A1 (same id prefix 019d1a00), later activity, so Pi picks it for that prefix.
  const a2 = new Writer({ id: uuid("019d1a00", "a002"), cwd: projects.alpha, at: T0 + 5 * HOUR, parentSession: written.a1.path });
  for (const line of a1.lines.slice(1)) a2.lines.push(line);
  a2.clock = T0 + 5 * HOUR;
  a2.leaf = a1.lines[a1.lines.length - 1].id;
  a2.user("Now do the same for the signup test.");
  a2.assistant("Signup waits for its cookie now too.");
  write("a2", alphaDir, a2);

  // alpha/A3: unnamed, with a compaction and Pi 1.x usage entries.
  const a3 = new Writer({ id: uuid("019d2b00", "a003"), cwd: projects.alpha, at: T0 + 2 * HOUR });
  a3.model("openai", "gpt-5");
  const first = a3.user("Add a --verbose flag to the CLI.");
  a3.assistant("", {
    provider: "openai",
    model: "gpt-5",
    tools: [
      ["read", { path: "src/cli.ts" }],
      ["read", { path: "src/args.ts" }],
    ],
  });
  a3.results("...");
  const kept = a3.assistant("", {
    provider: "openai",
    model: "gpt-5",
    tools: [["write", { path: "src/verbose.ts", content: "export const verbose = true;" }]],
  });
  a3.results("Wrote");
  a3.compaction(kept, 48210, ["src/cli.ts", "src/args.ts"], ["src/verbose.ts"]);
  a3.usageEntry("cache_warm", 900, 0.0009);
  a3.user("Document it in the README.");
  a3.assistant("Documented --verbose in the README.", { provider: "openai", model: "gpt-5", tokens: [5000, 200], cost: 0.02 });
  void first;
  write("a3", alphaDir, a3);

  // alpha/A4: a header and a model change, no messages.
  const a4 = new Writer({ id: uuid("019d3c00", "a004"), cwd: projects.alpha, at: T0 + 3 * HOUR });
  a4.model("anthropic", "claude-sonnet-4-5");
  write("a4", alphaDir, a4);

  // alpha/A5: not a session (its first line is a message): Pi's list skips it.
  const a5 = new Writer({ id: uuid("019d4d00", "a005"), cwd: projects.alpha, at: T0 + 4 * HOUR });
  a5.user("orphan");
  write("a5", alphaDir, a5, {
    text: `${a5.lines
      .slice(1)
      .map((l) => JSON.stringify(l))
      .join("\n")}\n`,
  });

  // alpha/A6: a session_info whose name is a number: Pi's list throws on it and leaves the file out.
  const a6 = new Writer({ id: uuid("019d5e00", "a006"), cwd: projects.alpha, at: T0 + 6 * HOUR });
  a6.user("Rename me");
  a6.add({ type: "session_info", name: 42 });
  write("a6", alphaDir, a6);

  // alpha: an empty file.
  const emptyFile = path.join(alphaDir, "2026-03-03T00-00-00-000Z_019d6f00-0000-7000-8000-00000000a007.jsonl");
  fs.writeFileSync(emptyFile, "");
  fs.utimesSync(emptyFile, new Date(T0 + 40 * 24 * HOUR), new Date(T0 + 40 * 24 * HOUR));
  written.empty = { path: emptyFile, id: undefined, cwd: undefined };

  // beta/B1: same id prefix as A1 and A2, in another project.
  const b1 = new Writer({ id: uuid("019d1a00", "b001"), cwd: projects.beta, at: T0 + 1 * HOUR });
  b1.user("Set up the beta deploy pipeline.");
  b1.assistant("Added .github/workflows/deploy.yml.", { tools: [] });
  b1.name("Beta deploy");
  write("b1", betaDir, b1);

  // beta/B2: A3 forked into beta (Pi's forkFrom: new header with cwd beta, parentSession A3, same entries).
  const b2 = new Writer({ id: uuid("019d7a00", "b002"), cwd: projects.beta, at: T0 + 8 * HOUR, parentSession: written.a3.path });
  for (const line of a3.lines.slice(1)) b2.lines.push(line);
  b2.clock = T0 + 8 * HOUR;
  b2.leaf = a3.lines[a3.lines.length - 1].id;
  b2.user("Port the flag to beta.");
  write("b2", betaDir, b2);

  // gamma moved from old/gamma to new/gamma: its sessions stayed under the old folder name.
  const g1 = new Writer({ id: uuid("019d8b00", "c001"), cwd: projects.gammaOld, at: T0 + 7 * HOUR });
  g1.user("Port the gamma renderer to WebGPU.");
  g1.assistant("Started with the texture loader.");
  write("g1", gammaOldDir, g1);

  // A shared session folder (settings or --session-dir) holding sessions of alpha and beta.
  const s1 = new Writer({ id: uuid("019d9c00", "d001"), cwd: projects.alpha, at: T0 + 9 * HOUR });
  s1.user("Shared folder, alpha.");
  s1.assistant("Noted.");
  write("s1", shared, s1);
  const s2 = new Writer({ id: uuid("019d9c00", "d002"), cwd: projects.beta, at: T0 + 10 * HOUR });
  s2.user("Shared folder, beta.");
  write("s2", shared, s2);

  return { root, home, agentDir, sessions, projects, alphaLink, shared, dirs: { alpha: alphaDir, beta: betaDir, gammaOld: gammaOldDir }, written };
}

/**
 * Writes a session of at least `bytes` bytes to `file` quickly: one block of 24 entries (a user
 * turn, then bash calls with ~32 KB results) written over and over with its ids patched in place,
 * so the file is one long chain of unique ids. `firstMessage` is each block's user turn: ASCII
 * without a "Q" (the template is patched where a "Q" starts an id). Returns the number of entries and bytes.
 */
export function writeLargeSession(file, bytes, { cwd = "/home/dev/big", id = uuid("019e0000", "e001"), firstMessage = "Run the next batch." } = {}) {
  const header = `${JSON.stringify({ type: "session", version: 3, id, timestamp: new Date(T0).toISOString(), cwd })}\n`;
  const filler = "x".repeat(32 * 1024);
  const perBlock = 24;
  // Placeholders are 8 characters, like the ids that replace them ("e" and 7 digits).
  const own = (i) => `Q${String(i).padStart(7, "0")}`;
  const lines = [];
  for (let i = 0; i < perBlock; i++) {
    let message;
    if (i === 0) message = { role: "user", content: firstMessage, timestamp: T0 };
    else if (i % 2 === 1)
      message = {
        role: "assistant",
        content: [{ type: "toolCall", id: `call${own(i)}`, name: "bash", arguments: { command: "make batch" } }],
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage: usage(1000, 10, 0.001),
        stopReason: "toolUse",
        timestamp: T0,
      };
    else
      message = {
        role: "toolResult",
        toolCallId: `call${own(i - 1)}`,
        toolName: "bash",
        content: [{ type: "text", text: filler }],
        isError: false,
        timestamp: T0,
      };
    const parentId = i === 0 ? "QPREVIUS" : own(i - 1);
    lines.push(JSON.stringify({ type: "message", id: own(i), parentId, timestamp: new Date(T0 + 1000).toISOString(), message }));
  }
  const template = Buffer.from(`${lines.join("\n")}\n`, "latin1");
  const holes = [];
  for (let at = template.indexOf("Q"); at >= 0; at = template.indexOf("Q", at + 8)) holes.push([at, template.toString("latin1", at, at + 8)]);
  const fd = fs.openSync(file, "w");
  let written = fs.writeSync(fd, header);
  let block = 0;
  while (written < bytes) {
    for (const [at, tag] of holes) {
      const n = tag === "QPREVIUS" ? block * perBlock - 1 : block * perBlock + Number(tag.slice(1));
      template.write(`e${String(Math.max(0, n)).padStart(7, "0")}`, at, "latin1");
    }
    // The very first entry is the root: its parent is null.
    written += fs.writeSync(
      fd,
      block === 0 ? Buffer.from(template.toString("latin1").replace('"parentId":"e0000000"', '"parentId":null'), "latin1") : template,
    );
    block++;
  }
  fs.closeSync(fd);
  return { entries: block * perBlock, bytes: written };
}
