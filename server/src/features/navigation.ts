/**
 * Go to definition, find references, document highlights and document links: the links between
 * entries, followed the way Pi follows them.
 *
 * - `parentId`, `targetId`, `fromId` and `firstKeptEntryId` lead to the entry Pi resolves the id to
 *   (`byId`: the last entry holding it), landing on that entry's `id` value; `fromId: "root"` and
 *   dangling ids lead nowhere.
 * - A toolResult's `toolCallId` leads to the `toolCall` block with that id in the nearest assistant
 *   message on its path; a tool call and its results find each other as references.
 * - The header's `parentSession` is a link to that file.
 *
 * Every function answers from the cached analysis and the reference index; only the few lines in
 * the answer are scanned for positions.
 */

import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { DocumentHighlight, DocumentLink, Location, Position, Range } from "vscode-languageserver";
import type { Entry } from "../core/session/entry";
import type { SessionDocument } from "../core/session/document";
import { documentPath } from "../core/base/posixPath";
import { referencesTo } from "../core/session/semantics/references";
import { callFor, toolCallBlock, toolIndex } from "../core/session/semantics/toolPairs";
import { targetAt } from "./target";

const HIGHLIGHT_READ = 2;
const HIGHLIGHT_WRITE = 3;

export function computeDefinition(doc: SessionDocument, position: Position): Location[] {
  const target = targetAt(doc, position);
  if (!target) return [];
  const a = doc.analysis;
  switch (target.kind) {
    case "entry-id":
      return [{ uri: doc.uri, range: target.range }];
    case "reference": {
      if (target.field === "fromId" && target.id === "root") return [];
      const entry = a.byId.get(target.id);
      return entry ? [idLocation(doc, entry)] : [];
    }
    case "tool-result": {
      const call = callFor(a, target.entry, target.id);
      if (!call) return [];
      const block = toolCallBlock(call, target.id);
      const path = block >= 0 ? ["message", "content", block, "id"] : ["id"];
      return [{ uri: doc.uri, range: doc.valueRange(call.line, path) }];
    }
    case "tool-call":
      return [{ uri: doc.uri, range: target.range }];
    case "parent-session": {
      const uri = fileUri(doc.uri, target.path);
      return uri ? [{ uri, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } }] : [];
    }
    default:
      return [];
  }
}

/** A place in the document that names an id or a tool call, and whether it declares it. */
interface Occurrence {
  range: Range;
  declaration: boolean;
}

function occurrences(doc: SessionDocument, position: Position): Occurrence[] {
  const target = targetAt(doc, position);
  if (!target) return [];
  switch (target.kind) {
    case "entry-id":
    case "reference":
      if (target.kind === "reference" && target.field === "fromId" && target.id === "root") return [];
      return idOccurrences(doc, target.id);
    case "tool-call":
    case "tool-result":
      return toolCallOccurrences(doc, target.id);
    default:
      return [];
  }
}

function idOccurrences(doc: SessionDocument, id: string): Occurrence[] {
  const a = doc.analysis;
  const out: Occurrence[] = [];
  const holders = a.duplicates.get(id) ?? (a.byId.has(id) ? [a.byId.get(id)!] : []);
  for (const holder of holders) out.push({ range: doc.valueRange(holder.line, ["id"]), declaration: true });
  for (const ref of referencesTo(a, id)) {
    out.push({ range: doc.valueRange(ref.entry.line, [ref.field]), declaration: false });
  }
  return sortByPosition(out);
}

function toolCallOccurrences(doc: SessionDocument, id: string): Occurrence[] {
  const out: Occurrence[] = [];
  const { calls, results } = toolIndex(doc.analysis);
  for (const entry of results.get(id) ?? []) out.push({ range: doc.valueRange(entry.line, ["message", "toolCallId"]), declaration: false });
  for (const entry of calls.get(id) ?? []) {
    const content = ((entry.parsed.object?.message as Record<string, unknown> | undefined)?.content ?? []) as unknown[];
    content.forEach((block, i) => {
      const b = block as Record<string, unknown> | null;
      if (b && typeof b === "object" && b.type === "toolCall" && b.id === id) {
        out.push({ range: doc.valueRange(entry.line, ["message", "content", i, "id"]), declaration: true });
      }
    });
  }
  return sortByPosition(out);
}

export function computeReferences(doc: SessionDocument, position: Position, includeDeclaration: boolean): Location[] {
  return occurrences(doc, position)
    .filter((o) => includeDeclaration || !o.declaration)
    .map((o) => ({ uri: doc.uri, range: o.range }));
}

export function computeDocumentHighlights(doc: SessionDocument, position: Position): DocumentHighlight[] {
  return occurrences(doc, position).map((o) => ({ range: o.range, kind: o.declaration ? HIGHLIGHT_WRITE : HIGHLIGHT_READ }));
}

export function computeDocumentLinks(doc: SessionDocument): DocumentLink[] {
  const a = doc.analysis;
  const line = a.headerLine;
  const parentSession = a.header?.parentSession;
  if (line === undefined || typeof parentSession !== "string" || parentSession === "") return [];
  const target = fileUri(doc.uri, parentSession);
  if (!target) return [];
  return [{ range: doc.valueRange(line, ["parentSession"]), target, tooltip: "The session this one was forked from" }];
}

function idLocation(doc: SessionDocument, entry: Entry): Location {
  return { uri: doc.uri, range: doc.valueRange(entry.line, ["id"]) };
}

/** A file URI for a path named in the session: absolute as Pi writes it, or relative to the session's folder. */
function fileUri(documentUri: string, path: string): string | undefined {
  try {
    if (isAbsolute(path)) return pathToFileURL(path).href;
    const documentFile = documentPath(documentUri);
    return documentFile === undefined ? undefined : pathToFileURL(resolve(documentFile, "..", path)).href;
  } catch {
    return undefined;
  }
}

function sortByPosition(list: Occurrence[]): Occurrence[] {
  return list.sort((x, y) => x.range.start.line - y.range.start.line || x.range.start.character - y.range.start.character);
}
