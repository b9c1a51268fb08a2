/**
 * Edits at the end of a session (a line appended or removed, the last entry's parentId, id or type
 * changed, the last line broken and mended, the trailing newline added or removed), which make the
 * analysis from the previous one with a new leaf (`resplice.ts`), keep every answer equal to a fresh
 * document's: the tree, the diagnostics (in full and as a first batch), both Pi versions' contexts,
 * and the editor's answers (outline, folding, lenses, faded and inlay hints, hovers), with idle releases between edits.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { forgetValues } from "../../server/src/core/line/values";
import { SessionDocument } from "../../server/src/core/session/document";
import type { Entry } from "../../server/src/core/session/entry";
import { respliceOf } from "../../server/src/core/session/resplice";
import { releaseKept } from "../../server/src/core/session/semantics/memo";
import type { Diagnostic } from "vscode-languageserver";
import { collectDiagnostics, collectProvisionalDiagnostics, computeDiagnostics } from "../../server/src/features/diagnostics";
import { provisionalRequestDiagnostics, requestDiagnostics } from "../../server/src/features/requestDiagnostics";
import { editorAnswers } from "../helpers/editorAnswers";
import { treeData } from "../helpers/freshAnswers";
import { editInContext } from "../helpers/contextEdits";
import { expectKeptContextsFresh } from "../helpers/keptContexts";
import { seededRandom } from "../helpers/lspClient";
import { keptFindingFaults, recordFindings } from "../helpers/keptFindings";

const FIXTURES = join(__dirname, "../parity/fixtures");
const files = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".jsonl"))
  .sort();

const line = (e: Entry | undefined) => (e ? e.line : null);

const idsOf = (doc: SessionDocument) => doc.lines.map((l) => /"id":("[^"]*"|null|false|\d+)/.exec(l)?.[1]).filter((x): x is string => x !== undefined);

/** One random edit at the end of `doc`: says what it did. */
function endEdit(doc: SessionDocument, random: () => number, n: number): string {
  const ids = idsOf(doc);
  const pick = () => {
    const r = random();
    if (r < 0.1) return "null";
    if (r < 0.2) return '"nowhere"';
    return ids[Math.floor(random() * ids.length)] ?? "null";
  };
  // The last line with text, and the line after the text (the empty line after a trailing newline, or the last).
  let last = doc.lineCount - 1;
  while (last > 0 && doc.lines[last]!.length === 0) last--;
  const text = doc.lines[last]!;
  const end = { line: doc.lspLine(doc.lineCount - 1), character: doc.lines[doc.lineCount - 1]!.length };
  const lastStart = { line: doc.lspLine(last), character: 0 };
  const lastEnd = { line: doc.lspLine(last), character: text.length };
  const trailing = doc.lines[doc.lineCount - 1]!.length === 0;
  const sep = trailing ? "" : "\n";
  const nl = trailing ? "\n" : "";
  const change = (range: { start: { line: number; character: number }; end: { line: number; character: number } }, to: string) =>
    doc.update([{ range, text: to }], doc.version + 1);
  const id = `"z${n}"`;
  const entry = (id: string, parent: string) =>
    `{"type":"message","id":${id},"parentId":${parent},"timestamp":"2025-01-01T00:00:0${n % 10}.000Z","message":{"role":"user","content":"u${n}","timestamp":1}}`;
  const kind = Math.floor(random() * 17);
  switch (kind) {
    case 14:
    case 15: {
      // A copy of another entry appended, as Pi appends: under a new id, mostly a child of the last entry.
      const lines = doc.lines.filter((l) => l.includes('"parentId"'));
      if (lines.length === 0) return "none";
      const source = lines[Math.floor(random() * lines.length)]!;
      const leafId = /"id":("[^"]*"|null|\d+)/.exec(text)?.[1] ?? "null";
      const copy = source
        .replace(/"id":("[^"]*"|null|\d+)/, `"id":${id}`)
        .replace(/"parentId":("[^"]*"|null|false|\d+)/, `"parentId":${random() < 0.7 ? leafId : pick()}`);
      change({ start: end, end }, `${sep}${copy}${nl}`);
      return `appended a copy of ${source.slice(0, 40)}`;
    }
    case 16: {
      // Two lines appended in one change, the second a child of the first.
      const id2 = `"y${n}"`;
      change({ start: end, end }, `${sep}${entry(id, pick())}\n${entry(id2, random() < 0.8 ? id : pick())}${nl}`);
      return "appended two";
    }
    case 0:
    case 1:
      change({ start: end, end }, `${sep}${entry(id, pick())}${nl}`);
      return "appended";
    case 2:
      if (random() < 0.5) {
        // Ids that are not strings, which Pi's map keys as they are (an object or array only equals itself).
        const odd = ["7", "1.5", "true", '{"a":1}', "[1]", String(n + 1000)];
        change(
          { start: end, end },
          `${sep}${entry(odd[Math.floor(random() * odd.length)]!, random() < 0.5 ? odd[Math.floor(random() * odd.length)]! : pick())}${nl}`,
        );
        return "appended an odd id";
      }
      change({ start: end, end }, `${sep}${entry(id, id)}${nl}`);
      return "appended a self-parent";
    case 3: {
      const dup = ids[Math.floor(random() * ids.length)] ?? id;
      change({ start: end, end }, `${sep}${entry(dup, pick())}${nl}`);
      return "appended a held id";
    }
    case 4: {
      const odd = [
        '{"type":"session","version":3,"id":"s2","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}',
        "not json",
        "",
        "null",
        "0",
        "{}",
        '{"type":"message","id":null,"parentId":null}',
        "5",
        '"str"',
        "[1]",
        "true",
        '{"type":"message"}',
      ][Math.floor(random() * 12)]!;
      change({ start: end, end }, `${sep}${odd}${nl}`);
      return `appended ${odd}`;
    }
    case 5:
    case 6:
      if (last === 0) return "none";
      change({ start: { line: doc.lspLine(last - 1), character: doc.lines[last - 1]!.length }, end: lastEnd }, "");
      return "deleted the last line";
    case 7: {
      const after = text.replace(
        /"parentId":("[^"]*"|null|false|\d+)/,
        `"parentId":${random() < 0.2 ? (/"id":("[^"]*"|null|\d+)/.exec(text)?.[1] ?? "null") : pick()}`,
      );
      change({ start: lastStart, end: lastEnd }, after);
      return "last parent";
    }
    case 8: {
      const falsy = ['""', "0", "false", "null"][Math.floor(random() * 4)]!;
      const after = text.replace(/"id":("[^"]*"|null|false|\d+)/, `"id":${random() < 0.4 ? id : random() < 0.5 ? falsy : pick()}`);
      change({ start: lastStart, end: lastEnd }, after);
      return "last id";
    }
    case 9: {
      const after = text.replace(/"type":"[a-z_]*"/, `"type":"${["message", "custom", "label", "session", "model_change"][Math.floor(random() * 5)]}"`);
      change({ start: lastStart, end: lastEnd }, after);
      return "last type";
    }
    case 10: {
      if (text.length < 2) return "none";
      const at = { line: doc.lspLine(last), character: 1 + Math.floor(random() * (text.length - 1)) };
      change({ start: at, end: at }, "\n");
      return "broke the last line";
    }
    case 11: {
      if (last === 0) return "none";
      change({ start: { line: doc.lspLine(last - 1), character: doc.lines[last - 1]!.length }, end: lastStart }, "");
      return "mended the last two lines";
    }
    case 12:
      if (trailing && doc.lineCount > 1) change({ start: lastEnd, end }, "");
      else change({ start: end, end }, "\n");
      return "trailing newline";
    default: {
      const after = text.replace(/"(content|text)":"/, '"$1":"x');
      if (after === text) return "none";
      change({ start: lastStart, end: lastEnd }, after);
      return "typed in the last line";
    }
  }
}

/** A session of 1 to 6 entries (tool calls, results, prompts), with a final newline four times in five. */
function randomSession(random: () => number): string {
  const lines = ['{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}'];
  const count = 1 + Math.floor(random() * 6);
  for (let i = 0; i < count; i++) {
    const parent = i === 0 ? "null" : `"e${random() < 0.7 ? i - 1 : Math.floor(random() * i)}"`;
    const r = random();
    const head = `"id":"e${i}","parentId":${parent},"timestamp":"2025-01-01T00:00:0${i}.000Z"`;
    if (r < 0.3)
      lines.push(
        `{"type":"message",${head},"message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"toolUse","timestamp":1}}`,
      );
    else if (r < 0.55)
      lines.push(
        `{"type":"message",${head},"message":{"role":"toolResult","toolCallId":"t1","toolName":"read","content":[{"type":"text","text":"o"}],"isError":false,"timestamp":1}}`,
      );
    else lines.push(`{"type":"message",${head},"message":{"role":"user","content":"u","timestamp":1}}`);
  }
  return `${lines.join("\n")}${random() < 0.8 ? "\n" : ""}`;
}

beforeEach(() => {
  vi.useFakeTimers({ now: new Date("2026-03-02T12:00:00.000Z") });
});
afterEach(() => {
  vi.useRealTimers();
});

/**
 * `rounds` documents from `texts`, each edited `steps` times at the end with releases and reads between,
 * compared with a fresh document after most edits (now and then two edits go before the next analysis).
 */
function run(seed: number, texts: () => string, rounds: number, steps: number) {
  const random = seededRandom(seed);
  let compared = 0;
  let respliced = 0;
  const counts = new Map<string, number>();
  for (let round = 0; round < rounds; round++) {
    const doc = new SessionDocument("file:///t.jsonl", "jsonl", 1, texts());
    const log: string[] = [];
    for (let step = 0; step < steps; step++) {
      const between = random();
      if (between < 0.2) {
        releaseKept();
        forgetValues();
        log.push("release");
      } else if (between < 0.6) computeDiagnostics(doc);
      else if (between < 0.7) editorAnswers(doc);
      // Now and then an edit inside a line the resumed context reads, between the edits at the end.
      const did = random() < 0.2 ? `in context ${editInContext(doc, random)}` : endEdit(doc, random, round * 100 + step);
      log.push(did);
      counts.set(did, (counts.get(did) ?? 0) + 1);
      if (random() < 0.2) continue;
      if (respliceOf(doc.analysis)) respliced++;
      const fresh = new SessionDocument("file:///t.jsonl", "jsonl", 1, doc.getText());
      const where = `round ${round}, step ${step}: ${log.join(", ")}\n${doc.getText()}`;
      expect(treeData(doc.analysis), where).toEqual(treeData(fresh.analysis));
      // In a random order: what is asked first makes what the others find kept.
      const order = random();
      if (order < 0.3) expect(editorAnswers(doc), where).toEqual(editorAnswers(fresh));
      if (order < 0.6) expect(collectDiagnostics(doc, 2), where).toEqual(collectDiagnostics(fresh, 2));
      expect(computeDiagnostics(doc), where).toEqual(computeDiagnostics(fresh));
      expect(collectDiagnostics(doc, 2), where).toEqual(collectDiagnostics(fresh, 2));
      expectKeptContextsFresh(doc, fresh, where);
      expect(editorAnswers(doc), where).toEqual(editorAnswers(fresh));
      compared++;
    }
  }
  return { compared, respliced, counts };
}

it("random edits at the end of small sessions answer as a fresh document", () => {
  const random = seededRandom(Number(process.env.SEED ?? 7));
  const { compared, respliced } = run(Number(process.env.SEED ?? 39), () => randomSession(random), 300, 12);
  expect(respliced).toBeGreaterThan(compared / 4);
});

it("random edits at the end of the parity fixtures answer as a fresh document", () => {
  let k = 0;
  const { compared, respliced } = run(
    Number(process.env.SEED ?? 40),
    () => readFileSync(join(FIXTURES, files[k++ % files.length]!), "utf8"),
    files.length * 2,
    10,
  );
  expect(respliced).toBeGreaterThan(compared / 4);
});

it("the provisional list after the idle release and edits at the end keeps request findings only on unchanged lines, the rest as a fresh document's", () => {
  const failures: string[] = [];
  let provisional = 0;
  const random = seededRandom(Number(process.env.SEED ?? 41));
  for (const name of files) {
    const doc = new SessionDocument(`file:///${name}`, "jsonl", 1, readFileSync(join(FIXTURES, name), "utf8"));
    collectDiagnostics(doc);
    let made = recordFindings(doc, requestDiagnostics(doc));
    const record = () => {
      made = recordFindings(doc, requestDiagnostics(doc));
    };
    record();
    const log: string[] = [];
    for (let step = 0; step < 12; step++) {
      if (random() < 0.5) {
        releaseKept();
        forgetValues();
        log.push("release");
      }
      log.push(endEdit(doc, random, step));
      const collected = collectProvisionalDiagnostics(doc);
      if (collected) {
        provisional++;
        const reqs = provisionalRequestDiagnostics(doc)!;
        const kept = reqs.filter((d) => d.code !== "compaction-keeps-tool-result");
        for (const fault of keptFindingFaults(doc, made, kept)) failures.push(`${name} step ${step} [${log.join(",")}]: ${fault}`);
        const fresh = new SessionDocument(`file:///${name}`, "jsonl", 1, doc.getText());
        const key = (ds: readonly Diagnostic[]) => ds.map((d) => JSON.stringify([d.code, d.message, d.range, d.relatedInformation ?? []])).sort();
        const without = (all: string[], some: string[]) => {
          const left = [...all];
          for (const x of some) {
            const i = left.indexOf(x);
            if (i >= 0) left.splice(i, 1);
          }
          return left;
        };
        const mine = JSON.stringify(without(key(collected.diagnostics), key(reqs)));
        const theirs = JSON.stringify(without(key(collectDiagnostics(fresh).diagnostics), key(requestDiagnostics(fresh))));
        if (mine !== theirs) failures.push(`${name} step ${step} [${log.join(",")}]: others differ ${mine.slice(0, 300)} vs ${theirs.slice(0, 300)}`);
        log.push("P");
      }
      if (collected === undefined || random() < 0.5) {
        const fresh = new SessionDocument(`file:///${name}`, "jsonl", 1, doc.getText());
        expect(collectDiagnostics(doc), `${name} step ${step} [${log.join(",")}]`).toEqual(collectDiagnostics(fresh));
        record();
        log.push("C");
      }
    }
  }
  expect(failures).toEqual([]);
  expect(provisional).toBeGreaterThan(files.length / 2);
});

it("makes the analysis from the previous one when the last entry's id becomes falsy, and after a child of it is appended and removed", () => {
  const header = '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}';
  const message = (id: string, parent: string) =>
    `{"type":"message","id":${id},"parentId":${parent},"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"u","timestamp":1}}`;
  for (const falsy of ['""', "0", "false", "null"]) {
    const doc = new SessionDocument("file:///t.jsonl", "jsonl", 1, `${[header, message('"a"', "null"), message('"b"', '"a"')].join("\n")}\n`);
    editorAnswers(doc);
    computeDiagnostics(doc);
    const same = (where: string) => {
      expect(respliceOf(doc.analysis), where).toBeDefined();
      const fresh = new SessionDocument("file:///t.jsonl", "jsonl", 1, doc.getText());
      expect(treeData(doc.analysis), where).toEqual(treeData(fresh.analysis));
      expect(computeDiagnostics(doc), where).toEqual(computeDiagnostics(fresh));
      expectKeptContextsFresh(doc, fresh, where);
      expect(editorAnswers(doc), where).toEqual(editorAnswers(fresh));
    };
    doc.update([{ range: { start: { line: 2, character: 0 }, end: { line: 2, character: doc.lines[2]!.length } }, text: message(falsy, '"a"') }], 2);
    same(`id ${falsy}`);
    // With the id null Pi resumes from no entry; another falsy id falls back to the last entry.
    expect(line(doc.analysis.leaf), falsy).toBe(falsy === "null" ? null : 2);
    doc.update([{ range: { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } }, text: `${message('"c"', falsy)}\n` }], 3);
    same(`child of ${falsy} appended`);
    doc.update([{ range: { start: { line: 3, character: 0 }, end: { line: 4, character: 0 } }, text: "" }], 4);
    same(`child of ${falsy} removed`);
  }
});
