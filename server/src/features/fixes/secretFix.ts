/**
 * Credentials in the editor: the quick fix of one `secret` diagnostic, and the source action that
 * replaces every credential of the buffer, each with the placeholder `redact` writes
 * (`core/edits/redact.ts`). Both are edits the client applies; the server writes nothing.
 *
 * The placeholder's hash is keyed, as `redact`'s is, with a key drawn once per server process and
 * kept in memory only: the same secret then gets the same placeholder in every fix of the editing
 * session (one credential fixed by hand, then the rest with the source action, still reads as one
 * credential), while the placeholder cannot confirm a guess of the secret once the process is gone.
 * Both fixes are unsafe: they change what the model saw, so Fix all never applies them.
 */

import type { Diagnostic, TextEdit } from "vscode-languageserver";
import { decoded, linkValues, newRedactionKey, redactionPlaceholder, redactText } from "../../core/edits/redact";
import { findSecrets, SECRET_KIND_NAMES } from "../../core/line/secrets";
import { splitLines } from "../../core/line/split";
import type { SessionDocument } from "../../core/session/document";
import type { Fix } from "./fixContext";

let processKey: Uint8Array | undefined;

/** The key of this server process's placeholders, drawn on first use. */
export function editorRedactionKey(): Uint8Array {
  processKey ??= newRedactionKey();
  return processKey;
}

function sameRange(x: Diagnostic["range"], y: Diagnostic["range"]): boolean {
  return x.start.line === y.start.line && x.start.character === y.start.character && x.end.line === y.end.line && x.end.character === y.end.character;
}

/**
 * "Replace this credential with a placeholder": the diagnostic's range, replaced. None when the
 * credential is no longer where the diagnostic says, or is part of an id or a link, which `redact`
 * leaves alone too (replacing it would change the tree, or unpair a tool call from its result).
 */
export function secretFix(doc: SessionDocument, line: number, d: Diagnostic, key: Uint8Array): Fix | undefined {
  const text = doc.jsonText(line);
  for (const match of findSecrets(text)) {
    if (!sameRange(doc.jsonRange(line, match.start, match.end), d.range)) continue;
    const value = decoded(text.slice(match.start, match.end));
    if (linkValues(text).some((v) => v.includes(value))) return undefined;
    const placeholder = redactionPlaceholder(match.kind, value, key);
    return {
      title: `Replace this credential with a placeholder (${placeholder})`,
      edits: [{ range: d.range, newText: placeholder }],
      safe: false,
      summary: `replaced ${SECRET_KIND_NAMES[match.kind]} with ${placeholder}`,
    };
  }
  return undefined;
}

/** The edits that redact every credential of `doc` as `redact` would (one per line changed), and how many secrets they replace. */
export function redactAllEdits(doc: SessionDocument, key: Uint8Array): { edits: TextEdit[]; secrets: number } {
  const redaction = redactText(doc.getText(), (kind, value) => redactionPlaceholder(kind, value, key));
  if (redaction.replacements.length === 0) return { edits: [], secrets: 0 };
  const after = splitLines(redaction.text).lines;
  const edits: TextEdit[] = [];
  // A placeholder holds no line break, so the lines correspond one to one.
  for (let line = 0; line < doc.lineCount && line < after.length; line++) {
    const before = doc.lines[line]!;
    const now = after[line]!;
    if (now === before) continue;
    // Only the characters between the common start and end change, so that a line's "\r" or
    // byte order mark is never part of an edit.
    let start = 0;
    while (start < before.length && start < now.length && before.charCodeAt(start) === now.charCodeAt(start)) start++;
    let end = 0;
    while (end < before.length - start && end < now.length - start && before.charCodeAt(before.length - 1 - end) === now.charCodeAt(now.length - 1 - end))
      end++;
    edits.push({ range: doc.spanRange(line, start, line, before.length - end), newText: now.slice(start, now.length - end) });
  }
  return { edits, secrets: new Set(redaction.replacements.map((r) => r.secret)).size };
}
