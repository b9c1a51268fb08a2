/**
 * The context Pi resumes with, carried over an edit that changed the tree somewhere else (a line
 * added, removed, broken or mended, a parent changed off the resumed branch) instead of built again
 * over the whole path.
 *
 * Such an edit makes a new analysis with new entry objects, so nothing kept for the old structure
 * applies as it is. But the build is a function of the resumed path's parses alone, in order
 * (`contextOfPath`): when the new path holds the same parse objects in the same order, Pi builds
 * the same context, and only the entries it names move (to other lines, other indexes). So the old
 * build is mapped onto the new path's entries, position by position, in O(path), and the provider
 * request made from it is mapped the same way (`provider/request.ts`, through `contextCarry`).
 */

import type { SessionAnalysis } from "../session/analysis";
import type { Entry } from "../session/entry";
import { buildContext, type ContextBuild, type ContextResult, type PiFlavor, settingsOf } from "./buildContext";

/**
 * A build carried from `from`: the same context, its entries mapped by `entryOf` onto the new path
 * (`samePath`), or, for a path that changed, a build made afresh that holds the same messages from
 * the same parses, whose sources `entryOf` maps one to one.
 */
export interface ContextCarry {
  from: ContextBuild;
  /** The new build's entry in the old entry's place, or undefined for an entry it does not hold. */
  entryOf: (old: Entry) => Entry | undefined;
  /** Whether the path itself is the old one, entry for entry: else only the messages and their sources are. */
  samePath: boolean;
}

/** Only the last step is kept, as for `contextSplice`: a carried build's link goes once it is carried again. */
const carries = new WeakMap<ContextBuild, ContextCarry>();

/** How `build` was carried from an earlier structure's build, if it was. */
export function contextCarry(build: ContextBuild): ContextCarry | undefined {
  return carries.get(build);
}

/**
 * The context of `a` (built from its leaf) made from `previous`, the context of the analysis `a`
 * replaced, or undefined when the resumed path is not the same parses in the same order (the caller
 * then builds it afresh). A failed build is never carried: it is rare, and cheap to find again.
 */
export function carryContext(a: SessionAnalysis, previous: ContextResult): ContextResult | undefined {
  if (!previous.ok) return undefined;
  const old = previous.build;
  // `activePath` is the walk from `a.leaf`, empty when there is none or it reaches a cycle: the
  // cases `buildContext` answers without a path are built afresh.
  const path = a.activePath;
  if (path.length === 0 || path.length !== old.path.length) return undefined;
  for (let i = 0; i < path.length; i++) if (path[i]!.parsed !== old.path[i]!.parsed) return undefined;
  return carriedBuild(a, old, 0, 0, true);
}

/**
 * `old` carried onto `a`'s resumed path, whose entries from `newFrom` on have the parses of the old
 * path's from `oldFrom` on, in order, and hold everything the old build selected; undefined when an
 * entry it names has no place there. When they are the very entry objects (a structural edit moves
 * the entries below it in place, `resplice.ts`, and keeps those above), the old lists name the new
 * entries already and are shared; otherwise each entry is mapped by its place on the path.
 */
function carriedBuild(a: SessionAnalysis, old: ContextBuild, oldFrom: number, newFrom: number, samePath: boolean): ContextResult | undefined {
  const path = a.activePath;
  const m = old.path.length;
  let same = true;
  let top = 0;
  for (let i = oldFrom; i < m; i++) {
    const e = old.path[i]!;
    if (e !== path[i - oldFrom + newFrom]) same = false;
    top = Math.max(top, e.index);
  }
  if (same) {
    const onPath = (e: Entry): Entry | undefined => (a.entries[e.index] === e && a.onActivePath[e.index] === 1 ? e : undefined);
    const build: ContextBuild = { ...old, path: samePath ? old.path : path.slice() };
    link(build, { from: old, entryOf: onPath, samePath });
    return { ok: true, build };
  }
  // Where each old entry is on the path, by its index: one typed array instead of a map of 50,000 entries.
  const place = new Int32Array(top + 1).fill(-1);
  for (let i = oldFrom; i < m; i++) place[old.path[i]!.index] = i;
  const entryOf = (e: Entry): Entry | undefined => {
    const k = e.index < place.length ? place[e.index]! : -1;
    return k >= oldFrom && old.path[k] === e ? path[k - oldFrom + newFrom] : undefined;
  };
  const selected = mapAll(old.selected, entryOf);
  const sources = mapAll(old.sources, entryOf);
  const compaction = old.compaction && entryOf(old.compaction);
  if (!selected || !sources || (old.compaction && !compaction)) return undefined;
  const build: ContextBuild = { context: old.context, path: path.slice(), selected, compaction, sources };
  link(build, { from: old, entryOf, samePath });
  return { ok: true, build };
}

function link(build: ContextBuild, carry: ContextCarry): void {
  carries.delete(carry.from);
  carries.set(build, carry);
}

/**
 * The context of `a` made from `previous` when the resumed path changed only above everything Pi
 * selects (a parent changed above the last compaction's kept range: the path now starts elsewhere,
 * but ends in the same entries), or undefined. Pi's selection (`selectEntries`) is then the same
 * entries: the last compaction is in the paths' common tail (the same parses, in the same order,
 * counted from the leaf), and so are the first entry holding its id and the first holding its
 * `firstKeptEntryId`; its messages are those parses' messages. What Pi reads above the selection is checked on the new path: no
 * message entry without a message (the old tail had none, or the old build would have failed), and
 * the same settings. The old build is mapped onto the new tail in O(path) instead of built again
 * over the whole path, and its provider request is carried with it (`carriedRequest`).
 */
export function carrySelection(a: SessionAnalysis, previous: ContextResult, flavor: PiFlavor): ContextResult | undefined {
  const old = previous.ok ? previous.build : undefined;
  const compaction = old?.compaction;
  const path = a.activePath;
  // A retained tail stands for what is kept before its compaction, whose id is then not looked for.
  if (!old || !compaction || flavor === "retained-tail" || path.length === 0) return undefined;
  const [n, m] = [path.length, old.path.length];
  let tail = 0;
  while (tail < n && tail < m && path[n - 1 - tail]!.parsed === old.path[m - 1 - tail]!.parsed) tail++;
  const [oldFrom, newFrom] = [m - tail, n - tail];
  // Pi looks the compaction up again by id (0.73/0.74: among compactions), then the first entry of
  // the path holding its `firstKeptEntryId`. No two entries of a path share an id (each is the one
  // Pi's map holds for it: a parent is found by id, and the leaf is the last entry), so these are
  // the compaction itself and the one holder, both in the tail, on either path.
  let at = m - 1;
  while (at >= oldFrom && old.path[at] !== compaction) at--;
  const firstKept = compaction.parsed.reference;
  let kept = at - 1;
  while (kept >= oldFrom && old.path[kept]!.key !== firstKept) kept--;
  if (kept < oldFrom) return undefined;
  // Pi reads every message entry's message above the selection too.
  for (let i = 0; i < newFrom; i++) if (path[i]!.type === "message" && path[i]!.parsed.noMessage) return undefined;
  const settings = settingsOf(path);
  const [x, y] = [settings.model, old.context.model];
  if (!Object.is(settings.thinkingLevel, old.context.thinkingLevel) || (x === null) !== (y === null)) return undefined;
  if (x && y && !(Object.is(x.provider, y.provider) && Object.is(x.modelId, y.modelId))) return undefined;
  return carriedBuild(a, old, oldFrom, newFrom, false);
}

/**
 * The context of `a` built afresh for `flavor` when it cannot be carried (the resumed path changed:
 * a parent changed on it), linked to `previous` when it holds the same message objects from the
 * same parses in the same order (each line's messages are filed by its parse, so a path that
 * selects the same lines makes the same objects): the provider request, a function of the
 * messages, their sources and the model alone, is then carried over instead of made again.
 */
export function rebuiltContext(a: SessionAnalysis, previous: ContextResult, flavor: PiFlavor): ContextResult {
  const next = buildContext(a, { flavor });
  if (!previous.ok || !next.ok) return next;
  const [old, build] = [previous.build, next.build];
  const [before, after] = [old.context.messages, build.context.messages];
  if (before.length !== after.length || old.sources.length !== build.sources.length) return next;
  let top = 0;
  for (let k = 0; k < before.length; k++) {
    if (before[k] !== after[k] || old.sources[k]!.parsed !== build.sources[k]!.parsed) return next;
    top = Math.max(top, old.sources[k]!.index);
  }
  const place = new Int32Array(top + 1).fill(-1);
  for (let k = before.length - 1; k >= 0; k--) place[old.sources[k]!.index] = k;
  const entryOf = (e: Entry): Entry | undefined => {
    const k = e.index < place.length ? place[e.index]! : -1;
    return k >= 0 && old.sources[k] === e ? build.sources[k] : undefined;
  };
  // One to one: an entry that gives several messages must map to one entry that gives them all.
  for (let k = 0; k < before.length; k++) if (entryOf(old.sources[k]!) !== build.sources[k]) return next;
  link(build, { from: old, entryOf, samePath: false });
  return next;
}

/** Every entry mapped, or undefined when one has no place on the new path. */
export function mapAll(entries: readonly Entry[], entryOf: (old: Entry) => Entry | undefined): Entry[] | undefined {
  const out: Entry[] = new Array(entries.length);
  for (let i = 0; i < entries.length; i++) {
    const e = entryOf(entries[i]!);
    if (!e) return undefined;
    out[i] = e;
  }
  return out;
}
