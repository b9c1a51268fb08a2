/**
 * The order of Pi's session lists, and the threaded view of `/resume`.
 *
 * `SessionManager.list` reads a folder's `*.jsonl` files (1.x in descending file-name order,
 * 0.74 in the order the folder lists them), drops the files `buildSessionInfo` refuses, and sorts
 * by `modified`, newest first, with a stable sort. `listAll` does the same across every project
 * folder (1.x first orders the files by modification time, newest first, then by name). `/resume`
 * opens in its "threaded" mode: a fork sits under the session it was forked from
 * (`parentSessionPath`), and sessions are ordered by the latest activity in their subtree.
 */

import type { IndexSymbols, PiSessionInfo, SessionScan } from "./info";
import type { SearchMatch } from "./search";
import { joinedText } from "../base/loose";

/** Pi 1.x's order of a folder's file names before reading them: `b.localeCompare(a)`. */
export function byNameDescending<T extends { name: string }>(files: T[]): T[] {
  return files.sort((a, b) => b.name.localeCompare(a.name));
}

/** Pi 1.x `listAll`'s order of the candidate files: modification time, newest first, then name descending. */
export function byMtimeThenName<T extends { name: string; mtimeMs: number | undefined }>(files: T[]): T[] {
  return files.sort((a, b) => (b.mtimeMs ?? Number.NEGATIVE_INFINITY) - (a.mtimeMs ?? Number.NEGATIVE_INFINITY) || b.name.localeCompare(a.name));
}

/** `sortSessionInfos`: newest `modified` first; the same comparator Pi uses, so ties and invalid dates land where Pi puts them. */
export function sortSessionInfos<T extends Pick<PiSessionInfo, "modified">>(sessions: T[]): T[] {
  return sessions.sort((a, b) => b.modified - a.modified);
}

/** One row of the threaded view. */
export interface ThreadRow<T> {
  session: T;
  depth: number;
  /** The tree prefix `/resume` draws before the row ("│  ├─ "). */
  prefix: string;
}

/**
 * `/resume`'s threaded rows (`buildSessionTree` + `flattenSessionTree`), from sessions in list
 * order. `keyOf` gives the comparison key of a session path (Pi follows symbolic links), for the
 * session itself and its `parentSessionPath`. Iterative, and a fork whose parent chain loops back
 * on itself is shown as a root rather than lost.
 */
export function threadSessions<T extends Pick<PiSessionInfo, "path" | "modified" | "parentSessionPath">>(
  sessions: readonly T[],
  keyOf: (path: string) => string,
): ThreadRow<T>[] {
  interface Node {
    session: T;
    children: Node[];
    latest: number;
  }
  const byKey = new Map<string, Node>();
  const nodes = sessions.map((session) => {
    const node: Node = { session, children: [], latest: session.modified };
    byKey.set(keyOf(session.path), node);
    return node;
  });
  const parentOf = new Map<Node, Node>();
  for (const node of nodes) {
    const parentPath = node.session.parentSessionPath;
    const parent = typeof parentPath === "string" && parentPath ? byKey.get(keyOf(parentPath)) : undefined;
    if (parent && parent !== node) parentOf.set(node, parent);
  }
  // A chain of forks that loops (a file forked from its own descendant) has no root in Pi's view
  // and disappears from `/resume`; here the loop is cut so that every session is listed.
  for (const node of nodes) {
    const seen = new Set<Node>([node]);
    for (let p = parentOf.get(node); p; p = parentOf.get(p)) {
      if (seen.has(p)) {
        parentOf.delete(node);
        break;
      }
      seen.add(p);
    }
  }
  const roots: Node[] = [];
  for (const node of nodes) {
    const parent = parentOf.get(node);
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  // Latest activity of each subtree, children before parents (post-order without recursion).
  const order: Node[] = [];
  const stack = [...roots];
  while (stack.length > 0) {
    const node = stack.pop()!;
    order.push(node);
    stack.push(...node.children);
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const node = order[i]!;
    for (const child of node.children) node.latest = Math.max(node.latest, child.latest);
  }
  const byLatest = (a: Node, b: Node) => b.latest - a.latest;
  roots.sort(byLatest);
  for (const node of order) node.children.sort(byLatest);

  const rows: ThreadRow<T>[] = [];
  const walk: { node: Node; depth: number; ancestors: boolean[]; isLast: boolean }[] = [];
  for (let i = roots.length - 1; i >= 0; i--) walk.push({ node: roots[i]!, depth: 0, ancestors: [], isLast: i === roots.length - 1 });
  while (walk.length > 0) {
    const { node, depth, ancestors, isLast } = walk.pop()!;
    const prefix = depth === 0 ? "" : `${ancestors.map((continues) => (continues ? "│  " : "   ")).join("")}${isLast ? "└─ " : "├─ "}`;
    rows.push({ session: node.session, depth, prefix });
    for (let i = node.children.length - 1; i >= 0; i--) {
      walk.push({ node: node.children[i]!, depth: depth + 1, ancestors: [...ancestors, depth > 0 ? !isLast : false], isLast: i === node.children.length - 1 });
    }
  }
  return rows;
}

/**
 * Whether Pi 1.6's `/resume` throws on this `parentSessionPath` while it builds its threaded view.
 * `buildSessionTree` (modes/interactive/components/session-selector.js:166) keys every truthy
 * `parentSessionPath` with `getPathComparisonKey(canonicalizePath(value))`: `realpathSync` takes an
 * array as the string it joins to (so one that names an existing path, "" being the cwd, comes
 * back a path) and refuses any other value that is not a string, which `canonicalizePath` then
 * returns unchanged, and `path.resolve` throws a TypeError on it. `exists` says whether a path,
 * relative to Pi's cwd, exists.
 */
export function resumeKeyThrows(parentSessionPath: unknown, exists: (path: string) => boolean): boolean {
  if (!parentSessionPath || typeof parentSessionPath === "string") return false;
  if (!Array.isArray(parentSessionPath)) return true;
  // The string `realpathSync` joins, made without coercing the array: `String()` of one nested
  // thousands deep overflows the stack, as it does in Pi, whose key then throws as well.
  const joined = joinedText(parentSessionPath);
  return typeof joined !== "string" || !exists(joined);
}

/** Pi's `formatSessionDate`: the age `/resume` shows ("now", "5m", "3h", "2d", "1w", "4mo", "1y"). */
export function formatAge(time: number, now: number): string {
  const diffMs = now - time;
  const diffMins = Math.floor(diffMs / 60000);
  const diffHours = Math.floor(diffMs / 3600000);
  const diffDays = Math.floor(diffMs / 86400000);
  if (Number.isNaN(diffMs)) return "?";
  if (diffMins < 1) return "now";
  if (diffMins < 60) return `${diffMins}m`;
  if (diffHours < 24) return `${diffHours}h`;
  if (diffDays < 7) return `${diffDays}d`;
  if (diffDays < 30) return `${Math.floor(diffDays / 7)}w`;
  if (diffDays < 365) return `${Math.floor(diffDays / 30)}mo`;
  return `${Math.floor(diffDays / 365)}y`;
}

/** A file of a listing as scanned: Pi's fields, or why Pi leaves it out. */
export interface ScannedFile {
  path: string;
  size: number;
  mtimeMs: number | undefined;
  scan?: SessionScan;
  error?: string;
  /** What Pi's list does on this file instead of leaving it out (it hangs or dies). */
  piFails?: string;
}

/** A file Pi's list does not show: why, and what Pi does instead of leaving it out when it does not. */
export interface OmittedFile {
  path: string;
  reason: string;
  piFails?: string;
}

/** A session in a listing: Pi's `SessionInfo` and what our listing adds. */
export interface ListedSession {
  info: PiSessionInfo;
  size: number;
  entries: number;
  branches: number;
  /** Lines too long for the reader, which Pi would have read (so Pi's numbers may differ). */
  unreadLines: number;
  /** Pi cannot resume it: the walk up from its leaf runs into a parent cycle. */
  leafLoops?: true;
  search?: SearchMatch;
  symbols?: IndexSymbols;
}

export interface AssembledList {
  /** In Pi's order. */
  sessions: ListedSession[];
  /** Files Pi's list skips, with the reason. */
  omitted: OmittedFile[];
  /** Sessions left out because their header `cwd` is another project (Pi 1.x, shared folder). */
  otherProjects: number;
}

/**
 * Pi's list from the scanned files, given in the order Pi reads them: the files Pi refuses go to
 * `omitted`, `keep` filters as 1.x's `list` does for a shared folder, and the rest is sorted by
 * `modified` as `sortSessionInfos` sorts.
 */
export function assembleList(files: readonly ScannedFile[], keep?: (info: PiSessionInfo) => boolean): AssembledList {
  const sessions: ListedSession[] = [];
  const omitted: OmittedFile[] = [];
  let otherProjects = 0;
  for (const file of files) {
    const scan = file.scan;
    if (!scan?.info) {
      const reason = file.error ?? scan?.dropped ?? "unreadable";
      omitted.push(file.piFails ? { path: file.path, reason, piFails: file.piFails } : { path: file.path, reason });
      continue;
    }
    const info: PiSessionInfo = { path: file.path, ...scan.info };
    if (keep && !keep(info)) {
      otherProjects++;
      continue;
    }
    const listed: ListedSession = { info, size: file.size, entries: scan.entries, branches: scan.branches, unreadLines: scan.unreadLines };
    if (scan.leafLoops) listed.leafLoops = true;
    if (scan.search) listed.search = scan.search;
    if (scan.symbols) listed.symbols = scan.symbols;
    sessions.push(listed);
  }
  const order = sortSessionInfos(sessions.map((s, i) => ({ modified: s.info.modified, i })));
  return { sessions: order.map(({ i }) => sessions[i]!), omitted, otherProjects };
}

/** Pi's `SessionInfo` as `JSON.stringify` prints it (dates as ISO strings, or null when invalid), without `allMessagesText`. */
export function infoJson(info: PiSessionInfo): Record<string, unknown> {
  const iso = (t: number) => (Number.isNaN(t) || Math.abs(t) > 8.64e15 ? null : new Date(t).toISOString());
  const out: Record<string, unknown> = { path: info.path, id: info.id, cwd: info.cwd };
  if (info.name !== undefined) out.name = info.name;
  if (info.parentSessionPath !== undefined) out.parentSessionPath = info.parentSessionPath;
  out.created = iso(info.created);
  out.modified = iso(info.modified);
  out.messageCount = info.messageCount;
  out.firstMessage = info.firstMessage;
  return out;
}
