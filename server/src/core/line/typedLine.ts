/**
 * The tolerant line scanner: what is at the cursor in a line that is being typed.
 *
 * A line being typed is rarely valid JSON, so completion cannot use the line's parse. This scanner
 * needs only the text before the cursor to be a valid JSON prefix; text after the cursor is read as
 * far as it is valid, to learn the keys already present. Strings are skipped with `indexOf`, so a
 * 400 KB line costs well under a millisecond. Like `locate.ts`, it never throws.
 */

export type ScanAt =
  /** Inside a string; `start`/`end` bound its content (`end` is the cursor when it is not closed). */
  | { kind: "string"; isKey: boolean; path: (string | number)[]; key: string | undefined; start: number; end: number; closed: boolean; colonFollows: boolean }
  /** Where a key may start (after `{` or `,` in an object); `path` is the object's. */
  | { kind: "key"; path: (string | number)[] }
  /** Where a value may start (after `:`); `path` ends with the key. */
  | { kind: "value"; path: (string | number)[] };

export interface LineScan {
  at: ScanAt;
  /** The top-level `type` and `message.role` strings and keys, as far as the line could be read. */
  type: string | undefined;
  role: string | undefined;
  parentId: string | null | undefined;
  topKeys: Set<string>;
  messageKeys: Set<string>;
}

interface Frame {
  kind: "object" | "array";
  /** Object: "key" | "colon" | "value" | "comma"; array: "value" | "comma". */
  state: "key" | "colon" | "value" | "comma";
  key: string | undefined;
  index: number;
}

class Stop extends Error {}

/** What a token tells the read: go on, stop at a string left open, or nothing can be completed at the cursor. */
enum Next {
  On = 0,
  Unclosed = 1,
  Nothing = 2,
}

/**
 * Reads `text` as JSON as far as it is valid and reports what is at `cursor`. Returns undefined
 * when the text before the cursor is not a valid JSON prefix or the cursor is not inside the root
 * object (before it, after it, or somewhere nothing can be completed, such as inside a number).
 */
export function readTypedLine(text: string, cursor: number): LineScan | undefined {
  return new TypedLineReader(text, cursor).read();
}

/**
 * One read of a line: the open containers, what is known so far, and where the read is. Each token
 * kind is a step of its own; an invalid token throws `Stop`, which is fine after the cursor.
 */
class TypedLineReader {
  private readonly stack: Frame[] = [];
  private readonly out: Omit<LineScan, "at"> & { at: ScanAt | undefined } = {
    at: undefined,
    type: undefined,
    role: undefined,
    parentId: undefined,
    topKeys: new Set(),
    messageKeys: new Set(),
  };
  private i = 0;
  /** Whether the root value has closed. */
  private done = false;

  constructor(
    private readonly text: string,
    private readonly cursor: number,
  ) {}

  read(): LineScan | undefined {
    const { text, cursor, out } = this;
    const n = text.length;
    try {
      while (this.i < n && !this.done) {
        const i = this.i;
        const c = text.charCodeAt(i);
        if (c === 32 || c === 9 || c === 10 || c === 13) {
          if (i === cursor && out.at === undefined) this.markBetween();
          this.i++;
          continue;
        }
        if (i === cursor && out.at === undefined) this.markBetween();
        if (i >= cursor && out.at === undefined) return undefined;
        const top = this.stack[this.stack.length - 1];
        const next =
          c === 34
            ? this.string(top)
            : c === 123 || c === 91
              ? this.open(c, top)
              : c === 125 || c === 93
                ? this.close(c, top)
                : c === 58
                  ? this.colon(top)
                  : c === 44
                    ? this.comma(top)
                    : this.word(top);
        if (next === Next.Nothing) return undefined;
        if (next === Next.Unclosed) break;
      }
      if (this.i >= cursor && out.at === undefined && !this.done) this.markBetween();
    } catch (e) {
      if (!(e instanceof Stop)) throw e;
      // Invalid text: fine after the cursor (we know what we needed), fatal before it.
      if (this.i < cursor || out.at === undefined) return undefined;
    }
    if (out.at === undefined) return undefined;
    return out as LineScan;
  }

  /** A string at `i`: a key or a value, and what is at the cursor when the cursor is inside it. */
  private string(top: Frame | undefined): Next {
    const { text, cursor, out, stack, i } = this;
    const n = text.length;
    const end = stringEnd(text, i);
    const closed = end >= 0;
    const contentEnd = closed ? end : n;
    const isKey = top?.kind === "object" && top.state === "key";
    if (top === undefined || (!isKey && top.state !== "value")) throw new Stop();
    const raw = text.slice(i + 1, contentEnd);
    const value = closed ? decode(raw) : undefined;
    if (out.at === undefined && cursor > i && cursor <= contentEnd) {
      let colonFollows = false;
      if (closed && isKey) {
        let j = end + 1;
        while (j < n && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9)) j++;
        colonFollows = text.charCodeAt(j) === 58;
      }
      const path = this.pathOf(stack.length);
      if (!isKey && top.kind === "object") path.push(top.key!);
      if (!isKey && top.kind === "array") path.push(top.index);
      out.at = {
        kind: "string",
        isKey,
        path,
        key: isKey ? (value ?? decode(text.slice(i + 1, cursor))) : undefined,
        start: i + 1,
        end: closed ? end : cursor,
        closed,
        colonFollows,
      };
    }
    if (!closed) return Next.Unclosed;
    if (isKey) {
      top.key = value;
      top.state = "colon";
      if (value !== undefined && stack.length === 1) out.topKeys.add(value);
      if (value !== undefined && this.isMessageObject()) out.messageKeys.add(value);
    } else {
      if (stack.length === 1 && top.key === "type" && value !== undefined) out.type = value;
      if (stack.length === 1 && top.key === "parentId" && value !== undefined) out.parentId = value;
      if (this.isMessageObject() && top.key === "role" && value !== undefined) out.role = value;
      top.state = "comma";
    }
    this.i = end + 1;
    return Next.On;
  }

  /** `{` or `[` (`c`): a container opens, as a value or as the root. */
  private open(c: number, top: Frame | undefined): Next {
    const i = this.i;
    if (top !== undefined && top.state !== "value") throw new Stop();
    if (top === undefined && i > 0 && this.text.slice(0, i).trim() !== "") throw new Stop();
    if (top) top.state = "comma";
    this.stack.push({ kind: c === 123 ? "object" : "array", state: c === 123 ? "key" : "value", key: undefined, index: 0 });
    this.i++;
    return Next.On;
  }

  /** `}` or `]` (`c`): the innermost container closes. */
  private close(c: number, top: Frame | undefined): Next {
    if (!top || top.kind !== (c === 125 ? "object" : "array")) throw new Stop();
    // `{}` / `[]` and a value before the bracket are fine; a dangling `,` or `:` is not.
    if (top.state === "colon" || (top.state === "value" && top.kind === "object")) throw new Stop();
    if (top.state === "value" && top.kind === "array" && top.index > 0) throw new Stop();
    if (top.state === "key" && top.key !== undefined) throw new Stop();
    this.stack.pop();
    if (this.stack.length === 0) this.done = true;
    this.i++;
    return Next.On;
  }

  private colon(top: Frame | undefined): Next {
    if (top?.kind !== "object" || top.state !== "colon") throw new Stop();
    top.state = "value";
    this.i++;
    return Next.On;
  }

  private comma(top: Frame | undefined): Next {
    if (top?.state !== "comma") throw new Stop();
    if (top.kind === "object") top.state = "key";
    else {
      top.state = "value";
      top.index++;
    }
    this.i++;
    return Next.On;
  }

  /** A number or literal at `i` (a prefix of one at the end of the text). */
  private word(top: Frame | undefined): Next {
    const { text, cursor, out, i } = this;
    const n = text.length;
    if (top?.state !== "value") throw new Stop();
    let j = i;
    while (j < n) {
      const d = text.charCodeAt(j);
      if (d === 44 || d === 125 || d === 93 || d === 32 || d === 9 || d === 10 || d === 13) break;
      j++;
    }
    const word = text.slice(i, j);
    if (!/^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)$/.test(word) && !(j === n && /^(?:t|tr|tru|f|fa|fal|fals|n|nu|nul|-?\d*\.?\d*)$/.test(word)))
      throw new Stop();
    if (cursor > i && cursor <= j && out.at === undefined) return Next.Nothing; // inside a number or literal
    if (this.stack.length === 1 && top.key === "parentId" && word === "null") out.parentId = null;
    top.state = "comma";
    this.i = j;
    return Next.On;
  }

  /** The path of the container at `depth` (1 for the root object). */
  private pathOf(depth: number): (string | number)[] {
    const path: (string | number)[] = [];
    for (let k = 1; k < depth; k++) {
      const parent = this.stack[k - 1]!;
      path.push(parent.kind === "object" ? parent.key! : parent.index);
    }
    return path;
  }

  private isMessageObject(): boolean {
    const stack = this.stack;
    return stack.length === 2 && stack[0]!.kind === "object" && stack[0]!.key === "message" && stack[1]!.kind === "object";
  }

  /** Records the context at the cursor when it sits between tokens. */
  private markBetween(): void {
    const top = this.stack[this.stack.length - 1];
    if (!top) return;
    if (top.kind === "object" && top.state === "key") this.out.at = { kind: "key", path: this.pathOf(this.stack.length) };
    else if (top.kind === "object" && top.state === "value") this.out.at = { kind: "value", path: [...this.pathOf(this.stack.length), top.key!] };
  }
}

/** The index of the quote closing the string that starts at `i`, or -1. */
function stringEnd(text: string, i: number): number {
  let j = i;
  for (;;) {
    j = text.indexOf('"', j + 1);
    if (j < 0) return -1;
    let backslashes = 0;
    for (let k = j - 1; text.charCodeAt(k) === 92; k--) backslashes++;
    if (backslashes % 2 === 0) return j;
  }
}

function decode(raw: string): string | undefined {
  if (!raw.includes("\\")) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return undefined;
  }
}
