/**
 * Giving memory back once the server is idle.
 *
 * Opening a 45 MB session passes the file through the JSON-RPC library several times (the bytes
 * read, the message decoded, the text parsed out of it) and leaves hundreds of megabytes of
 * garbage; closing it leaves the whole document. V8 collects that garbage only when something
 * allocates again, and an idle editor server allocates nothing: measured over stdio, the server
 * stayed at 360 MB three seconds after the file was closed, and at 8 times the file's size after
 * it was opened. So after a large open or any close, once no document has changed for a moment,
 * the server asks V8 for one full collection (which also returns emptied pages to the system), and
 * drops the parsed values it keeps for lines when no document is left open.
 *
 * The collection is asked for through `--expose-gc`, set at run time; where that is refused, nothing
 * is collected early and the server works as before.
 */

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { forgetValues } from "../core/values";

/** A document at least this large leaves enough garbage when opened to be worth a collection. */
export const LARGE_DOCUMENT_CHARS = 4 * 1024 * 1024;
/** How long no document must change before the collection runs. */
const IDLE_MS = 1500;

export class MemoryReclaimer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastChange = 0;
  private collect: (() => void) | null | undefined;

  constructor(private readonly openDocuments: () => number) {}

  /** A document was opened or changed; `chars` is the length of its text. */
  changed(chars: number): void {
    this.lastChange = Date.now();
    if (chars >= LARGE_DOCUMENT_CHARS) this.schedule();
  }

  /** A document was closed. */
  closed(): void {
    this.lastChange = Date.now();
    this.schedule();
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => this.run(), IDLE_MS);
    // A pending collection never keeps the process alive.
    this.timer.unref?.();
  }

  private run(): void {
    this.timer = undefined;
    const quiet = Date.now() - this.lastChange;
    if (quiet < IDLE_MS) {
      // Still being edited: collecting now would pause typing; wait for the pause.
      this.timer = setTimeout(() => this.run(), IDLE_MS - quiet);
      this.timer.unref?.();
      return;
    }
    if (this.openDocuments() === 0) forgetValues();
    this.collector()?.();
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
