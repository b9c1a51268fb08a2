/**
 * Pi's index of a session's ids (`_buildIndex` in Pi's `session-manager.ts`), written once for the
 * three models that hold entries: the open document (`analysis.ts`: holders are `Entry`s, keys are
 * `IdKey`s), a file on disk (`disk/skeleton.ts`: holders are entry positions, keys are the strings
 * of `disk/keys.ts`) and the context shortcut over a byte scan (`pi/scannedContext.ts`: positions,
 * and ids it only takes when they are strings or absent).
 *
 * Pi does `byId.set(entry.id, entry)` for each entry in file order and sets `leafId` to each id in
 * turn, so the last entry holding an id wins and the leaf is the last entry; a parent is found by
 * `parentId ? byId.get(parentId) : undefined`. Each model keys ids its own way, both as Pi's `Map`
 * compares them (SameValueZero: the number 5 is not the string "5", an object only equals itself);
 * an `IdKeying` says which of its keys Pi looks up and which is `null`.
 * `test/core/piIndexAgreement.test.ts` holds the three models to the same answers.
 */

import { type IdKey, isFollowed } from "../base/ids";
import { walkParents } from "./rules";

/** The two facts about a model's keys that Pi's index reads. */
export interface IdKeying<K> {
  /** Whether Pi looks the key up at all: `id ? byId.get(id) : undefined` skips a falsy id. */
  readonly follows: (key: K) => boolean;
  /** Whether the key is that of the id `null`, which as the leaf means "before the first entry". */
  readonly isNull: (key: K) => boolean;
}

/** Ids keyed by their own JSON value (`IdKey`), as the open document and the byte scan hold them. */
export const VALUE_KEYS: IdKeying<IdKey> = { follows: isFollowed, isNull: (key) => key === null };

/**
 * Pi's `byId`, leaf and parent lookup over the entries `add`ed in file order. `K` is the model's
 * key of an id, `V` what it files under it (an entry, or its position).
 */
export class PiIndex<K, V> {
  /** Whether some key was added twice, which shadows its earlier holders. */
  duplicated = false;
  /** How many entries were added. */
  size = 0;
  /** The last entry added: Pi's fallback `entries[entries.length - 1]`. */
  last: V | undefined;
  /** The last entry's key: Pi's `leafId` once the file is read; undefined with no entries. */
  lastKey: K | undefined;

  /**
   * `byId`, Pi's map of the last holder of each key, is a new one, or one the caller already
   * filled (with `size` holders, the last `last` under `lastKey`, no key twice): the analysis after
   * a structural edit updates the previous map for the lines the edit changed (`resplice.ts`).
   */
  constructor(
    private readonly keying: IdKeying<K>,
    readonly byId = new Map<K, V>(),
  ) {}

  /** `byId.set(key, holder)` for the next entry in file order. */
  add(key: K, holder: V): void {
    const before = this.byId.size;
    this.byId.set(key, holder);
    // A duplicate shows as a `set` that does not grow the map: one map operation per entry.
    if (this.byId.size === before) this.duplicated = true;
    this.size++;
    this.last = holder;
    this.lastKey = key;
  }

  /**
   * The entry Pi 1.x resumes from (`buildSessionContext`): none when the last entry's id is `null`,
   * else the last entry, which Pi finds by its id (its last holder is the last entry itself) or,
   * for another falsy id, by its fallback to the last entry.
   */
  get leaf(): V | undefined {
    return this.size > 0 && !this.keying.isNull(this.lastKey as K) ? this.last : undefined;
  }

  /**
   * Pi's `id ? byId.get(id) : undefined`, the lookup of a parent and of the leaf's walk. `hint`, an
   * entry known to hold `key`, is the answer when no key was added twice, which spares the map
   * lookup where most parents are the entry just above; call it only once every entry is added.
   */
  find(key: K | undefined, hint?: V): V | undefined {
    if (key === undefined || !this.keying.follows(key)) return undefined;
    return hint !== undefined && !this.duplicated ? hint : this.byId.get(key);
  }

  /**
   * Pi's walk up from `from` (`getBranch`, `buildSessionContext`), leaf first, through `find` on
   * each entry's parent key; undefined when it takes more steps than there are entries, a parent
   * cycle on which Pi loops forever.
   */
  walk(from: V | undefined, parentKeyOf: (holder: V) => K | undefined): V[] | undefined {
    return walkParents(from, (holder) => this.find(parentKeyOf(holder)), this.size);
  }
}
