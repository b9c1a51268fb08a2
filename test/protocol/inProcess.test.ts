/**
 * Protocol tests against the server wired in-process (`startServer` over in-memory streams): the
 * same JSON-RPC as over stdio, without a process per test, so many round trips stay fast.
 *
 * The main check is differential: after each edit of a scripted random sequence (inserts,
 * deletes, multi-line replacements, CRLF text, emoji and other surrogate pairs, byte order marks,
 * several changes per notification), the diagnostics the server pulls for the edited document
 * equal those of a fresh document opened with the text the client holds. A failure names the
 * seed and the step, so it replays exactly.
 *
 * Never send `exit` here: the server would call process.exit in the test worker.
 */

import { afterEach, describe, expect, it } from "vitest";
import { TextDocument, type TextDocumentContentChangeEvent } from "vscode-languageserver-textdocument";
import type { Position, TextEdit } from "vscode-languageserver/node";
import type { ServerOptions } from "../../server/src/lsp/state";
import { describeDiagnostics, type LspTestClient, PULL_CAPABILITIES, PUSH_CAPABILITIES, seededRandom, startInProcess, withUri } from "../helpers/lspClient";

/**
 * These tests compare the checker's diagnostics; the fading hints (on by default, tested in
 * test/e2e/context.test.ts and test/features/fading.test.ts) are turned off here.
 */
const CHECKER_ONLY = { initializationOptions: { piSession: { fadeInactive: false } } };

const HEADER = `{"type":"session","version":3,"id":"019cae1a-4f00-7000-8000-000000000001","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/home/dev/project"}`;
const MODEL = `{"type":"model_change","id":"a0000001","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","provider":"anthropic","modelId":"claude-sonnet-4-5"}`;
const USER = `{"type":"message","id":"a0000002","parentId":"a0000001","timestamp":"2026-03-02T10:00:02.000Z","message":{"role":"user","content":[{"type":"text","text":"Fix 🧪 the 𝄞 test, é"}],"timestamp":1772445602000}}`;
const CALL = `{"type":"message","id":"a0000003","parentId":"a0000002","timestamp":"2026-03-02T10:00:04.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01","name":"read","arguments":{"path":"src/😀.ts"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":812,"output":64,"cacheRead":0,"cacheWrite":0,"totalTokens":876,"cost":{"input":0.002436,"output":0.00096,"cacheRead":0,"cacheWrite":0,"total":0.003396}},"stopReason":"toolUse","timestamp":1772445603100}}`;
const RESULT = `{"type":"message","id":"a0000004","parentId":"a0000003","timestamp":"2026-03-02T10:00:05.000Z","message":{"role":"toolResult","toolCallId":"toolu_01","toolName":"read","content":[{"type":"text","text":"export const add = (a, b) => a - b; // 🐛"}],"isError":false,"timestamp":1772445605000}}`;
const LABEL = `{"type":"label","id":"a0000005","parentId":"a0000004","timestamp":"2026-03-02T10:00:06.000Z","targetId":"a0000002","label":"start"}`;
const COMPACTION = `{"type":"compaction","id":"a0000006","parentId":"a0000005","timestamp":"2026-03-02T10:00:07.000Z","summary":"Read the file.","firstKeptEntryId":"a0000003","tokensBefore":1200}`;

const LINES = [HEADER, MODEL, USER, CALL, RESULT, LABEL, COMPACTION];

/** The starting documents: LF, CRLF, mixed endings with a BOM, and no final newline. */
const BASES: Record<string, string> = {
  lf: `${LINES.join("\n")}\n`,
  crlf: `${LINES.join("\r\n")}\r\n`,
  "mixed+bom": `\uFEFF${LINES.map((l, i) => l + (i % 2 ? "\r\n" : "\n")).join("")}`,
  "no-final-newline": LINES.join("\n"),
};

/** Inserted text is built from these; none holds a lone "\r", which editors and Pi disagree on. */
const SNIPPETS = [
  '"',
  "{",
  "}",
  ",",
  ":",
  "[",
  "]",
  " ",
  "\t",
  "x",
  "é",
  "😀",
  "𝄞",
  "🧪",
  "\n",
  "\r\n",
  "\n\n",
  "\r\n\r\n",
  '"parentId":"a0000001",',
  '"parentId":"nowhere",',
  '"id":"a0000002",',
  '"id":"a0000003"',
  "null",
  '"type":"message"',
  '"version":2',
  `${MODEL}\n`,
  `${USER}\r\n`,
  `${RESULT}\n`,
  `\n${LABEL}`,
  HEADER,
  `${COMPACTION}\r\n`,
  "\uFEFF",
];

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

class EditScript {
  constructor(private readonly random: () => number) {}

  int(n: number): number {
    return Math.floor(this.random() * n);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  text(): string {
    let text = "";
    for (let n = 1 + this.int(4); n > 0; n--) text += this.pick(SNIPPETS);
    return text;
  }

  /** An offset a client could produce: never inside "\r\n" or a surrogate pair. */
  snap(doc: TextDocument, offset: number): number {
    const text = doc.getText();
    const o = Math.max(0, Math.min(offset, text.length));
    if (o > 0 && o < text.length) {
      const before = text.charCodeAt(o - 1);
      const after = text.charCodeAt(o);
      if ((before === 13 && after === 10) || (isHigh(before) && isLow(after))) return o - 1;
    }
    return o;
  }

  position(doc: TextDocument): Position {
    const offset = this.int(doc.getText().length + 1);
    return doc.positionAt(this.snap(doc, offset));
  }

  /** One random content change against `doc`. */
  change(doc: TextDocument): TextDocumentContentChangeEvent {
    const kind = this.int(10);
    const start = this.position(doc);
    const startOffset = doc.offsetAt(start);
    const endAfter = (max: number) => doc.positionAt(this.snap(doc, startOffset + this.int(max)));
    switch (kind) {
      case 0:
      case 1:
      case 2: // insert
        return { range: { start, end: start }, text: this.text() };
      case 3:
      case 4: // delete a few characters, maybe across a line end
        return { range: { start, end: endAfter(30) }, text: "" };
      case 5:
      case 6: // replace, possibly spanning several lines
        return { range: { start, end: endAfter(kind === 6 ? 600 : 20) }, text: this.text() };
      case 7: {
        // delete a whole line
        const line = this.int(doc.lineCount);
        return { range: { start: { line, character: 0 }, end: { line: line + 1, character: 0 } }, text: "" };
      }
      case 8: {
        // duplicate a line (duplicate ids, second headers, …)
        const line = this.int(doc.lineCount);
        const text = doc.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } });
        return { range: { start: { line, character: 0 }, end: { line, character: 0 } }, text: text.endsWith("\n") ? text : `${text}\n` };
      }
      default: {
        // replace a whole line by another session line, with the other line ending
        const line = this.int(doc.lineCount);
        return { range: { start: { line, character: 0 }, end: { line, character: 100_000 /* past the end: clamped */ } }, text: this.pick(LINES) };
      }
    }
  }
}

function describeChange(change: TextDocumentContentChangeEvent): string {
  if (!("range" in change)) return `full text ${JSON.stringify(change.text.slice(0, 80))}`;
  const { start, end } = change.range;
  return `${start.line}:${start.character}-${end.line}:${end.character} ← ${JSON.stringify(change.text.length > 80 ? `${change.text.slice(0, 80)}…` : change.text)}`;
}

let client: LspTestClient | undefined;

afterEach(() => {
  client?.dispose();
  client = undefined;
});

async function start(capabilities = PULL_CAPABILITIES, options: ServerOptions = {}): Promise<LspTestClient> {
  client = startInProcess(options);
  await client.initialize(capabilities, CHECKER_ONLY);
  return client;
}

/** Pulls the diagnostics of a fresh document holding `text`, with URIs normalised for comparison. */
async function freshDiagnostics(c: LspTestClient, text: string, name: string): Promise<string[]> {
  const uri = `file:///fresh/${name}.jsonl`;
  await c.open(uri, text);
  const items = await c.pullItems(uri);
  await c.close(uri);
  return withUri(items, "file:///same").map((d) => JSON.stringify(d));
}

async function editedDiagnostics(c: LspTestClient, uri: string): Promise<string[]> {
  return withUri(await c.pullItems(uri), "file:///same").map((d) => JSON.stringify(d));
}

describe("incremental sync equals a fresh parse", () => {
  // PI_LSP_FUZZ_SEEDS=500 PI_LSP_FUZZ_STEPS=200 widens the search locally; the defaults keep CI fast.
  const SEEDS = Array.from({ length: Number(process.env.PI_LSP_FUZZ_SEEDS ?? 8) }, (_, i) => i + 1);
  const STEPS = Number(process.env.PI_LSP_FUZZ_STEPS ?? 50);
  for (const seed of SEEDS) {
    const baseName = Object.keys(BASES)[seed % Object.keys(BASES).length]!;
    it(`seed ${seed}: ${STEPS} random edits of the ${baseName} session`, async () => {
      const c = await start();
      const script = new EditScript(seededRandom(seed));
      const uri = `file:///edited/${seed}.jsonl`;
      await c.open(uri, BASES[baseName]!);
      expect(await editedDiagnostics(c, uri)).toEqual(await freshDiagnostics(c, BASES[baseName]!, `${seed}-base`));
      const history: string[] = [];
      const seen = new Set<string>();
      for (let step = 1; step <= STEPS; step++) {
        // Usually one change per notification; sometimes several, each against the text left by the one before.
        const count = script.int(5) === 0 ? 2 + script.int(2) : 1;
        // A scratch copy: TextDocument.update mutates the document it is given.
        const scratch = TextDocument.create(uri, "jsonl", 0, c.text(uri));
        const changes: TextDocumentContentChangeEvent[] = [];
        for (let i = 0; i < count; i++) {
          const change = script.change(scratch);
          changes.push(change);
          TextDocument.update(scratch, [change], scratch.version + 1);
        }
        history.push(`step ${step}: ${changes.map(describeChange).join(" ; ")}`);
        await c.change(uri, changes);
        const expected = await freshDiagnostics(c, c.text(uri), `${seed}-${step}`);
        const actual = await editedDiagnostics(c, uri);
        for (const d of expected) seen.add(JSON.parse(d).code as string);
        if (JSON.stringify(actual) !== JSON.stringify(expected)) {
          const text = c.text(uri);
          expect(
            actual,
            `seed ${seed}, after step ${step}: the edited document's diagnostics differ from a fresh document's.\nLast edits:\n  ${history.slice(-5).join("\n  ")}\nText now (${text.length} chars): ${JSON.stringify(text.slice(0, 1500))}`,
          ).toEqual(expected);
        }
      }
      // The script should have walked through a variety of faults, or it tests little.
      expect(seen.size, `codes seen: ${[...seen].join(", ")}`).toBeGreaterThanOrEqual(3);
      expect(c.errorLogs()).toEqual([]);
    });
  }

  it("an edit right before an existing \\n that inserts \\r makes a CRLF line ending", async () => {
    const c = await start();
    const uri = "file:///edited/cr.jsonl";
    await c.open(uri, BASES.lf!);
    // "…}" + "\r" + existing "\n": the line's ending becomes "\r\n" and the JSON stays valid.
    await c.change(uri, [{ range: { start: { line: 0, character: HEADER.length }, end: { line: 0, character: HEADER.length } }, text: "\r" }]);
    expect(c.text(uri).startsWith(`${HEADER}\r\n`)).toBe(true);
    expect(await editedDiagnostics(c, uri)).toEqual(await freshDiagnostics(c, c.text(uri), "cr"));
  });

  it("UTF-16 columns: a diagnostic after emoji is placed by UTF-16 code units", async () => {
    const c = await start();
    const uri = "file:///edited/utf16.jsonl";
    const line = `{"type":"message","id":"e1","parentId":"a0000001","timestamp":"2026-03-02T10:00:03.000Z","message":{"role":"user","content":"🧪🧪","timestamp":1772445602000}}`;
    await c.open(uri, `${HEADER}\n${MODEL}\n${line}\n`);
    // Put emoji before the parentId: its range must move by 2 code units per emoji.
    await c.replace(uri, `"id":"e1"`, `"id":"e1","note":"𝄞😀"`);
    await c.replace(uri, `"parentId":"a0000001"`, `"parentId":"gone"`);
    const items = await c.pullItems(uri);
    const edited = c.text(uri).split("\n")[2]!;
    const at = edited.indexOf(`"gone"`);
    expect(describeDiagnostics(items)).toEqual([`L3 ${at}-${at + 6} error dangling-parent`]);
    expect(at).toBe(line.indexOf(`"a0000001"`) + `,"note":"𝄞😀"`.length);
  });
});

describe("full-document changes", () => {
  it("a full-text change equals a fresh document", async () => {
    const c = await start();
    const uri = "file:///full/plain.jsonl";
    await c.open(uri, BASES.lf!);
    for (const [i, text] of [BASES.crlf!, `${MODEL}\n${BASES.lf!}`, `${HEADER}\n${USER}\n`, ""].entries()) {
      await c.change(uri, [{ text }]);
      expect(await editedDiagnostics(c, uri), `full change #${i + 1}`).toEqual(await freshDiagnostics(c, text, `full-${i}`));
    }
  });

  it("a full-text change that moves a BOM-prefixed first line down equals a fresh document", async () => {
    // The per-line cache of full-text changes reuses line 0's parse, made with its byte order mark
    // stripped, for the same text on a later line, where Pi (and a fresh parse) see a BOM that
    // JSON.parse rejects.
    const c = await start();
    const uri = "file:///full/bom.jsonl";
    const before = `\uFEFF${HEADER}\n${MODEL}\n`;
    await c.open(uri, before);
    const after = `${MODEL}\n${before}`; // the BOM line is now line 2
    await c.change(uri, [{ text: after }]);
    const expected = await freshDiagnostics(c, after, "bom");
    const actual = await editedDiagnostics(c, uri);
    expect(
      actual.map((d) => `${JSON.parse(d).range.start.line + 1}:${JSON.parse(d).code}`),
      "codes by line, edited vs fresh",
    ).toEqual(expected.map((d) => `${JSON.parse(d).range.start.line + 1}:${JSON.parse(d).code}`));
    expect(actual).toEqual(expected);
  });
});

describe("capabilities in-process", () => {
  it("pushes with the version without textDocument.diagnostic, and not with it", async () => {
    const push = await start(PUSH_CAPABILITIES);
    const uri = "file:///caps/push.jsonl";
    await push.open(uri, `${HEADER}\n${USER}\n`, "jsonl", 7);
    const published = await push.waitForDiagnostics(uri, (p) => p.version === 7);
    expect(describeDiagnostics(published.diagnostics)).toEqual([`L2 ${USER.indexOf('"a0000001"')}-${USER.indexOf('"a0000001"') + 10} error dangling-parent`]);
    push.dispose();

    const pull = await start(PULL_CAPABILITIES);
    await pull.open(uri, `${HEADER}\n${USER}\n`);
    expect(describeDiagnostics(await pull.pullItems(uri))).toEqual(describeDiagnostics(published.diagnostics));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(pull.published).toEqual([]);
  });
});

describe("pull result ids", () => {
  it("a document closed and reopened at the same version with other text is not reported 'unchanged'", async () => {
    // The result id is the bare document version, and versions restart when a document is reopened
    // (VS Code reopens at version 1): a client that still holds the old result id is told that the
    // new text's diagnostics are unchanged and keeps showing the old ones.
    const c = await start();
    const uri = "file:///pull/reopen.jsonl";
    await c.open(uri, `${HEADER}\n${USER.replace('"a0000001"', '"gone"')}\n`);
    const first = await c.pullDiagnostics(uri);
    expect(first.kind).toBe("full");
    if (first.kind !== "full") return;
    expect(describeDiagnostics(first.items).map((d) => d.split(" ").pop())).toEqual(["dangling-parent"]);
    await c.close(uri);
    await c.open(uri, `${HEADER}\n${MODEL}\n${USER}\n`); // version 1 again, and now clean
    const second = await c.pullDiagnostics(uri, first.resultId);
    expect(second, "after reopening with different text, the old result id must not match").toMatchObject({ kind: "full", items: [] });
  });
});

describe("a change that does not raise the version", () => {
  // The spec asks for a higher version after each change, but a client may send the same one again
  // or an earlier one. The diagnostics were cached by version, so the second text was answered with
  // the first text's list (pulled) or not published at all (pushed).
  const DANGLING = '"parentId":"gone0001"';

  it("pulled: the list of the new text, not the cached one of the same version", async () => {
    const c = await start();
    const uri = "file:///version/pull.jsonl";
    await c.open(uri, `${HEADER}\n${MODEL}\n${USER}\n`, "jsonl", 1);
    expect(await c.pullItems(uri)).toEqual([]);
    await c.replace(uri, '"parentId":"a0000001"', DANGLING, 1, 1);
    expect(describeDiagnostics(await c.pullItems(uri)).map((d) => d.split(" ").pop())).toEqual(["dangling-parent"]);
    // Back to a version seen before, with the text of another.
    await c.replace(uri, DANGLING, '"parentId":"a0000001"', 1, 2);
    expect(await c.pullItems(uri)).toEqual([]);
    await c.replace(uri, '"parentId":"a0000001"', DANGLING, 1, 2);
    expect(describeDiagnostics(await c.pullItems(uri)).map((d) => d.split(" ").pop())).toEqual(["dangling-parent"]);
  });

  it("pushed: the new list is published", async () => {
    const c = await start(PUSH_CAPABILITIES);
    const uri = "file:///version/push.jsonl";
    await c.open(uri, `${HEADER}\n${MODEL}\n${USER}\n`, "jsonl", 1);
    await c.waitForDiagnostics(uri, (p) => p.diagnostics.length === 0);
    await c.replace(uri, '"parentId":"a0000001"', DANGLING, 1, 1);
    const published = await c.waitForDiagnostics(uri, (p) => p.diagnostics.length === 1);
    expect(describeDiagnostics(published.diagnostics).map((d) => d.split(" ").pop())).toEqual(["dangling-parent"]);
  });

  it("formatting: edits computed for the text before a same-version change are not sent", async () => {
    // Every step a slice (`sliceMs: 0`), so that the formatting pauses after each thousand lines
    // whatever the machine's speed. With the 15 ms budget it sometimes ran its six steps in one or
    // two slices, all before the server read the change, and rightly answered the text it was asked
    // about. The change reaches the server's queue a turn of the event loop after the request (the
    // client's writer sends one message a turn), so it is handled at the second of six pauses.
    const c = await start(PULL_CAPABILITIES, { sliceMs: 0 });
    const uri = "file:///version/format.jsonl";
    // Six thousand lines, six steps, each line not in Pi's form.
    const spaced = USER.replace('"type":"message"', '"type": "message"');
    await c.open(uri, `${HEADER}\n${MODEL}\n${Array.from({ length: 6000 }, () => spaced).join("\n")}\n`, "jsonl", 1);
    const params = { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } };
    const formatting = c.request("textDocument/formatting", params);
    await c.change(uri, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: "\n" }], 1);
    await expect(formatting).rejects.toMatchObject({ code: -32801 });
    // Asked again, it answers the new text (a line lower): the refusal was the change's doing.
    const again = await c.request<TextEdit[]>("textDocument/formatting", params);
    expect(again).toHaveLength(6000);
    expect(again[0]?.range.start.line).toBe(3);
  });
});

describe("a didChange whose second change is malformed", () => {
  it("leaves no answer of the old text over the new lines, and diagnostics follow the text", async () => {
    // The first change was applied, the second threw, and the analysis of the text before the
    // notification stayed cached: the outline listed entries on lines the document no longer had.
    const c = await start(PUSH_CAPABILITIES);
    const uri = "file:///malformed/change.jsonl";
    await c.open(uri, `${HEADER}\n${MODEL}\n${USER}\n${CALL}\n${RESULT}\n`);
    await c.waitForDiagnostics(uri, (p) => p.version === 1);
    expect(await c.request<unknown[]>("textDocument/documentSymbol", { textDocument: { uri } })).toHaveLength(5);
    await c.notifyServer("textDocument/didChange", {
      textDocument: { uri, version: 2 },
      contentChanges: [
        // Deletes the model change: the user message's parent now dangles.
        { range: { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } }, text: "" },
        { range: null, text: "x" },
      ],
    });
    const published = await c.waitForDiagnostics(uri, (p) => p.version === 2);
    expect(describeDiagnostics(published.diagnostics).map((d) => d.split(" ").pop())).toEqual(["dangling-parent"]);
    const symbols = await c.request<{ range: { end: { line: number } } }[]>("textDocument/documentSymbol", { textDocument: { uri } });
    expect(symbols.map((s) => s.range.end.line)).toEqual([0, 1, 2, 3]);
  });
});
