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

/**
 * Reads `text` as JSON as far as it is valid and reports what is at `cursor`. Returns undefined
 * when the text before the cursor is not a valid JSON prefix or the cursor is not inside the root
 * object (before it, after it, or somewhere nothing can be completed, such as inside a number).
 */
export function readTypedLine(text: string, cursor: number): LineScan | undefined {
  const stack: Frame[] = [];
  const out: Omit<LineScan, "at"> & { at: ScanAt | undefined } = {
    at: undefined,
    type: undefined,
    role: undefined,
    parentId: undefined,
    topKeys: new Set(),
    messageKeys: new Set(),
  };
  const pathOf = (depth: number): (string | number)[] => {
    const path: (string | number)[] = [];
    for (let k = 1; k < depth; k++) {
      const parent = stack[k - 1]!;
      path.push(parent.kind === "object" ? parent.key! : parent.index);
    }
    return path;
  };
  const isMessageObject = (): boolean => stack.length === 2 && stack[0]!.kind === "object" && stack[0]!.key === "message" && stack[1]!.kind === "object";
  let i = 0;
  let done = false;
  const n = text.length;
  try {
    while (i < n && !done) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) {
        if (i === cursor && out.at === undefined) markBetween();
        i++;
        continue;
      }
      if (i === cursor && out.at === undefined) markBetween();
      if (i >= cursor && out.at === undefined) return undefined;
      const top = stack[stack.length - 1];
      if (c === 34) {
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
          const path = pathOf(stack.length);
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
        if (!closed) break;
        if (isKey) {
          top.key = value;
          top.state = "colon";
          if (value !== undefined && stack.length === 1) out.topKeys.add(value);
          if (value !== undefined && isMessageObject()) out.messageKeys.add(value);
        } else {
          if (stack.length === 1 && top.key === "type" && value !== undefined) out.type = value;
          if (stack.length === 1 && top.key === "parentId" && value !== undefined) out.parentId = value;
          if (isMessageObject() && top.key === "role" && value !== undefined) out.role = value;
          top.state = "comma";
        }
        i = end + 1;
        continue;
      }
      if (c === 123 || c === 91) {
        if (top !== undefined && top.state !== "value") throw new Stop();
        if (top === undefined && i > 0 && text.slice(0, i).trim() !== "") throw new Stop();
        if (top) top.state = "comma";
        stack.push({ kind: c === 123 ? "object" : "array", state: c === 123 ? "key" : "value", key: undefined, index: 0 });
        i++;
        continue;
      }
      if (c === 125 || c === 93) {
        if (!top || top.kind !== (c === 125 ? "object" : "array")) throw new Stop();
        // `{}` / `[]` and a value before the bracket are fine; a dangling `,` or `:` is not.
        if (top.state === "colon" || (top.state === "value" && top.kind === "object")) throw new Stop();
        if (top.state === "value" && top.kind === "array" && top.index > 0) throw new Stop();
        if (top.state === "key" && top.key !== undefined) throw new Stop();
        stack.pop();
        if (stack.length === 0) done = true;
        i++;
        continue;
      }
      if (c === 58) {
        if (top?.kind !== "object" || top.state !== "colon") throw new Stop();
        top.state = "value";
        i++;
        continue;
      }
      if (c === 44) {
        if (top?.state !== "comma") throw new Stop();
        if (top.kind === "object") top.state = "key";
        else {
          top.state = "value";
          top.index++;
        }
        i++;
        continue;
      }
      // A number or literal.
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
      if (cursor > i && cursor <= j && out.at === undefined) return undefined; // inside a number or literal
      if (stack.length === 1 && top.key === "parentId" && word === "null") out.parentId = null;
      top.state = "comma";
      i = j;
    }
    if (i >= cursor && out.at === undefined && !done) markBetween();
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    // Invalid text: fine after the cursor (we know what we needed), fatal before it.
    if (i < cursor || out.at === undefined) return undefined;
  }
  if (out.at === undefined) return undefined;
  return out as LineScan;

  /** Records the context at the cursor when it sits between tokens. */
  function markBetween(): void {
    const top = stack[stack.length - 1];
    if (!top) return;
    if (top.kind === "object" && top.state === "key") out.at = { kind: "key", path: pathOf(stack.length) };
    else if (top.kind === "object" && top.state === "value") out.at = { kind: "value", path: [...pathOf(stack.length), top.key!] };
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
