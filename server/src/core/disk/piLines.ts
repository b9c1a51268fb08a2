/**
 * How each Pi reader turns a file's lines into JSON values, for lines delivered one at a time
 * (split on "\n", as the streaming line reader delivers them):
 *
 * - `load16`: Pi 1.x `loadEntriesFromFile` (what `open` reads): blank and unparsable lines are
 *   skipped, and so are falsy values (`null`, `0`, `false`, `""`);
 * - `list16`: Pi 1.x `buildSessionInfo` (what its session list reads) uses `readline`, which also
 *   ends a line at a lone "\r"; otherwise as `load16`;
 * - `whole074`: Pi 0.74 reads the whole file, `trim()`s it and splits it on "\n": the first line
 *   with content loses its leading whitespace (a byte order mark too), the last one its trailing
 *   whitespace, blank and unparsable lines are skipped, and every other value is kept, `null` too.
 *   The last line with content is held back until the next one arrives, so that it can be trimmed
 *   if it turns out to be the last.
 */

export type LineMode = "load16" | "list16" | "whole074";

export interface LinePlace {
  /** 0-based line number (lines end at "\n"). */
  line: number;
  /** Byte offset of the line in the file. */
  start: number;
  /** Length of the line in bytes. */
  bytes: number;
  /**
   * The line of an editor (which also ends a line at a lone "\r") on which this line starts, when
   * it is not `line`; set by the reader of the editor's index (`sessionInfo.ts`).
   */
  lspLine?: number;
  /** Which of the line's pieces split at "\r" the text is, for Pi 1.6's list (which reads a "\r" as a line break); absent for the first. */
  piece?: number;
}

export type OnValue = (value: unknown, text: string, place: LinePlace) => void;

export class PiLineFeed {
  private held: { text: string; place: LinePlace } | undefined;
  private sawContent = false;

  constructor(
    readonly mode: LineMode,
    private readonly onValue: OnValue,
  ) {}

  /** One line, without its "\n". */
  line(text: string, place: LinePlace): void {
    if (this.mode === "whole074") {
      if (!text.trim()) return;
      const held = this.held;
      this.held = { text: this.sawContent ? text : text.trimStart(), place };
      this.sawContent = true;
      if (held) this.parse(held.text, held.place, true);
      return;
    }
    if (this.mode === "list16" && text.indexOf("\r") >= 0) {
      const pieces = text.split("\r");
      for (let k = 0; k < pieces.length; k++) this.parse(pieces[k]!, k === 0 ? place : { ...place, piece: k }, false);
      return;
    }
    this.parse(text, place, false);
  }

  /** The end of the file: the held-back last line of a `whole074` read is trimmed and parsed. */
  end(): void {
    const held = this.held;
    this.held = undefined;
    if (held) this.parse(held.text.trimEnd(), held.place, true);
  }

  private parse(text: string, place: LinePlace, keepFalsy: boolean): void {
    if (!text.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return;
    }
    if (!value && !keepFalsy) return;
    this.onValue(value, text, place);
  }
}
