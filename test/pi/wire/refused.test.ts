/**
 * The fake provider with the providers' documented validation (validate.mjs), against the real Pi
 * 1.6 (PI16_DIR): a bricked session's request is refused with the provider's own status and error
 * text, Pi reports that error and fails the prompt, and our diagnostics name the fault on the same
 * session; a healthy session's request goes through. Issue 13's example for Anthropic and Chat
 * Completions, the session Pi sends to OpenAI Responses without its tool call's turn.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionDocument } from "../../../server/src/core/session/document";
import { computeDiagnostics } from "../../../server/src/features/diagnostics";
import { pi16 } from "../pi16";

const PARITY = join(__dirname, "..", "..", "parity");

interface Run {
  outcome: string;
  error?: string;
  requests: { refused?: { status: number; rule: string; message: string } }[];
}

async function run(fixture: string, api: string): Promise<Run> {
  // Dynamic imports: this test file is CommonJS, the harness an ES module.
  const { runWire } = await import("./harness.mjs");
  const { ownModel } = await import("./record.mjs");
  const fixturePath = join(PARITY, "fixtures", `${fixture}.jsonl`);
  return (await runWire({ pi: pi16(), fixturePath, fixture, api, ownModel: ownModel(fixture, api), validate: true })) as Run;
}

describe("the fake provider refuses what the providers document, and Pi 1.6 says so", () => {
  it("refuses issue 13's example on each API, with the provider's error, which Pi reports", { timeout: 300_000 }, async () => {
    const expected: Record<string, [number, string, string]> = {
      "anthropic-messages": [400, "anthropic-tool-result-without-tool-use", "unexpected `tool_use_id` found in `tool_result` blocks: toolu_01"],
      "openai-completions": [400, "openai-tool-without-tool-calls", "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'"],
      "openai-responses": [400, "responses-output-without-call", "No tool call found for function call output with call_id toolu_01."],
    };
    for (const [api, [status, rule, words]] of Object.entries(expected)) {
      const result = await run("fault-tool-result-after-aborted-call", api);
      expect(result.outcome, api).toBe("sent");
      const refused = result.requests.map((r) => r.refused);
      expect(refused.length, api).toBeGreaterThan(0);
      for (const r of refused) expect(r, api).toMatchObject({ status, rule });
      expect(result.error ?? "", `${api}: Pi reports the provider's error`).toContain(words);
    }
    const text = readFileSync(join(PARITY, "fixtures", "fault-tool-result-after-aborted-call.jsonl"), "utf8");
    const codes = computeDiagnostics(new SessionDocument("file:///issue13.jsonl", "jsonl", 1, text)).map((d) => String(d.code));
    expect(codes).toContain("orphaned-tool-result");
  });

  it("lets a healthy session's request through on each API", { timeout: 300_000 }, async () => {
    for (const api of ["anthropic-messages", "openai-completions", "openai-responses"]) {
      const result = await run("fault-crlf", api);
      expect(result.outcome, api).toBe("sent");
      expect(
        result.requests.map((r) => r.refused ?? "accepted"),
        api,
      ).toEqual(result.requests.map(() => "accepted"));
      expect(result.error, api).toBeUndefined();
    }
  });
});
