/**
 * The context Pi builds, brought up to date after edits inside its lines (the usual keystroke in the
 * newest messages) in proportion to the edit instead of built again over the whole path.
 *
 * An edit that keeps a line's structure (`core/session/reanalyze.ts`) keeps the path, Pi's selection and
 * which entry each context message comes from; it changes only the messages the edited entries
 * produce, each a function of its own line (`messagesOfLine`), and perhaps the settings. So the
 * previous build's message list, with the edited entries' messages swapped in place, is the build
 * Pi would make. Where that does not hold the update declines and the build is made afresh: an
 * edited entry that produces another number of messages, a compaction (its summary heads the
 * context, its retained tail may follow), a context edit or a build that applies any (a
 * replacement reads another line), and a message entry that lost its message (Pi throws).
 *
 * Each updated build remembers the build it was made from and which messages differ
 * (`contextSplice`), so that the provider request is updated the same way (`provider/request.ts`).
 */

import { keptArray } from "../base/entryArrays";
import type { SessionAnalysis } from "../session/analysis";
import { type ContextBuild, type ContextResult, type PiFlavor, messagesOfLine, settingsOf } from "./buildContext";

/** A build made from `from` by replacing the context messages at `changed` (ascending), nothing else. */
export interface ContextSplice {
  from: ContextBuild;
  changed: number[];
}

/**
 * Only the last step is kept: a build's link is dropped once a build is made from it, so that a
 * chain of edits never keeps the builds before the previous one alive.
 */
const splices = new WeakMap<ContextBuild, ContextSplice>();

/** How `build` was made from an earlier build by replacing messages, if it was. */
export function contextSplice(build: ContextBuild): ContextSplice | undefined {
  return splices.get(build);
}

/** Where each selected entry's messages start in the context (-1: none), by entry index, and whether the build applies context edits. */
interface MessageIndex {
  /** The tree structure whose entry indexes `start` is by. */
  structure: object;
  start: number[];
  hasEdits: boolean;
}

/**
 * Kept per source list, which every build updated from another shares with it, for one structure:
 * a build carried over a structural edit shares its predecessor's lists (`contextCarry.ts`), whose
 * entries that edit moved to other indexes (`resplice.ts`), and an index by the old ones would find
 * no messages where an entry's are.
 */
const indexes = new WeakMap<object, MessageIndex>();

function messageIndex(build: ContextBuild, a: SessionAnalysis): MessageIndex {
  let index = indexes.get(build.sources);
  if (!index || index.structure !== a.structure) {
    // In V8's heap, not malloc's (`entryArrays.ts`): one is made for each structure typed in.
    const start = keptArray(a.entries.length, -1);
    for (let k = build.sources.length - 1; k >= 0; k--) start[build.sources[k]!.index] = k;
    index = { structure: a.structure, start, hasEdits: build.selected.some((e) => e.type === "context_edit") };
    indexes.set(build.sources, index);
  }
  return index;
}

/**
 * The context after the lines `edited` (each a line the context reads, `contextInputLines`) were
 * edited in place since `previous` was built for the same structure, or undefined when it must be
 * built afresh.
 */
export function updateContext(a: SessionAnalysis, previous: ContextResult, edited: readonly number[], flavor: PiFlavor): ContextResult | undefined {
  if (!previous.ok) return undefined;
  const build = previous.build;
  const { start, hasEdits } = messageIndex(build, a);
  if (hasEdits) return undefined;
  const { messages: before, thinkingLevel: oldThinking, model: oldModel } = build.context;
  let messages: unknown[] | undefined;
  const changed: number[] = [];
  for (const line of edited) {
    const entry = a.entryAtLine[line];
    if (!entry) continue;
    if (entry.type === "compaction" || entry.type === "context_edit") return undefined;
    if (entry.type === "message" && entry.parsed.noMessage) return undefined;
    const at = start[entry.index]!;
    const produced = messagesOfLine(entry, flavor === "0.74");
    if (at < 0) {
      // Not selected (a setting before the kept range), or selected without messages: then it must still have none.
      if (produced.length > 0 && build.selected.includes(entry)) return undefined;
      continue;
    }
    let count = 0;
    while (at + count < before.length && build.sources[at + count] === entry) count++;
    if (produced.length !== count) return undefined;
    for (let j = 0; j < count; j++) {
      if (before[at + j] === produced[j]) continue;
      messages ??= before.slice();
      messages[at + j] = produced[j];
      changed.push(at + j);
    }
  }
  const { thinkingLevel, model } = settingsOf(build.path);
  const sameModel =
    model === null ? oldModel === null : oldModel !== null && Object.is(model.provider, oldModel.provider) && Object.is(model.modelId, oldModel.modelId);
  if (!messages && Object.is(thinkingLevel, oldThinking) && sameModel) return previous;
  const next: ContextBuild = { ...build, context: { messages: messages ?? before, thinkingLevel, model } };
  changed.sort((x, y) => x - y);
  splices.delete(build);
  splices.set(next, { from: build, changed });
  return { ok: true, build: next };
}
