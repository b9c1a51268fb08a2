/**
 * Caches kept per object for as long as the object lives, whose tables are made anew once no
 * document is left open.
 *
 * A `WeakMap`'s table grows with its entries, and V8 shrinks it only when an entry is deleted, never
 * when the collector drops the entries of dead keys. A cache keyed by every message or line parse
 * of a large session therefore keeps a table sized for that session after it is closed: in a heap
 * snapshot of the idle server 8 s after the 43 MB session was closed, five such caches held 1.5 MB
 * of empty tables (`depth.ts` and `encodedAnswer.ts` 512 KB each, `contextMarkdown.ts` 256 KB,
 * `entryTitle.ts` and `apiConversion.ts` 128 KB), all in V8's large-object space, whose pages go
 * back to the system only when the table itself is collected.
 *
 * Only a cache whose values can be computed again from the key goes here: when the server lets
 * them go (`renewWeakTables`, from `lsp/memory.ts`) every entry is lost, live key or not.
 */

/** A `WeakMap` read and written through this record, so that its table can be replaced. */
export interface WeakTable<K extends object, V> {
  get(key: K): V | undefined;
  has(key: K): boolean;
  set(key: K, value: V): unknown;
}

/** The tables a caller empties together, each by replacing its `map`. */
export type WeakTableList = { map: WeakMap<object, unknown> }[];

/** A `WeakTable` added to `list`, whose owner empties it by giving it a new `map`. */
export function weakTableIn<K extends object, V>(list: WeakTableList): WeakTable<K, V> {
  const table = {
    map: new WeakMap<K, V>(),
    get: (key: K) => table.map.get(key),
    has: (key: K) => table.map.has(key),
    set: (key: K, value: V) => table.map.set(key, value),
  };
  list.push(table as { map: WeakMap<object, unknown> });
  return table;
}

/** Every table made by `renewableWeakMap`: one per cache, made at a module's load. */
const everyTable: WeakTableList = [];

/** A cache per key object that `renewWeakTables` empties, table and all. */
export function renewableWeakMap<K extends object, V>(): WeakTable<K, V> {
  return weakTableIn(everyTable);
}

/** Replaces every `renewableWeakMap`'s table by an empty one (the server does when no document is left open). */
export function renewWeakTables(): void {
  for (const table of everyTable) table.map = new WeakMap();
}

/** How many tables `renewWeakTables` replaces (for tests). */
export function renewableTableCount(): number {
  return everyTable.length;
}
