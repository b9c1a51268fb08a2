/**
 * What goes over the wire: for every recording of test/parity/expected/wire (the real Pi 1.6
 * resuming each corpus session against a fake provider, for three APIs; made by
 * test/pi/wire/record.mjs), `context --stage request --api API` prints the body Pi sent, apart
 * from the fields `VOLATILE_FIELDS` names; where Pi sent nothing, the command says so (exit 1).
 *
 * It runs the built `out/` tree in process, as the command does (the full path is loaded lazily).
 */

import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../helpers/lspClient";

interface Recording {
  fixture: string;
  pi: string;
  api: string;
  model: string;
  outcome: "sent" | "not-sent";
  error?: string;
  requests: { path: string; body: Record<string, unknown> }[];
}

const nodeRequire = createRequire(__filename);
const out = join(__dirname, "../../out");
const dir = join(__dirname, "expected", "wire");
const recordings = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as Recording);

type RunContext = typeof import("../../server/src/cli/contextCommand").runContext;
type WithoutVolatile = typeof import("../../server/src/core/pi/provider/wire/volatile").withoutVolatile;
let runContext: RunContext;
let withoutVolatile: WithoutVolatile;

beforeAll(async () => {
  await ensureBuilt();
  ({ runContext } = nodeRequire(join(out, "cli/contextCommand.js")) as { runContext: RunContext });
  ({ withoutVolatile } = nodeRequire(join(out, "core/pi/provider/wire/volatile.js")) as { withoutVolatile: WithoutVolatile });
});

const totals = { sent: 0, notSent: 0 };

describe("context --stage request equals what Pi 1.6 sent", () => {
  it("covers every fixture for the three APIs", () => {
    const fixtures = readdirSync(join(__dirname, "fixtures")).filter((f) => f.endsWith(".jsonl"));
    expect(recordings.length).toBe(fixtures.length * 3);
    expect(new Set(recordings.map((r) => r.api))).toEqual(new Set(["anthropic-messages", "openai-completions", "openai-responses"]));
  });

  for (const recording of recordings) {
    it(`${recording.fixture} for ${recording.api} (${recording.outcome})`, async () => {
      let stdout = "";
      let stderr = "";
      const status = await runContext(["--stage", "request", "--api", recording.api, join(__dirname, "fixtures", `${recording.fixture}.jsonl`)], {
        out: (text) => (stdout += text),
        err: (text) => (stderr += text),
      });
      if (recording.outcome === "not-sent") {
        expect(status, stdout).toBe(1);
        expect(stderr).not.toBe("");
        totals.notSent++;
        return;
      }
      expect(status, stderr).toBe(0);
      expect(recording.requests).toHaveLength(1);
      const body = recording.requests[0]!.body;
      const ours = JSON.parse(stdout) as Record<string, unknown>;
      expect(ours).toEqual(withoutVolatile(recording.api as never, body));
      // Byte for byte too: the same keys in the same order, as Pi's JSON.stringify wrote them.
      expect(JSON.stringify(ours)).toBe(JSON.stringify(withoutVolatile(recording.api as never, body)));
      // The recording names the model the body was sent to, and the body carries its id.
      expect(recording.model.endsWith(`/${String(ours.model)}`)).toBe(true);
      totals.sent++;
    });
  }

  afterAll(() => {
    // Every recording was compared: none was skipped.
    expect(totals.sent + totals.notSent).toBe(recordings.length);
  });
});
