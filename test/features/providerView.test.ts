/**
 * The provider view as users meet it: `pi-session-lsp context --stage provider` (the built CLI), the
 * `piSession/buildContext` request with `stage: "provider"`, and the context lenses, which say where
 * the provider's messages differ from the built context. The messages themselves are checked
 * against the real Pi in test/parity/provider.test.ts; here the CLI's JSON is compared with the
 * same recorded expectations.
 */

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_ANSWER_DEPTH, nestedDeeperThan } from "../../server/src/core/base/depth";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeCodeLenses, resolveCodeLens } from "../../server/src/features/codeLens";
import { computeContextRequest, computeShowContext } from "../../server/src/features/contextRequest";
import { modelName } from "../../server/src/features/providerView";
import { ensureBuilt } from "../helpers/lspClient";

const bin = join(__dirname, "../../bin/pi-session-lsp.js");
const parity = join(__dirname, "../parity");
const fixture = (name: string) => join(parity, "fixtures", `${name}.jsonl`);
const recorded = (name: string, pi: "1.6.0" | "0.74.2") =>
  (JSON.parse(readFileSync(join(parity, "expected", `${name}.${pi}.json`), "utf8")) as { provider: { model: unknown; messages: unknown[] } }).provider;
const docOf = (name: string) => new SessionDocument(`file:///${name}.jsonl`, "jsonl", 1, readFileSync(fixture(name), "utf8"));

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(async () => {
  await ensureBuilt();
});

describe("context --stage provider", () => {
  for (const [name, pi] of [
    ["fault-tool-result-after-aborted-call", "1.6.0"],
    ["written-16-conversation", "1.6.0"],
    ["written-074-conversation", "0.74.2"],
    ["fault-image-text-only-model", "1.6.0"],
  ] as const) {
    it(`prints {"model", "messages"} exactly as Pi ${pi}'s pipeline gives them for ${name}`, () => {
      const r = run("context", "--stage", "provider", "--pi", pi === "1.6.0" ? "1.x" : "0.74", fixture(name));
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toBe(`${JSON.stringify(recorded(name, pi))}\n`);
    });
  }

  it("shows the provider's messages as Markdown, with what the pipeline changed", () => {
    const r = run("context", "--stage=provider", "--format", "markdown", fixture("written-16-context-edit"));
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^# What the provider receives of session /);
    expect(r.stdout).toContain("- **sent to:** anthropic/claude-sonnet-4-5 (anthropic-messages, 200,000-token window)");
    expect(r.stdout).toContain('- **placeholder results:** 1 tool call(s) answered with "No result provided" (line 4)');
  });

  it("exits 1 where Pi's pipeline throws, and 2 on an unknown stage", () => {
    const threw = run("context", "--stage", "provider", "--pi", "0.74", fixture("fault-null-content"));
    expect(threw.status).toBe(1);
    expect(threw.stderr).toContain("Pi's message pipeline throws on an assistant message whose content is null (line 6)");
    // Pi 1.x gives null content [] and sends the request.
    expect(run("context", "--stage", "provider", fixture("fault-null-content")).status).toBe(0);
    const bad = run("context", "--stage", "wire", fixture("fault-null-content"));
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--stage must be context or provider");
  });

  it("says on stderr when Pi's catalogue lacks the session's model", () => {
    const text = readFileSync(fixture("written-16-conversation"), "utf8").replaceAll('"gpt-5.1"', '"gpt-5.1-unreleased"');
    const stdin = spawnSync(process.execPath, [bin, "context", "--stage", "provider", "-"], { encoding: "utf8", input: text });
    expect(stdin.status).toBe(0);
    expect(stdin.stderr).toContain("not in pi-ai's built-in catalogue");
    expect(JSON.parse(stdin.stdout).model).toEqual({ provider: "openai", id: "gpt-5.1-unreleased", inCatalog: false });
  });
});

describe("piSession/buildContext with stage provider", () => {
  it("answers the provider view and its statistics next to the context", () => {
    const doc = docOf("fault-tool-result-after-aborted-call");
    const answer = computeContextRequest(doc, { uri: doc.uri, stage: "provider" });
    expect(answer.ok).toBe(true);
    if (!answer.ok) return;
    expect(JSON.stringify(answer.result.provider)).toBe(JSON.stringify(recorded("fault-tool-result-after-aborted-call", "1.6.0")));
    expect(answer.result.context?.messages).toHaveLength(4);
    expect(answer.result.providerStats).toMatchObject({ messages: 3, dropped: 1, placeholders: 0, model: "anthropic/claude-sonnet-4-5", inCatalog: true });
  });

  it("renders the provider's messages for format markdown, also from the lens command", () => {
    const doc = docOf("written-16-context-edit");
    const answer = computeShowContext(doc, [doc.uri, null, { stage: "provider", format: "markdown" }]);
    expect(answer.ok && answer.result.markdown).toContain("# What the provider receives");
  });

  it("reports a pipeline that throws as statistics, with the line to blame", () => {
    const doc = docOf("fault-null-content");
    const answer = computeContextRequest(doc, { uri: doc.uri, stage: "provider", flavor: "0.74" });
    expect(answer.ok && answer.result.provider).toBeNull();
    expect(answer.ok && answer.result.providerStats?.error).toEqual({
      message: "Pi's message pipeline throws on an assistant message whose content is null",
      line: 5,
    });
  });

  it("refuses an unknown stage", () => {
    const doc = docOf("written-16-conversation");
    expect(computeContextRequest(doc, { uri: doc.uri, stage: "wire" as "provider" })).toEqual({
      ok: false,
      message: 'stage must be "context" or "provider", not "wire"',
    });
  });
});

describe("context lenses", () => {
  const headerTitle = (name: string) => {
    const doc = docOf(name);
    const lens = computeCodeLenses(doc).find((l) => (l.data as { kind: string }).kind === "context")!;
    return resolveCodeLens(doc, lens).command!.title;
  };

  it("say where the provider's messages differ from the built context", () => {
    expect(headerTitle("fault-tool-result-after-aborted-call")).toMatch(/^context: 4 messages · .* · the provider gets 3 messages: 1 dropped$/);
    expect(headerTitle("written-16-context-edit")).toMatch(/ · the provider gets 7 messages: 1 placeholder result$/);
    expect(headerTitle("fault-bash-excluded")).toMatch(/ · the provider gets 8 messages: 1 dropped$/);
    expect(headerTitle("fault-image-text-only-model")).toMatch(/ · the provider gets 7 messages: 1 image omitted$/);
  });

  it("say nothing more when the provider gets the context as it is", () => {
    expect(headerTitle("written-16-system")).not.toContain("provider");
  });
});

describe("old files, read as Pi reads them", () => {
  it("build the request and the lens from the migrated entries, and say Pi rewrites the file", () => {
    for (const name of ["fault-v1", "fault-v2"]) {
      const doc = docOf(name);
      const answer = computeContextRequest(doc, { uri: doc.uri, stage: "provider" });
      expect(answer.ok).toBe(true);
      if (!answer.ok) return;
      const expected = JSON.parse(readFileSync(join(parity, "expected", `${name}.1.6.0.json`), "utf8")) as { context: unknown };
      expect(JSON.stringify(answer.result.context)).toBe(JSON.stringify(expected.context));
      expect(JSON.stringify(answer.result.provider)).toBe(JSON.stringify(recorded(name, "1.6.0")));
      expect(answer.result.stats.migration).toContain("Pi migrates it to version 3 when it opens it and rewrites the file");
      const lens = computeCodeLenses(doc).find((l) => (l.data as { kind: string }).kind === "context")!;
      expect(resolveCodeLens(doc, lens).command!.title).toMatch(/^context once Pi migrates the file: \d+ messages · /);
    }
  });

  it("leave a current file's statistics without a migration note", () => {
    const doc = docOf("written-16-conversation");
    const answer = computeContextRequest(doc, { uri: doc.uri });
    expect(answer.ok && answer.result.stats.migration).toBeUndefined();
  });
});

describe("piSession/buildContext bounded by messages and context", () => {
  it("sends only the messages asked for, of the context and of the provider, with statistics of them all", () => {
    const doc = docOf("fault-tool-result-after-aborted-call");
    const full = computeContextRequest(doc, { uri: doc.uri, stage: "provider" });
    const part = computeContextRequest(doc, { uri: doc.uri, stage: "provider", messages: { start: 1, end: 3 } });
    expect(full.ok && part.ok).toBe(true);
    if (!full.ok || !part.ok) return;
    expect(part.result.context?.messages).toEqual(full.result.context?.messages.slice(1, 3));
    expect(part.result.context?.model).toEqual(full.result.context?.model);
    expect(part.result.provider?.messages).toEqual(full.result.provider?.messages.slice(1, 3));
    expect(part.result.stats).toEqual(full.result.stats);
    expect(part.result.providerStats).toEqual(full.result.providerStats);
    const tail = computeContextRequest(doc, { uri: doc.uri, messages: { start: 2 } });
    expect(tail.ok && tail.result.context?.messages).toEqual(full.result.context?.messages.slice(2));
    const last = computeContextRequest(doc, { uri: doc.uri, stage: "provider", messages: { start: -2 } });
    expect(last.ok && last.result.provider?.messages).toEqual(full.result.provider?.messages.slice(-2));
  });

  it("leaves the context out with context: false, also from the lens command", () => {
    const doc = docOf("written-16-conversation");
    const answer = computeShowContext(doc, [doc.uri, null, { stage: "provider", format: "markdown", context: false }]);
    expect(answer.ok).toBe(true);
    if (!answer.ok) return;
    expect("context" in answer.result).toBe(false);
    expect(answer.result.markdown).toContain("# What the provider receives");
    expect(answer.result.provider?.messages.length).toBe(answer.result.providerStats?.messages);
    expect(answer.result.stats.messages).toBeGreaterThan(0);
  });

  it("refuses bounds that are not whole numbers, and a context that is not a boolean", () => {
    const doc = docOf("written-16-conversation");
    for (const messages of [{ start: 0.5 }, { end: 1.5 }, { start: "1" }, { end: Number.POSITIVE_INFINITY }, null, 3]) {
      expect(computeContextRequest(doc, { uri: doc.uri, messages: messages as { start?: number } })).toEqual({
        ok: false,
        message: "messages must be {start, end}, each a whole number (counted from the end when negative) or left out",
      });
    }
    expect(computeContextRequest(doc, { uri: doc.uri, context: "no" as unknown as boolean })).toEqual({ ok: false, message: "context must be true or false" });
  });

  it("refuses exactly the answers too deep to send, message by message, at every depth near the limit", () => {
    const H = '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}';
    for (let depth = 990; depth <= 1000; depth++) {
      const nested = `${"[".repeat(depth)}${"]".repeat(depth)}`;
      const doc = new SessionDocument(
        "file:///deep.jsonl",
        "jsonl",
        1,
        `${H}\n{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"x","n":${nested}}],"timestamp":1}}\n`,
      );
      for (const stage of ["context", "provider"] as const) {
        const answer = computeContextRequest(doc, { uri: doc.uri, stage });
        const whole = computeContextRequest(doc, { uri: doc.uri, stage, messages: { end: 0 } });
        expect(whole.ok, `${depth}, ${stage}`).toBe(true);
        if (!whole.ok) continue;
        // The answer as a whole, with the message the bounded answer left out put back.
        const context = whole.result.context!;
        const sent = { ...whole.result, context: { ...context, messages: [JSON.parse(doc.lines[1]!).message] } };
        if (stage === "provider") sent.provider = { ...whole.result.provider!, messages: sent.context.messages };
        expect(answer.ok, `${depth}, ${stage}`).toBe(!nestedDeeperThan(sent, MAX_ANSWER_DEPTH));
      }
    }
  });
});

describe("a resumed model named by values Pi does not expect (issue 10, item 5)", () => {
  it("names a provider nested 20,000 deep without JSON.stringify overflowing", () => {
    const deep = JSON.parse(`${"[".repeat(20_000)}${"]".repeat(20_000)}`) as unknown;
    expect(modelName({ provider: deep, id: "m\u001b[2J" } as unknown as Parameters<typeof modelName>[0])).toBe("[…]/m [2J");
  });
});

describe("a context too deep to send (issue 10, item 5)", () => {
  it("is refused with a reason instead of failing in the transport's JSON.stringify", () => {
    const H = '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}';
    const deep = `${"[".repeat(20_000)}${"]".repeat(20_000)}`;
    const doc = new SessionDocument(
      "file:///deep.jsonl",
      "jsonl",
      1,
      `${H}\n{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":${deep},"timestamp":1}}\n`,
    );
    for (const format of ["json", "markdown"] as const) {
      const answer = computeContextRequest(doc, { uri: doc.uri, format });
      expect(answer.ok).toBe(false);
      expect(!answer.ok && answer.message).toMatch(/nested more than 1000 levels deep, too deep to send as JSON/);
    }
    const shallow = new SessionDocument(
      "file:///ok.jsonl",
      "jsonl",
      1,
      `${H}\n{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}\n`,
    );
    expect(computeContextRequest(shallow, { uri: shallow.uri }).ok).toBe(true);
  });
});
