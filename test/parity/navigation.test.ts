/**
 * Navigation parity with the real Pi, on the parity corpus (test/parity): what Pi's own `getTree`
 * and `buildContextEntries` returned is compared with where our definitions land and which
 * entries our hover calls "in the built context".
 *
 * - Every parent/child edge of Pi's tree: go to definition on the child's `parentId` lands on the
 *   parent's `id` value; Pi's roots are exactly the entries whose `parentId` goes nowhere.
 * - Every label Pi attached to a tree node: definition on the label entry's `targetId` lands there.
 * - Pi 1.6's `buildContextEntries` ids equal our context selection, in Pi's order.
 * - Every tool result in Pi's built context: definition on its `toolCallId` lands on the line of the
 *   assistant message that Pi put before it with that tool call.
 *
 * Files with duplicate ids or parent cycles are left out of the tree checks (Pi's tree shares or
 * drops nodes there; the diagnostics cover them).
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Position } from "vscode-languageserver";
import { SessionDocument } from "../../server/src/core/session/document";
import { locate } from "../../server/src/core/line/locate";
import { contextSelection, ContextState } from "../../server/src/core/pi/activeContext";
import { computeDefinition } from "../../server/src/features/navigation";

interface TreeNode {
  id: string | null;
  label?: string;
  children: TreeNode[];
}

interface Outcome {
  pi: string;
  tree: TreeNode[] | null;
  treeHung: boolean;
  contextEntryIds: string[] | null;
  context: { messages: Record<string, unknown>[] } | null;
}

const root = __dirname;
const fixtures = readdirSync(join(root, "fixtures"))
  .filter((f) => f.endsWith(".jsonl"))
  .sort();

function outcome(fixture: string, pi: string): Outcome | undefined {
  try {
    return JSON.parse(readFileSync(join(root, "expected", `${fixture.replace(/\.jsonl$/, "")}.${pi}.json`), "utf8")) as Outcome;
  } catch {
    return undefined;
  }
}

/** The position just inside the value at `path` on `line`. */
function inside(doc: SessionDocument, line: number, path: (string | number)[]): Position {
  const found = locate(doc.jsonText(line), path);
  if (!found) throw new Error(`no ${path.join(".")} on line ${line}`);
  return { line, character: found.value.start + doc.jsonOffset(line) + 1 };
}

function definitionLine(doc: SessionDocument, line: number, path: (string | number)[]): number | undefined {
  return computeDefinition(doc, inside(doc, line, path))[0]?.range.start.line;
}

let edges = 0;
let labels = 0;
let toolResults = 0;
let contexts = 0;

describe("navigation parity with the real Pi", () => {
  for (const fixture of fixtures) {
    const text = readFileSync(join(root, "fixtures", fixture), "utf8");
    const doc = new SessionDocument(`file:///${fixture}`, "jsonl", 1, text);
    const a = doc.analysis;
    const lineOf = new Map(a.entries.filter((e) => e.id !== undefined).map((e) => [e.id!, e.line]));
    // Pi gives a v1 file new random ids when it migrates it, so its ids are not the file's.
    const migratedV1 = ((a.header?.version ?? 1) as number) < 2;
    const clean = a.duplicates.size === 0 && a.cycles.length === 0 && a.headerState === "ok" && !migratedV1 && a.entries.every((e) => e.id !== undefined);

    for (const pi of ["0.74.2", "1.6.0"]) {
      const o = outcome(fixture, pi);
      if (!o) continue;

      if (clean && o.tree && !o.treeHung) {
        it(`${fixture}: Pi ${pi}'s tree edges and labels are where definitions land`, () => {
          const stack: { node: TreeNode; parent: TreeNode | undefined }[] = o.tree!.map((node) => ({ node, parent: undefined }));
          while (stack.length > 0) {
            const { node, parent } = stack.pop()!;
            for (const child of node.children) stack.push({ node: child, parent: node });
            if (node.id === null) continue;
            const line = lineOf.get(node.id);
            expect(line, `node ${node.id} is an entry`).toBeDefined();
            const entry = a.entryAtLine[line!]!;
            if (parent) {
              expect(definitionLine(doc, line!, ["parentId"]), `parentId of ${node.id}`).toBe(lineOf.get(parent.id!));
              edges++;
            } else {
              expect(a.parent[entry.index], `${node.id} is a root for Pi`).toBeUndefined();
            }
            if (node.label) {
              const labelEntry = [...a.entries].reverse().find((e) => e.type === "label" && e.parsed.object?.targetId === node.id);
              expect(labelEntry, `label entry for ${node.id}`).toBeDefined();
              expect(definitionLine(doc, labelEntry!.line, ["targetId"])).toBe(line);
              labels++;
            }
          }
        });
      }

      if (pi === "1.6.0" && o.contextEntryIds && a.cycles.length === 0 && !migratedV1) {
        it(`${fixture}: Pi 1.6's context entries are our context selection`, () => {
          const selection = contextSelection(a);
          const selected = a.activePath.filter((e) => selection.state[e.index] === ContextState.Selected);
          const ours = selection.compaction ? [selection.compaction, ...selected.filter((e) => e !== selection.compaction)] : selected;
          // The generator writes an entry without an id as "<undefined>".
          expect(ours.map((e) => e.parsed.object?.id ?? null)).toEqual(o.contextEntryIds!.map((id) => (id === "<undefined>" ? null : id)));
          contexts++;
        });
      }

      // Registered only where Pi's context holds a tool result (otherwise the case checks nothing); a
      // compaction that keeps from a tool result leaves its call out of Pi's context on purpose.
      if (clean && fixture !== "fault-compaction-keeps-tool-result.jsonl" && o.context?.messages.some((m) => m.role === "toolResult")) {
        it(`${fixture}: tool results in Pi ${pi}'s context lead to their tool calls`, () => {
          const messages = o.context!.messages;
          for (let i = 0; i < messages.length; i++) {
            const m = messages[i]!;
            if (m.role !== "toolResult") continue;
            // The message Pi placed before it that holds the call, found in Pi's own output.
            const call = messages
              .slice(0, i)
              .reverse()
              .find(
                (p) =>
                  p.role === "assistant" &&
                  Array.isArray(p.content) &&
                  (p.content as { type?: string; id?: string }[]).some((b) => b.type === "toolCall" && b.id === m.toolCallId),
              );
            expect(call, `Pi's context has the call for ${String(m.toolCallId)}`).toBeDefined();
            const resultLine = a.entries.find(
              (e) => e.parsed.toolResultId === m.toolCallId && JSON.stringify(e.parsed.object?.message) === JSON.stringify(m),
            )?.line;
            if (resultLine === undefined) continue; // Edited by a context_edit: no line holds this exact message.
            const callLine = a.entries.find((e) => JSON.stringify(e.parsed.object?.message) === JSON.stringify(call))?.line;
            expect(definitionLine(doc, resultLine, ["message", "toolCallId"])).toBe(callLine);
            toolResults++;
          }
        });
      }
    }
  }

  it("checked a meaningful number of links", () => {
    expect(edges).toBeGreaterThan(200);
    expect(labels).toBeGreaterThan(3);
    expect(toolResults).toBeGreaterThan(10);
    expect(contexts).toBeGreaterThan(20);
  });
});
