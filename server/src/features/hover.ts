/**
 * Hover: what the token under the cursor means to Pi, as bounded Markdown.
 *
 * `targetAt` classifies the token; each kind has a renderer in `hover/`:
 * - an entry `type` or a message `role` (`schema.ts`): the schema table's row;
 * - anywhere else on an entry (`entry.ts`): a one-line summary with a text preview, its place in the
 *   tree (depth, children, label, active path, context) and, where present, tokens and cost;
 * - an id, a reference or a tool call id (`references.ts`): a preview of the entry it names, or why
 *   it names none;
 * - a timestamp (`time.ts`): the time in words and the gap since the parent entry;
 * - the header (`header.ts`): the session's name, directory, version and tree counts.
 *
 * Bounds: every piece of text taken from the session is clipped before it is escaped or joined
 * (`markdown.ts`), so a hover on a 400 KB line reads only the first few hundred characters of any
 * string, and the result never exceeds `MAX_HOVER_CHARS`. Facts that need the whole session come
 * from the semantic layer's memoised queries, never from a walk per hover.
 */

import type { Hover, Position } from "vscode-languageserver";
import type { SessionDocument } from "../core/session/document";
import { clip } from "../core/base/text";
import { entryHover } from "./hover/entry";
import { headerHover, headerProblem } from "./hover/header";
import { idHover, referenceHover, toolCallHover, toolResultHover } from "./hover/references";
import { roleHover, typeHover } from "./hover/schema";
import { timestampHover } from "./hover/time";
import { type Target, targetAt } from "./target";

/** No hover is longer than this, whatever the line. */
export const MAX_HOVER_CHARS = 3000;

export function computeHover(doc: SessionDocument, position: Position): Hover | null {
  const target = targetAt(doc, position);
  if (!target) return null;
  const markdown = render(doc, target);
  if (markdown === undefined) return null;
  return { contents: { kind: "markdown", value: bound(markdown) }, range: target.range };
}

function render(doc: SessionDocument, target: Target): string | undefined {
  const a = doc.analysis;
  switch (target.kind) {
    case "type":
      return typeHover(a, target.type, target.entry, target.line);
    case "role":
      return roleHover(target.entry, target.role);
    case "entry":
      return entryHover(a, target.entry);
    case "entry-id":
      return idHover(a, target.entry, target.id);
    case "reference":
      return referenceHover(a, target.entry, target.field, target.id);
    case "tool-result":
      return toolResultHover(a, target.entry, target.id);
    case "tool-call":
      return toolCallHover(a, target.entry, target.id);
    case "timestamp":
      return timestampHover(doc, a, target.entry, target.line, target.value);
    case "header":
    case "parent-session": {
      const entry = a.entryAtLine[target.line];
      // The first parseable line is where Pi expects the header; when it is an entry, show the entry.
      if (entry) return `${entryHover(a, entry)}\n\n${headerProblem(a) ?? ""}`.trimEnd();
      return headerHover(a, target.line);
    }
  }
}

/** The last line of defence: no hover exceeds `MAX_HOVER_CHARS`. */
function bound(markdown: string): string {
  return markdown.length <= MAX_HOVER_CHARS ? markdown : clip(markdown, MAX_HOVER_CHARS - 1);
}
