/**
 * What goes over the wire: for every recording of test/parity/expected/wire (the real Pi 1.6
 * resuming each corpus session against a fake provider, for three APIs; made by
 * test/pi/wire/record.mjs), `context --stage request --api API` prints the body Pi sent, apart
 * from the fields `VOLATILE_FIELDS` names; where Pi sent nothing, the command says so (exit 1).
 *
 * It runs the built `out/` tree in process, as the command does (the full path is loaded lazily).
 */

import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
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
  requests: { path: string; body: Record<string, unknown>; bodyCut?: true; conversationBytes?: number; conversationSha256?: string }[];
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

/** Generated fixtures (too large to commit) are written to a temporary folder, as the harness does. */
const generated = new Map<string, string>();
let generatedDir: string | undefined;

function fixturePath(fixture: string): string {
  return generated.get(fixture) ?? join(__dirname, "fixtures", `${fixture}.jsonl`);
}

beforeAll(async () => {
  await ensureBuilt();
  const { GENERATED_FAULTS } = await import("./request-faults.mjs");
  generatedDir = mkdtempSync(join(tmpdir(), "wire-test-"));
  for (const [name, , make] of GENERATED_FAULTS) {
    const path = join(generatedDir, `${name}.jsonl`);
    writeFileSync(path, make());
    generated.set(name, path);
  }
  ({ runContext } = nodeRequire(join(out, "cli/contextCommand.js")) as { runContext: RunContext });
  ({ withoutVolatile } = nodeRequire(join(out, "core/pi/provider/wire/volatile.js")) as { withoutVolatile: WithoutVolatile });
});

const totals = { sent: 0, notSent: 0 };

describe("context --stage request equals what Pi 1.6 sent", () => {
  it("covers every fixture for the three APIs", () => {
    const fixtures = readdirSync(join(__dirname, "fixtures")).filter((f) => f.endsWith(".jsonl"));
    expect(recordings.length).toBe((fixtures.length + generated.size) * 3);
    expect(new Set(recordings.map((r) => r.api))).toEqual(new Set(["anthropic-messages", "openai-completions", "openai-responses"]));
  });

  it("builds for the stand-in models and the prompt the harness gives Pi", async () => {
    const harness = await import("../pi/wire/harness.mjs");
    const { STAND_IN_MODELS } = nodeRequire(join(out, "core/pi/provider/wire/common.js")) as typeof import("../../server/src/core/pi/provider/wire/common");
    const { DEFAULT_WIRE_PROMPT } = nodeRequire(
      join(out, "core/pi/provider/wire/request.js"),
    ) as typeof import("../../server/src/core/pi/provider/wire/request");
    expect(harness.WIRE_PROMPT).toBe(DEFAULT_WIRE_PROMPT);
    expect(harness.APIS).toEqual(Object.keys(STAND_IN_MODELS));
    for (const api of harness.APIS) {
      const model = STAND_IN_MODELS[api as keyof typeof STAND_IN_MODELS];
      expect({ provider: harness.STAND_IN[api]!.provider, id: harness.STAND_IN[api]!.id }).toEqual({ provider: model.provider, id: model.id });
    }
  });

  for (const recording of recordings) {
    it(`${recording.fixture} for ${recording.api} (${recording.outcome})`, async () => {
      let stdout = "";
      let stderr = "";
      const status = await runContext(["--stage", "request", "--api", recording.api, fixturePath(recording.fixture)], {
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
      const request = recording.requests[0]!;
      const body = request.body;
      const ours = JSON.parse(stdout) as Record<string, unknown>;
      if (request.bodyCut) {
        // A large body is recorded by the digest of the part this command prints (harness.mjs).
        const json = JSON.stringify(ours);
        expect(Buffer.byteLength(json)).toBe(request.conversationBytes);
        expect(createHash("sha256").update(json).digest("hex")).toBe(request.conversationSha256);
        totals.sent++;
        return;
      }
      expect(ours).toEqual(withoutVolatile(recording.api as never, body));
      // Byte for byte too: the same keys in the same order, as Pi's JSON.stringify wrote them.
      expect(JSON.stringify(ours)).toBe(JSON.stringify(withoutVolatile(recording.api as never, body)));
      // The recording names the model the body was sent to, and the body carries its id.
      expect(recording.model.endsWith(`/${String(ours.model)}`)).toBe(true);
      totals.sent++;
    });
  }

  afterAll(() => {
    if (generatedDir !== undefined) rmSync(generatedDir, { recursive: true, force: true });
    // Every recording was compared: none was skipped.
    expect(totals.sent + totals.notSent).toBe(recordings.length);
  });
});
