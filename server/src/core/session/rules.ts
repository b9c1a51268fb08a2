/**
 * Pi's rules about its index of a session, each written once. The open document (`analyze` and
 * `semantics/`) and the readers of files on disk (`disk/skeleton`, `disk/tree`, `disk/info`,
 * `disk/resolve`, `io/sessionFind`, `pi/scannedContext`) hold the entries in different shapes, so
 * every rule here takes the few values it reads, or an accessor, and never an entry of either
 * model. The index itself (`byId`, the leaf, the parent lookup) is `PiIndex` (`piIndex.ts`).
 * `test/core/piIndexAgreement.test.ts` holds the models to the same answers.
 */

/**
 * Pi's `getSessionName` (the footer's name, and the one extensions read) applied to the `name` of
 * the last `session_info` entry in file order, and to that one only:
 * `entry.name?.trim() || undefined`. An empty or missing name clears it; a name that is neither a
 * string nor null makes Pi throw (`entry.name?.trim is not a function`), reported as `throws`.
 */
export function nameOfValue(raw: unknown): { name: string | undefined; throws: boolean } {
  if (typeof raw === "string") return { name: raw.trim() || undefined, throws: false };
  return { name: undefined, throws: raw !== undefined && raw !== null };
}

/**
 * `getSessionName` for a file read entry by entry in file order, which cannot look back for the
 * last `session_info` entry: each one replaces the name `nameOfValue` reads.
 */
export class LastSessionName {
  private raw: unknown;

  /** Takes the next entry (any parsed value); only a `session_info` entry changes the name. */
  readonly observe = (entry: unknown): void => {
    const e = entry as { type?: unknown; name?: unknown } | null;
    if (e && e.type === "session_info") this.raw = e.name;
  };

  get name(): string | undefined {
    return nameOfValue(this.raw).name;
  }
}

/**
 * Pi's `buildSessionInfo` (the `/resume` list) on one `session_info` entry: the same expression as
 * `nameOfValue`, but Pi evaluates it on every `session_info` entry in turn while it reads the file,
 * so an odd name throws even when a later entry renames the session. It throws the TypeError Pi
 * throws; the caller keeps the last result.
 */
export function listedName(entry: { name?: { trim(): string } | null }): string | undefined {
  return entry.name?.trim() || undefined;
}

/**
 * Pi's `/tree` row for a `session_info` entry, a different rule from the two above: the name is
 * shown untrimmed and only its truthiness decides, so a name of spaces shows as itself.
 */
export function treeTitle(name: unknown): string {
  return name ? `[title: ${name}]` : "[title: empty]";
}

/**
 * Pi's `labelsById` update for one `label` entry, in file order: a truthy label sets the target's
 * label (a relabelled target keeps its place in the map's order), a falsy one deletes it. What
 * the map holds for a label is the caller's, made by `value` only when the label is set.
 */
export function applyLabel<K, V>(labels: Map<K, V>, target: K, label: unknown, value: () => V): void {
  if (label) labels.set(target, value());
  else labels.delete(target);
}

/**
 * Sibling order as Pi's `getTree` sorts each node's children (pushed in file order), with
 * `(a, b) => time(a) - time(b)` in V8's stable sort, so a NaN time compares "equal" as it does in
 * Pi. `time` gives `new Date(timestamp).getTime()` of each child. Sorts `children` in place.
 */
export function sortByPiTime<T>(children: T[], time: (child: T) => number): T[] {
  if (children.length > 1) children.sort((x, y) => time(x) - time(y));
  return children;
}

/**
 * Pi's walk up the parent links (`getBranch`, `buildSessionContext`): `from` and then each node
 * `parentOf` gives, the root last. Undefined when the walk takes more than `limit` steps, which with
 * `limit` the number of nodes means it came back to a node: a parent cycle, on which Pi loops
 * forever. Real trees are 50,000 deep and cyclic files exist, so this is the one walk, a loop with
 * a bound; every model supplies its own `parentOf` (its rule for which parents are followed).
 */
export function walkParents<T>(from: T | undefined, parentOf: (node: T) => T | undefined, limit: number): T[] | undefined {
  const path: T[] = [];
  for (let current = from; current !== undefined; current = parentOf(current)) {
    if (path.length >= limit) return undefined;
    path.push(current);
  }
  return path;
}

/**
 * Whether `pi --session ARG` takes the listed session `s` for ARG: `s.id.startsWith(arg)`, throwing
 * the TypeError Pi throws on an id that is not a string (the parameter is named `s`, so that the
 * message is Pi's word for word). Every prefix match, including a reader's pre-filter of the files
 * worth reading, asks this.
 */
export function idMatches(s: { id: unknown }, arg: string): boolean {
  return (s.id as string).startsWith(arg);
}
