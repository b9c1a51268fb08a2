/**
 * Giving memory back once the server is idle.
 *
 * Opening a 45 MB session passes the file through the JSON-RPC library several times (the bytes
 * read, the message decoded, the text parsed out of it) and leaves hundreds of megabytes of
 * garbage; closing it leaves the whole document. V8 collects that garbage only when something
 * allocates again, and an idle editor server allocates nothing: measured over stdio, the server
 * stayed at 360 MB three seconds after the file was closed, and at 8 times the file's size after
 * it was opened. So after a large open, a large answer or any close, once no document has changed for a moment,
 * the server asks V8 for full collections, and lets go of the parsed values it keeps for lines (all
 * of them when no document is left open, all but the last used otherwise).
 *
 * Why three collections, measured over stdio on the 45 MB session (`bench/run.mjs`, steady row):
 * - the first frees the open's garbage but leaves the old generation's pages half empty (159 MB of
 *   pages for 104 MB of objects); a second, right after, compacts them (111 MB), 45 MB less RSS;
 * - V8 shrinks its young generation (grown to 32 MB by the open) only in a collection that finds
 *   the allocation rate of the last 5 seconds low, which the open's allocations keep it from being
 *   1.5 s after the open; a follow-up collection 5 s after the first finds it low and shrinks the
 *   young generation to 1 MB, 30 MB less RSS.
 * Each is skipped while typing goes on: the collections wait for a pause. At the follow-up, idle
 * for 6.5 s, the semantic layer's kept contexts go too (`releaseKept`: the resumed contexts of both
 * Pi versions, the request diagnostics made from them, the messages each line contributes; 14 MB
 * of the 45 MB session's heap): the next request or edit that reads them builds them again. The
 * diagnostics made from them are kept (`keptAcrossRelease`), so that a keystroke on a line those
 * contexts do not read costs what it did before the pause (576 ms otherwise on the 45 MB session).
 * A keystroke on a line they do read (the newest messages, where a session is most often edited)
 * would build them again (130-220 ms on the 45 MB session), so once an edit or a request on an
 * open document after the release (`activity`, which the server reports) is followed by a pause
 * (`REDERIVE_QUIET_MS`: the editor's requests as the cursor gets there, before the typing starts),
 * they are derived again (`rederive`; an edit that ends that work early leaves it to the next
 * pause, and what was built so far stays), and the idle collections are scheduled anew to let them
 * go once the server is idle again: the memory they take is held while someone works, not while
 * the server waits.
 *
 * The collection is asked for through `--expose-gc`, set at run time; where that is refused, nothing
 * is collected early and the server works as before.
 */

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { forgetScratch } from "../core/base/entryArrays";
import { renewWeakTables } from "../core/base/weakTables";
import { releaseKept } from "../core/session/semantics/memo";
import { forgetValues, trimValues } from "../core/line/values";
import { forgetKeptJson } from "./keptJson";
import { logMemory } from "./memoryReport";
import { forgetMessageMemory } from "./stdin";

/** A document at least this large leaves enough garbage when opened to be worth a collection. */
export const LARGE_DOCUMENT_CHARS = 4 * 1024 * 1024;
/**
 * An answer at least this long (in characters of JSON, a whole built context) schedules the idle
 * collections (`answeredLarge`). It is not the mapped message memory's threshold (`stdin.ts`,
 * 43,690 characters): an answer of 50 KB leaves too little garbage to pay for two full collections
 * and the kept contexts' release at each request.
 */
export const LARGE_ANSWER_CHARS = 1 << 20;
/** How long no document must change before the collection runs. */
export const IDLE_MS = 1500;
/** How long after the first collection the follow-up runs (V8 judges its allocation rate over 5 s). */
export const FOLLOW_UP_MS = 5000;
/** The characters of line text whose parsed values an idle server keeps while documents are open (`values.ts`). */
export const IDLE_VALUE_CHARS = 1_000_000;
/**
 * After the release, how long no message must come after the first one before what it let go is
 * derived again: longer than the gaps between keystrokes, since the work holds the thread for up
 * to a few tens of milliseconds at a time (building a context is one step). Measured over stdio on
 * the 45 MB session, keystrokes 150 ms apart after the release: with 100 ms, the second one waited
 * 66-77 ms for it; with 250 ms, none waited (7-10 ms). A code-action request as the cursor lands,
 * then the first keystroke half a second later: 12-13 ms, against 74-79 ms without it.
 */
export const REDERIVE_QUIET_MS = 250;

/** Builds again what the release let go; a promise, when the work goes on, of whether it got to the end. */
export type Rederive = () => Promise<boolean> | undefined;

export class MemoryReclaimer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastChange = 0;
  private collect: (() => void) | null | undefined;

  /** Set by the follow-up's release, until what it let go is derived again (`activity`). */
  private released = false;
  private rederiveTimer: ReturnType<typeof setTimeout> | undefined;
  /** Set by `dispose`: a rederivation still running then is not taken up again. */
  private disposed = false;

  /**
   * `collect` replaces V8's full collection (for tests); `compact` stores the open documents' lines
   * compactly (`lineStorage.ts`); `rederive` builds again what the open documents' next edit reads
   * (their diagnostics' kept contexts and requests) after the release, and may answer whether it
   * got to the end (false: an edit ended it early, and the next pause starts it again).
   */
  constructor(
    private readonly openDocuments: () => number,
    collect?: () => void,
    private readonly compact: () => void = () => undefined,
    private rederive: Rederive = () => undefined,
  ) {
    this.collect = collect;
  }

  /** What `activity` runs after a release (the server sets it once its diagnostics are made). */
  rederiveWith(rederive: Rederive): void {
    this.rederive = rederive;
  }

  /**
   * A message came from the client (an edit, a request on an open document; the server does not
   * count a request a client sends on its own schedule, `lsp/server.ts`): after the release, what
   * it let go is derived again once no other such message has come for `REDERIVE_QUIET_MS`.
   */
  activity(): void {
    if (!this.released) return;
    clearTimeout(this.rederiveTimer);
    this.rederiveTimer = setTimeout(() => this.rederiveNow(), REDERIVE_QUIET_MS);
    this.rederiveTimer.unref?.();
  }

  private rederiveNow(): void {
    this.rederiveTimer = undefined;
    if (!this.released) return;
    this.released = false;
    if (this.openDocuments() === 0) return;
    const ended = this.rederive();
    // Ended early by an edit: the next pause goes on with it (what it built so far is kept, and
    // brought up to date by the edit), unless the server has stopped meanwhile.
    void ended?.then((complete) => {
      if (!complete && !this.disposed) this.released = true;
    });
    // What was derived is let go again once the server is idle again.
    this.lastChange = Date.now();
    this.schedule();
  }

  /** A document was opened or changed; `chars` is the length of its text. */
  changed(chars: number): void {
    this.lastChange = Date.now();
    this.activity();
    if (chars >= LARGE_DOCUMENT_CHARS) this.schedule();
  }

  /**
   * An answer of megabytes was sent (a whole built context): its making leaves garbage several
   * times its size, as a large open does, and an idle server keeps it as long as nothing allocates,
   * since an edit schedules no collection. Measured over stdio on the 45 MB session: 9 s after a
   * few whole contexts the heap still held 102 MB where 70 MB were live, 218 MB of RSS.
   */
  answeredLarge(): void {
    this.schedule();
  }

  /** A document was closed. */
  closed(): void {
    this.lastChange = Date.now();
    this.schedule();
  }

  dispose(): void {
    // Nothing is derived again after shutdown: the server tells of every request, even one it refuses then.
    this.released = false;
    this.disposed = true;
    clearTimeout(this.timer);
    clearTimeout(this.rederiveTimer);
    this.timer = undefined;
    this.rederiveTimer = undefined;
  }

  private schedule(): void {
    // A new open or close starts over: the follow-up pending belongs to the collection it makes.
    if (this.timer && !this.followUpPending) return;
    clearTimeout(this.timer);
    this.followUpPending = false;
    this.arm(IDLE_MS, false);
  }

  private followUpPending = false;

  private arm(ms: number, followUp: boolean): void {
    this.followUpPending = followUp;
    this.timer = setTimeout(() => this.run(followUp), ms);
    // A pending collection never keeps the process alive.
    this.timer.unref?.();
  }

  private run(followUp: boolean): void {
    this.timer = undefined;
    const quiet = Date.now() - this.lastChange;
    if (quiet < IDLE_MS) {
      // Still being edited: collecting now would pause typing; wait for the pause.
      this.arm(IDLE_MS - quiet, followUp);
      return;
    }
    // The bytes kept for the next context answer (`keptJson.ts`) go when no document is left to ask.
    if (this.openDocuments() === 0) {
      forgetValues();
      forgetKeptJson();
      forgetMessageMemory();
      forgetScratch();
      renewWeakTables();
    } else trimValues(IDLE_VALUE_CHARS);
    const collect = this.collector();
    if (!collect) return;
    if (followUp) {
      // Idle for a while: the semantic layer's kept contexts go too (the next request builds them
      // again); the second collection compacts the pages the first left half empty.
      releaseKept();
      this.released = this.openDocuments() > 0;
      forgetValues();
      forgetKeptJson();
      forgetMessageMemory();
      collect();
      this.compacting(collect);
      logMemory("the follow-up collection");
      return;
    }
    // Before the collections: the follow-up then finds the allocations of the ropes 5 s old.
    this.compact();
    collect();
    collect();
    logMemory("the idle collections");
    this.arm(FOLLOW_UP_MS, true);
  }

  /**
   * A full collection that moves every live object together, so that the pages it empties go back
   * to the system. V8 compacts only the pages it judges fragmented enough, and after the release it
   * left 97 MB of old-generation pages for 71 MB of objects (the 45 MB session), two collections
   * in a row; `--compact-on-every-full-gc` for this one collection gave 26 MB back.
   */
  private compacting(collect: () => void): void {
    try {
      setFlagsFromString("--compact-on-every-full-gc");
      collect();
    } finally {
      setFlagsFromString("--no-compact-on-every-full-gc");
    }
  }

  private collector(): (() => void) | null {
    if (this.collect !== undefined) return this.collect;
    try {
      setFlagsFromString("--expose-gc");
      const gc = runInNewContext("gc") as unknown;
      this.collect = typeof gc === "function" ? (gc as () => void) : null;
    } catch {
      this.collect = null;
    }
    return this.collect;
  }
}
