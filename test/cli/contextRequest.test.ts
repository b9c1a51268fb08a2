/**
 * `context --stage request` as a user runs it (the built `bin/pi-session-lsp.js`): which API and
 * model the body is for by default, what `--api` and `--prompt` change, and what it says where Pi
 * sends nothing or the session's model speaks another API. The bodies themselves are compared
 * with what the real Pi 1.6 sent in test/parity/wire.test.ts.
 */

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";

const bin = join(__dirname, "../../bin/pi-session-lsp.js");
const fixture = (name: string) => join(__dirname, "../parity/fixtures", `${name}.jsonl`);

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [bin, "context", ...args], { encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(async () => {
  await ensureBuilt();
});

describe("pi-session-lsp context --stage request", () => {
  it("builds the body for the resumed model's API by default, with the prompt last", () => {
    const r = run("--stage", "request", fixture("fault-crlf"));
    expect(r.status).toBe(0);
    expect(r.stderr).toBe("");
    const body = JSON.parse(r.stdout) as { model: string; messages: { role: string; content: unknown }[] };
    expect(body.model).toBe("claude-sonnet-4-5");
    expect(Object.keys(body)).toEqual(["model", "messages"]);
    expect(body.messages.at(-1)).toEqual({ role: "user", content: [{ type: "text", text: "Say ok.", cache_control: { type: "ephemeral" } }] });
  });

  it("takes another prompt and another API, for a stand-in model it names on stderr", () => {
    const r = run("--stage", "request", "--api", "openai-completions", "--prompt", "Und jetzt?", fixture("fault-crlf"));
    expect(r.status).toBe(0);
    expect(r.stderr).toContain("stand-in-completions/stand-in");
    const body = JSON.parse(r.stdout) as { model: string; messages: { role: string; content: unknown; tool_calls?: unknown }[] };
    expect(body.model).toBe("stand-in");
    expect(body.messages.at(-1)).toEqual({ role: "user", content: [{ type: "text", text: "Und jetzt?" }] });
    // A tool call with no text: content null, the call as a function.
    expect(body.messages[1]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "toolu_01", type: "function", function: { name: "read", arguments: '{"path":"src/math.ts"}' } }],
    });
  });

  it("says why Pi sends nothing, with status 1", () => {
    const r = run("--stage", "request", "--api", "openai-responses", fixture("written-16-conversation"));
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("Pi sends no request: a thinking signature that is not JSON");
    // The assistant message whose thinking carries an Anthropic signature is on line 30.
    const lines = readFileSync(fixture("written-16-conversation"), "utf8").split("\n");
    expect(lines[29]).toContain('"thinkingSignature":"ErUB');
    expect(r.stderr).toMatch(/\(line 30\)\n$/);
  });

  it("asks for --api when the session's model speaks another API, or there is none", () => {
    const bedrock = run("--stage", "request", fixture("fault-images-per-message"));
    expect(bedrock.status).toBe(2);
    expect(bedrock.stderr).toContain("which speaks bedrock-converse-stream");
    expect(bedrock.stderr).toContain("choose one with --api");
    const empty = run("--stage", "request", fixture("fault-empty"));
    expect(empty.status).toBe(2);
    expect(empty.stderr).toContain("no model of its own");
  });

  it("sends the prompt alone when the last entry has no id, as Pi 1.6's agent does", () => {
    const r = run("--stage", "request", "--api", "anthropic-messages", fixture("fault-last-entry-no-id"));
    expect(r.status).toBe(0);
    expect((JSON.parse(r.stdout) as { messages: unknown[] }).messages).toHaveLength(1);
  });

  it("rejects --api and --prompt without --stage request, an unknown API, and --pi 0.74", () => {
    expect(run("--api", "openai-responses", fixture("fault-crlf")).status).toBe(2);
    expect(run("--prompt", "hi", fixture("fault-crlf")).status).toBe(2);
    const unknown = run("--stage", "request", "--api", "google-generative-ai", fixture("fault-crlf"));
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("--api must be anthropic-messages or openai-completions or openai-responses");
    expect(run("--stage", "request", "--pi", "0.74", fixture("fault-crlf")).status).toBe(2);
    expect(run("--stage", "request", "--format", "markdown", fixture("fault-crlf")).stderr).toContain("as JSON only");
  });
});
