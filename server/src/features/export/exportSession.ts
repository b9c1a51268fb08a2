/**
 * `export`: a session's branch or whole tree, as Markdown or as one HTML page, written piece by
 * piece as the entries are read: each entry's messages are made (`messagesOfLine`, the core's
 * per-entry part of Pi's `buildSessionContext`), rendered, written and let go before the next, so
 * that what is held is the analysis (numbers per line) and one entry, not the file. The messages
 * an entry gives and the Markdown of each are the context's own (`contextMarkdown.ts`); the HTML
 * is `htmlMessage.ts`. The check's findings, given by line, are marked on their entries.
 *
 * The output is bounded: each text is cut (`MAX_TEXT_CHARS`), and once `maxBytes` are written the
 * remaining entries are counted, not rendered, and the page is closed properly.
 */

import type { Diagnostic } from "vscode-languageserver";
import type { SessionDocument } from "../../core/session/document";
import { messagesOfLine, type PiFlavor } from "../../core/pi/buildContext";
import { releaseKept } from "../../core/session/semantics/memo";
import { plural } from "../../core/base/text";
import { renderMessageMarkdown } from "../contextMarkdown";
import { labelOf } from "../../core/session/semantics/labels";
import { sessionName } from "../../core/session/semantics/sessionName";
import type { ExportPlan } from "./plan";
import { messageHtml } from "./htmlMessage";
import { entrySection, fileFindings, pageHead, pageTail } from "./htmlPage";
import { markdownEntry, markdownFileFindings, markdownHead, markdownTail } from "./markdownPage";
import { byteSize, MAX_TEXT_CHARS } from "./htmlText";

export interface ExportOptions {
  format: "markdown" | "html";
  flavor: PiFlavor;
  plan: ExportPlan;
  /** The check's diagnostics, as `collectDiagnostics` gives them. */
  diagnostics: readonly Diagnostic[];
  /** Bytes (UTF-8) written at most before the rest is only counted. */
  maxBytes: number;
  /** `'sha256-…'` of the page's script (`PAGE_SCRIPT`), for the HTML page's policy. */
  scriptHash: string;
}

export interface ExportResult {
  bytes: number;
  /** Entries left out once `maxBytes` was reached. */
  cut: number;
}

/** Input bytes rendered between two releases of the kept messages (`releaseKept`). */
const RELEASE_EVERY_CHARS = 32 * 1024 * 1024;

export function exportSession(doc: SessionDocument, options: ExportOptions, write: (chunk: string) => void): ExportResult {
  const a = doc.analysis;
  const { plan, format } = options;
  const html = format === "html";
  const header = a.header;
  const info = {
    sessionName: sessionName(a).name,
    sessionId: typeof header?.id === "string" ? header.id : undefined,
    scriptHash: options.scriptHash,
  };
  const { byLine, others } = findingsByLine(doc, options.diagnostics);
  let bytes = 0;
  const out = (chunk: string) => {
    bytes += Buffer.byteLength(chunk, "utf8");
    write(chunk);
  };
  out(html ? pageHead(info, plan) : markdownHead(info, plan));
  out(html ? fileFindings(others) : markdownFileFindings(others));

  let n = 0;
  let cut = 0;
  let sinceRelease = 0;
  for (const entry of plan.entries) {
    if (bytes >= options.maxBytes) {
      cut++;
      continue;
    }
    const messages = messagesOfLine(entry, options.flavor === "0.74");
    const rendered = messages.map((m) =>
      html ? messageHtml(m) : renderMessageMarkdown(m, ++n, entry, { maxLines: Number.MAX_SAFE_INTEGER, maxChars: MAX_TEXT_CHARS }),
    );
    const parent = a.parent[entry.index];
    const label = labelOf(a, entry)?.value;
    const notes = [plan.edited.get(entry.index), typeof label === "string" ? `label: ${label}` : undefined].filter((n) => n !== undefined);
    const body = { messages: rendered, notSent: plan.notSent?.[entry.index] === 1, notes, findings: byLine.get(entry.line) ?? [] };
    out(html ? entrySection(entry, parent, body) : markdownEntry(entry, parent, { ...body, all: plan.all }));
    // The messages made are kept with the line's parse (`messagesOfLine`); a long branch lets them go as it goes.
    sinceRelease += (entry.parsed as { textLength?: number }).textLength ?? 0;
    if (sinceRelease > RELEASE_EVERY_CHARS) {
      releaseKept();
      sinceRelease = 0;
    }
  }
  const note = cut > 0 ? `… ${plural(cut, "more entry", "more entries")} not shown: the export stops after ${byteSize(options.maxBytes)}.` : undefined;
  out(html ? pageTail(note) : markdownTail(note));
  return { bytes, cut };
}

/** The diagnostics by the Pi line they start on; those on no entry's line apart, with their line. */
function findingsByLine(
  doc: SessionDocument,
  diagnostics: readonly Diagnostic[],
): { byLine: Map<number, Diagnostic[]>; others: { line: number; d: Diagnostic }[] } {
  const a = doc.analysis;
  const byLine = new Map<number, Diagnostic[]>();
  const others: { line: number; d: Diagnostic }[] = [];
  for (const d of diagnostics) {
    const line = doc.toPi(d.range.start).line;
    if (a.entryAtLine[line] === undefined) {
      others.push({ line, d });
      continue;
    }
    const list = byLine.get(line);
    if (list) list.push(d);
    else byLine.set(line, [d]);
  }
  return { byLine, others };
}
