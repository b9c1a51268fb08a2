/**
 * The real Pi 1.6 in RPC mode with this package's extension (`-e` the repository, as `pi -e PATH`
 * on a checkout loads it), in a home and agent folder of its own, and a fake Anthropic endpoint on
 * 127.0.0.1 that answers every request with a minimal streamed reply and keeps the bodies. Pi
 * never reaches the network: `--offline`, and the built-in `anthropic` provider's `baseUrl`
 * pointed at the fake endpoint in the private `models.json`.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pi16 } from "../pi16";

export const REPO = join(__dirname, "../../..");
const FIXTURES = join(REPO, "test/parity/fixtures");

/** The SSE events of one short Anthropic Messages reply ("ok"). */
function anthropicReply(model: string): string {
  const events: [string, unknown][] = [
    [
      "message_start",
      {
        type: "message_start",
        message: { id: "msg_fake", type: "message", role: "assistant", model, content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } },
      },
    ],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    ["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } }],
    ["message_stop", { type: "message_stop" }],
  ];
  return events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join("");
}

export interface FakeProvider {
  url: string;
  /** The JSON bodies received, in order. */
  bodies: unknown[];
  close(): Promise<void>;
}

export async function fakeAnthropic(): Promise<FakeProvider> {
  const bodies: unknown[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { model?: string };
      bodies.push(body);
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.end(anthropicReply(body.model ?? "claude-sonnet-4-5"));
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, bodies, close: () => new Promise((done) => server.close(() => done())) };
}

/** A folder for one Pi run: home, agent folder (with `models.json` when a provider is given) and project. */
export function piFolders(provider?: FakeProvider): { root: string; home: string; agent: string; project: string } {
  const root = mkdtempSync(join(tmpdir(), "pi-doctor-"));
  const folders = { root, home: join(root, "home"), agent: join(root, "agent"), project: join(root, "project") };
  for (const dir of [folders.home, folders.agent, folders.project]) mkdirSync(dir, { recursive: true });
  if (provider) writeFileSync(join(folders.agent, "models.json"), JSON.stringify({ providers: { anthropic: { baseUrl: provider.url, apiKey: "fake-key" } } }));
  return folders;
}

/** A parity fixture written into `project` as `name.jsonl`, its header's cwd made `project` (Pi refuses a cwd that does not exist). */
export function sessionFrom(fixture: string, project: string): string {
  const lines = readFileSync(join(FIXTURES, `${fixture}.jsonl`), "utf8").split("\n");
  const header = JSON.parse(lines[0]!) as Record<string, unknown>;
  lines[0] = JSON.stringify({ ...header, cwd: project });
  const path = join(project, `${fixture}.jsonl`);
  writeFileSync(path, lines.join("\n"));
  return path;
}

export type RpcRecord = Record<string, unknown> & { type: string };

/** Pi in RPC mode: commands in, records out, each record kept. */
export class PiRpc {
  readonly records: RpcRecord[] = [];
  stderr = "";
  private readonly child: ChildProcess;
  private buffered = "";
  private waiters: (() => void)[] = [];
  private exited: Promise<number | null>;

  constructor(args: string[], folders: { home: string; agent: string; project: string }, extension = true) {
    const pi = pi16();
    this.child = spawn(pi.node, [pi.cli, "--mode", "rpc", "--offline", ...(extension ? ["-e", REPO] : []), ...args], {
      cwd: folders.project,
      env: { PATH: process.env.PATH ?? "", HOME: folders.home, PI_CODING_AGENT_DIR: folders.agent, PI_OFFLINE: "1", NO_COLOR: "1" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stdout!.on("data", (chunk: Buffer) => this.read(chunk.toString("utf8")));
    this.child.stderr!.on("data", (chunk: Buffer) => (this.stderr += chunk.toString("utf8")));
    this.exited = new Promise((done) =>
      this.child.on("exit", (code) => {
        for (const wake of this.waiters.splice(0)) wake();
        done(code);
      }),
    );
  }

  /** Splits on LF only (rpc.md: a line reader that splits on U+2028 breaks JSON strings). */
  private read(text: string): void {
    this.buffered += text;
    let end = this.buffered.indexOf("\n");
    while (end >= 0) {
      const line = this.buffered.slice(0, end).replace(/\r$/, "");
      this.buffered = this.buffered.slice(end + 1);
      if (line.startsWith("{")) this.records.push(JSON.parse(line) as RpcRecord);
      end = this.buffered.indexOf("\n");
    }
    for (const wake of this.waiters.splice(0)) wake();
  }

  send(command: Record<string, unknown>): void {
    this.child.stdin!.write(`${JSON.stringify(command)}\n`);
  }

  /** The first record from `from` on that `match` accepts; waits for it (the test's own limit stops a hang). */
  async next(match: (r: RpcRecord) => boolean, from = 0): Promise<RpcRecord> {
    for (;;) {
      const found = this.records.slice(from).find(match);
      if (found) return found;
      if (this.child.exitCode !== null) throw new Error(`Pi exited (${this.child.exitCode}) before the record came; stderr: ${this.stderr}`);
      await new Promise<void>((wake) => this.waiters.push(wake));
    }
  }

  /** Sends a prompt and waits for its response record. */
  async prompt(message: string, id: string): Promise<RpcRecord> {
    this.send({ id, type: "prompt", message });
    return this.next((r) => r.type === "response" && r.id === id);
  }

  /** The notifications the extension sent so far, as [level, text]. */
  notices(from = 0): [string, string][] {
    return this.records
      .slice(from)
      .filter((r) => r.type === "extension_ui_request" && r.method === "notify")
      .map((r) => [String(r.notifyType), String(r.message)]);
  }

  /** Closes stdin (Pi's orderly shutdown) and waits for the exit. */
  async close(): Promise<number | null> {
    this.child.stdin!.end();
    return this.exited;
  }
}
