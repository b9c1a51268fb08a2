/**
 * Completion on a blank line: a whole new entry of each common kind, as Pi writes it (one compact
 * line), with a fresh id, the entry above as parent and the current time; in a file without a
 * header, the header.
 */

import type { CompletionItem, CompletionList, Range } from "vscode-languageserver";
import type { SessionAnalysis } from "../../core/session/analysis";
import { uuidv7 } from "../../core/base/ids";
import { openToolCalls } from "../../core/session/semantics/toolPairs";
import { codeBlock } from "../markdown";
import { type CompletionContext, insertion, KIND, markdown, rank } from "./common";
import { STRING_DEFAULTS } from "./fields";
import { entryAbove, freshId } from "./ids";
import { jsonContent, type Piece, Snippet } from "./snippet";

const EMPTY_USAGE = `{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`;

const str = (placeholder: string): Piece => ({ placeholder, quoted: true });

export function newEntryCompletion(c: CompletionContext, line: number, lineText: string, range: Range): CompletionList {
  const { a, now } = c;
  // The client filters on the text from the range's start to the cursor: leading blanks, then any word typed.
  const typedBefore = lineText.slice(0, lineText.length - lineText.trimStart().length);
  const items: CompletionItem[] = [];
  const add = (label: string, detail: string, snippet: Snippet): void => {
    items.push({
      label,
      kind: KIND.Snippet,
      detail,
      documentation: markdown(codeBlock(snippet.toPlain(), "json").join("\n")),
      sortText: rank(items.length),
      filterText: typedBefore + label,
      ...insertion(c, range, snippet),
    });
  };

  // No header yet (an empty file, or entries without one): offer one, as Pi writes it. Nothing
  // else may precede a valid header.
  if (a.headerLine !== undefined && line < a.headerLine && a.headerState === "ok") return { isIncomplete: false, items };
  if (a.headerLine === undefined || line < a.headerLine) {
    const id = uuidv7(now, c.random);
    const head = `{"type":"session","version":3,"id":${JSON.stringify(id)},"timestamp":${JSON.stringify(now.toISOString())},"cwd":`;
    add("session header", "The header Pi writes first (version 3, a fresh UUIDv7 id)", new Snippet([head, str("/home/user/project"), "}"]));
    return { isIncomplete: false, items };
  }
  for (const kind of entryKinds(c, a, line)) add(kind.label, kind.detail, new Snippet(kind.pieces));
  return { isIncomplete: false, items };
}

function entryKinds(c: CompletionContext, a: SessionAnalysis, line: number): { label: string; detail: string; pieces: Piece[] }[] {
  const id = freshId(a, c.random);
  const parent = entryAbove(a, line) ?? a.leaf;
  const parentId = parent?.id;
  const ms = c.now.getTime();
  const base = (type: string) =>
    `{"type":${JSON.stringify(type)},"id":${JSON.stringify(id)},"parentId":${parentId === undefined ? "null" : JSON.stringify(parentId)},"timestamp":${JSON.stringify(c.now.toISOString())},`;
  const ref = str(jsonContent(parentId ?? ""));
  // The nearest open tool call on the new entry's path, for the tool result.
  const open = openToolCalls(a, parent, 1).calls[0];
  return [
    {
      label: "user message",
      detail: "message · user",
      pieces: [base("message"), `"message":{"role":"user","content":`, str("text"), `,"timestamp":${ms}}}`],
    },
    {
      label: "assistant reply",
      detail: "message · assistant",
      pieces: [
        base("message"),
        `"message":{"role":"assistant","content":[{"type":"text","text":`,
        str("reply"),
        `}],"api":`,
        str(STRING_DEFAULTS.api),
        `,"provider":`,
        str(STRING_DEFAULTS.provider),
        `,"model":`,
        str(STRING_DEFAULTS.model),
        `,"usage":${EMPTY_USAGE},"stopReason":`,
        { choice: ["stop", "toolUse", "length", "error", "aborted"], quoted: true },
        `,"timestamp":${ms}}}`,
      ],
    },
    {
      label: "tool result",
      detail: "message · toolResult",
      pieces: [
        base("message"),
        `"message":{"role":"toolResult","toolCallId":`,
        str(jsonContent(open?.id ?? "toolu_01")),
        `,"toolName":`,
        str(jsonContent(open?.name ?? "bash")),
        `,"content":[{"type":"text","text":`,
        str("output"),
        `}],"isError":`,
        { choice: ["false", "true"] },
        `,"timestamp":${ms}}}`,
      ],
    },
    { label: "label", detail: "label entry", pieces: [base("label"), `"targetId":`, ref, `,"label":`, str("checkpoint"), "}"] },
    {
      label: "model change",
      detail: "model_change entry",
      pieces: [base("model_change"), `"provider":`, str(STRING_DEFAULTS.provider), `,"modelId":`, str(STRING_DEFAULTS.modelId), "}"],
    },
    {
      label: "compaction",
      detail: "compaction entry",
      pieces: [base("compaction"), `"summary":`, str("summary"), `,"firstKeptEntryId":`, ref, `,"tokensBefore":`, { placeholder: "0" }, "}"],
    },
    { label: "branch summary", detail: "branch_summary entry", pieces: [base("branch_summary"), `"fromId":`, ref, `,"summary":`, str("summary"), "}"] },
  ];
}
