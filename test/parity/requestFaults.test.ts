/**
 * Every rule of the request diagnostics and the session faults (issue 13) has a fixture of the parity
 * corpus that the real Pi confirms: for each, what the real Pi recorded (test/parity/expected: the
 * messages its own convertToLlm and transformMessages gave, its context, its open) shows the fault
 * the rule describes, checked here on Pi's record alone, and our diagnostics put that rule's code on
 * the entry to blame. Files the real pipeline and the providers accept get none of these codes.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionDocument } from "../../server/src/core/document";
import { computeDiagnostics } from "../../server/src/features/diagnostics";

interface Block {
  type?: string;
  id?: string;
  text?: string;
  data?: string;
}
interface Message {
  role: string;
  content?: string | Block[] | null;
  toolCallId?: string;
  isError?: boolean;
  usage?: { totalTokens?: number };
}
interface Outcome {
  open: string;
  loadedEntries: number;
  context: { messages: Message[] } | null;
  provider: { model: { input?: string[]; contextWindow?: number; maxImagesPerRequest?: number } | null; messages?: Message[]; error?: string } | null;
}

const root = __dirname;
const text = (fixture: string) => readFileSync(join(root, "fixtures", `${fixture}.jsonl`), "utf8");
const outcome = (fixture: string, pi: string) => JSON.parse(readFileSync(join(root, "expected", `${fixture}.${pi}.json`), "utf8")) as Outcome;
const sent = (o: Outcome): Message[] => o.provider?.messages ?? [];
const blocks = (m: Message): Block[] => (Array.isArray(m.content) ? m.content : []);

/**
 * The tool results of a request that do not answer a call of the assistant message right before
 * them (Anthropic's rule; consecutive results after one turn share it), or answer one already answered.
 */
function orphanedResults(messages: Message[]): string[] {
  const orphaned: string[] = [];
  let open = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant") open = new Set(blocks(m).flatMap((b) => (b.type === "toolCall" && typeof b.id === "string" ? [b.id] : [])));
    else if (m.role === "toolResult") {
      if (typeof m.toolCallId === "string" && open.has(m.toolCallId)) open.delete(m.toolCallId);
      else orphaned.push(String(m.toolCallId));
    } else open = new Set();
  }
  return orphaned;
}

const isPlaceholder = (m: Message) => m.role === "toolResult" && m.isError === true && blocks(m).some((b) => b.text === "No result provided");
const images = (messages: Message[]) => messages.reduce((n, m) => n + blocks(m).filter((b) => b.type === "image").length, 0);
/** Pi 1.x refuses the file, Pi 0.73/0.74 overwrites it with a fresh header: either way it loads none of it. */
const refused = (o: Outcome) => (o.open === "threw" || o.open === "rewrote") && o.loadedEntries === 0;
const messageLines = (fixture: string) =>
  text(fixture)
    .split("\n")
    .filter((l) => l.includes('"type":"message"')).length;

/** Width and height from a base64 PNG's IHDR, decoded here independently of the server's reader. */
function pngSize(base64: string): [number, number] {
  const bytes = Buffer.from(base64, "base64");
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

interface Case {
  fixture: string;
  code: string;
  /** The 0-based line of the entry to blame. */
  line: number;
  /** The Pi versions whose record shows it (both when not given). */
  versions?: string[];
  /** Asserts that the real Pi's record shows the fault. */
  confirm: (o: Outcome, pi: string) => void;
}

const CASES: Case[] = [
  {
    fixture: "fault-tool-result-after-aborted-call",
    code: "orphaned-tool-result",
    line: 3,
    confirm: (o) => {
      // The aborted turn (and so its call) is gone from the request; its result is not.
      expect(sent(o).some((m) => m.role === "assistant")).toBe(false);
      expect(orphanedResults(sent(o))).toEqual(["toolu_01"]);
    },
  },
  ...["fault-tool-result-after-user", "fault-tool-result-after-assistant"].map((fixture) => ({
    fixture,
    code: "orphaned-tool-result",
    line: 5,
    confirm: (o: Outcome) => {
      // Pi answers the call with its placeholder, then sends the real result a second time, late.
      expect(
        sent(o)
          .filter((m) => m.role === "toolResult" && m.toolCallId === "toolu_01")
          .map(isPlaceholder),
      ).toEqual([true, false]);
      expect(orphanedResults(sent(o))).toEqual(["toolu_01"]);
    },
  })),
  {
    fixture: "fault-compaction-keeps-tool-result",
    code: "orphaned-tool-result",
    line: 4,
    confirm: (o) => {
      // The summary, then the kept result whose call the compaction summarised away.
      expect(
        sent(o)
          .slice(0, 2)
          .map((m) => m.role),
      ).toEqual(["user", "toolResult"]);
      expect(orphanedResults(sent(o))).toEqual(["toolu_01"]);
    },
  },
  {
    fixture: "fault-compaction-keeps-tool-result",
    code: "compaction-keeps-tool-result",
    line: 8,
    confirm: (o) => expect(o.context?.messages[1]?.role).toBe("toolResult"),
  },
  {
    fixture: "fault-open-tool-call",
    code: "tool-call-without-result",
    line: 9,
    confirm: (o) => {
      const last = sent(o).at(-1)!;
      expect([last.toolCallId, isPlaceholder(last)]).toEqual(["toolu_02", true]);
      expect(orphanedResults(sent(o))).toEqual([]);
    },
  },
  {
    fixture: "fault-context-over-window",
    code: "context-over-window",
    line: 7,
    confirm: (o) => {
      const window = o.provider?.model?.contextWindow ?? Number.POSITIVE_INFINITY;
      expect(sent(o).some((m) => (m.usage?.totalTokens ?? 0) > window)).toBe(true);
    },
  },
  {
    fixture: "fault-images-over-limit",
    code: "too-many-images",
    line: 6,
    confirm: (o, pi) => {
      // Pi sends every image; pi-ai 1.6's catalogue records the limit (0.74's has no such field).
      expect(images(sent(o))).toBe(101);
      if (pi === "1.6.0") expect(o.provider?.model?.maxImagesPerRequest).toBe(100);
    },
  },
  {
    fixture: "fault-image-too-large",
    code: "image-too-large",
    line: 6,
    confirm: (o) => {
      const image = sent(o)
        .flatMap(blocks)
        .find((b) => b.type === "image");
      expect(pngSize(image?.data ?? "")).toEqual([9000, 1200]);
    },
  },
  {
    fixture: "fault-image-text-only-model",
    code: "image-not-sent",
    line: 9,
    confirm: (o) => {
      expect(o.provider?.model?.input).toEqual(["text"]);
      expect(images(sent(o))).toBe(0);
      expect(
        sent(o)
          .flatMap(blocks)
          .some((b) => b.text?.startsWith("(image omitted")),
      ).toBe(true);
    },
  },
  {
    fixture: "fault-empty-user-message",
    code: "empty-user-message",
    line: 6,
    confirm: (o) => expect(sent(o).some((m) => m.role === "user" && m.content === "")).toBe(true),
  },
  {
    fixture: "fault-wrong-field-types",
    code: "request-throws",
    line: 4,
    confirm: (o) => expect(o.provider?.error).toMatch(/TypeError/),
  },
  {
    // Pi 0.73/0.74 only: 1.x normalises a null content to [] first.
    fixture: "fault-null-content",
    code: "request-throws",
    line: 5,
    versions: ["0.74.2"],
    confirm: (o) => expect(o.provider?.error).toMatch(/TypeError/),
  },
  {
    fixture: "fault-metadata-leaf",
    code: "leaf-hides-messages",
    line: 8,
    confirm: (o) => expect(messageLines("fault-metadata-leaf") - (o.context?.messages.length ?? 0)).toBe(2),
  },
  {
    fixture: "fault-two-writers",
    code: "interleaved-writers",
    line: 7,
    // The context follows the last line's branch and leaves the other writer's four entries out.
    confirm: (o) => expect(messageLines("fault-two-writers") - (o.context?.messages.length ?? 0)).toBe(4),
  },
  {
    fixture: "fault-oh-my-pi",
    code: "oh-my-pi-session",
    line: 0,
    confirm: (o) => expect(refused(o)).toBe(true),
  },
  {
    fixture: "fault-header-after-message",
    code: "misplaced-header",
    line: 1,
    confirm: (o) => expect(refused(o)).toBe(true),
  },
];

/** The codes of the request diagnostics and session faults, which a file Pi and the providers accept never gets. */
const RULE_CODES = new Set(CASES.map((c) => c.code));
const SERIOUS_REQUEST_CODES = new Set(["orphaned-tool-result", "too-many-images", "image-too-large", "request-too-large", "request-throws"]);

describe("each request rule has a fixture the real Pi confirms", () => {
  for (const c of CASES) {
    describe(`${c.code} on ${c.fixture}`, () => {
      for (const pi of c.versions ?? ["0.74.2", "1.6.0"]) {
        it(`shows in what the real Pi ${pi} recorded`, () => c.confirm(outcome(c.fixture, pi), pi));
      }
      it("gets the code on the entry to blame", () => {
        const found = computeDiagnostics(new SessionDocument(`file:///${c.fixture}.jsonl`, "jsonl", 1, text(c.fixture)));
        expect(found.filter((d) => d.code === c.code).map((d) => d.range.start.line)).toContain(c.line);
      });
    });
  }

  it("leaves every file whose request the real pipeline builds without an orphaned result free of request errors", () => {
    const checked: string[] = [];
    for (const file of readdirSync(join(root, "fixtures")).filter((f) => f.endsWith(".jsonl"))) {
      const name = file.replace(/\.jsonl$/, "");
      const o = outcome(name, "1.6.0");
      if (o.open !== "ok" || !o.provider?.messages || o.provider.messages.length === 0 || outcome(name, "0.74.2").provider?.error) continue;
      if (orphanedResults(o.provider.messages).length > 0 || CASES.some((c) => c.fixture === name && SERIOUS_REQUEST_CODES.has(c.code))) continue;
      const found = computeDiagnostics(new SessionDocument(`file:///${file}`, "jsonl", 1, text(name)));
      expect(found.filter((d) => SERIOUS_REQUEST_CODES.has(String(d.code))).map((d) => `${name}:${d.range.start.line}:${String(d.code)}`)).toEqual([]);
      checked.push(name);
    }
    expect(checked.length).toBeGreaterThan(40);
    expect(RULE_CODES.size).toBeGreaterThan(10);
  });
});
