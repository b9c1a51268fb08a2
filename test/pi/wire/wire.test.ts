/**
 * The wire recordings are still what Pi does: the harness runs the real Pi 1.6 (PI16_DIR) on three
 * corpus sessions for each of the three APIs, and what Pi sends to the fake provider equals the
 * committed recording byte for byte (test/parity/expected/wire, which test/parity/wire.test.ts
 * replays against `context --stage request` without Pi). The three sessions: a plain tool call and
 * result (fault-crlf), a tool result whose call was in an aborted turn (issue 13's example), and a
 * conversation across two models with thinking, which Pi cannot send to OpenAI Responses.
 */

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { pi16 } from "../pi16";

const FIXTURES = ["fault-crlf", "fault-tool-result-after-aborted-call", "written-16-conversation"];
const APIS = ["anthropic-messages", "openai-completions", "openai-responses"];

describe("Pi 1.6 sends what the wire recordings say", () => {
  const pi = pi16();
  for (const fixture of FIXTURES) {
    it(`${fixture}, three APIs`, { timeout: 180_000 }, async () => {
      // A dynamic import: this test file is CommonJS, the harness an ES module.
      const { recordingPath, recordOne } = await import("./record.mjs");
      for (const api of APIS) {
        const record = await recordOne(pi, fixture, api);
        const recorded = readFileSync(recordingPath(fixture, api), "utf8");
        expect(`${JSON.stringify(record, null, 2)}\n`).toBe(recorded);
      }
    });
  }
});
