/**
 * The UTF-8 JSON of the large parts of the last context answers, kept for the next answer.
 *
 * An editor asks for the same built context again and again while the user types outside it, and
 * such an edit changes none of its message objects (`core/pi/contextUpdate.ts` keeps them, and the
 * provider request the same way). Remembering each message's JSON string (`encodedAnswer.ts`) still
 * left the server writing 20,000 strings' UTF-8 per answer of the 45 MB session, one `encodeInto`
 * each: about 19 ms of a 7 MB context's answer, more than the build. So the UTF-8 bytes of a large
 * message list are kept whole, with where each element's JSON starts and ends; the same list asked
 * for again is one copy of those bytes, and a list that shares a first and a last run of elements
 * with a kept one (an edit inside the context swaps a message, a new message is appended) copies
 * those runs and encodes only the elements between them. A long string member (the Markdown of
 * `format: "markdown"`) is kept the same way, found again when an equal string is asked for.
 *
 * This holds because a message object is never changed once built (what `encodedAnswer.ts` relies
 * on too). What is kept is bounded: the last `KEPT_LISTS` lists and `KEPT_STRINGS` strings, let go
 * when the server is idle or has no document open (`memory.ts`).
 */

/** A list whose elements' JSON is at least this many UTF-16 code units long has its bytes kept. */
export const KEPT_LIST_CHARS = 256 * 1024;
/** A string member at least this long has its JSON's bytes kept. */
export const KEPT_STRING_CHARS = 256 * 1024;
/** How many lists are kept: the context's messages and the provider's, and one more for a window or the other Pi version. */
export const KEPT_LISTS = 3;
/** How many long strings are kept: the context's Markdown and the provider's. */
export const KEPT_STRINGS = 2;

/**
 * Bytes of at least `bytes` in memory that glibc maps on its own and unmaps when it is freed (as
 * `mappedBuffer` in `stdin.ts` does, for the same reason: a kept list of megabytes freed inside the
 * heap would keep the heap that large); only the pages written become resident.
 */
const MAPPED_BYTES = 33 * 1024 * 1024;
function mapped(bytes: number): Buffer {
  return Buffer.allocUnsafeSlow(Math.max(MAPPED_BYTES, bytes));
}

/** The most UTF-8 bytes one UTF-16 code unit becomes (a surrogate pair, two units, becomes 4). */
const MAX_BYTES_PER_UNIT = 3;

interface KeptList {
  /** The list's elements when its bytes were written (a copy: the list itself may be changed later). */
  readonly elements: readonly unknown[];
  /** `JSON.stringify(list)` in UTF-8. */
  readonly bytes: Buffer;
  /** Where element `i`'s JSON starts (`bounds[2i]`) and ends (`bounds[2i + 1]`) in `bytes`. */
  readonly bounds: Uint32Array;
}

let lists: KeptList[] = [];
let strings: { text: string; bytes: Buffer }[] = [];

const utf8 = new TextEncoder();

/**
 * The UTF-8 of `JSON.stringify(list)` when the list is large enough to keep (`KEPT_LIST_CHARS`), from
 * the bytes kept for the same or an overlapping list where there are some; undefined for a short list.
 * `elementJson` gives an element's JSON (`null` for an element that has none).
 */
export function keptListJson(list: readonly unknown[], elementJson: (element: unknown) => string): Buffer | undefined {
  let best: KeptList | undefined;
  let bestShared = 0;
  let head = 0;
  let tail = 0;
  for (const kept of lists) {
    const [first, last] = sharedRuns(kept.elements, list);
    if (first + last > bestShared) [best, bestShared, head, tail] = [kept, first + last, first, last];
  }
  if (best && bestShared === list.length && best.elements.length === list.length) {
    lists = [best, ...lists.filter((kept) => kept !== best)];
    return best.bytes;
  }
  const middle: string[] = [];
  let chars = 0;
  for (let i = head; i < list.length - tail; i++) {
    const json = elementJson(list[i]);
    middle.push(json);
    chars += json.length;
  }
  const reused = best ? keptBytes(best, head, tail) : 0;
  if (reused + chars < KEPT_LIST_CHARS) return undefined;
  const kept = written(list, best, head, tail, middle, reused + (chars + list.length + 2) * MAX_BYTES_PER_UNIT);
  lists = [kept, ...lists].slice(0, KEPT_LISTS);
  return kept.bytes;
}

/** How many first and last elements `kept` and `list` share (the same objects), without overlap. */
function sharedRuns(kept: readonly unknown[], list: readonly unknown[]): [number, number] {
  const most = Math.min(kept.length, list.length);
  let first = 0;
  // Equal primitives have equal JSON, and a hole is written as `undefined` is (null).
  while (first < most && kept[first] === list[first]) first++;
  let last = 0;
  while (last < most - first && kept[kept.length - 1 - last] === list[list.length - 1 - last]) last++;
  return [first, last];
}

/** The bytes of `kept`'s first `head` and last `tail` elements' JSON. */
function keptBytes(kept: KeptList, head: number, tail: number): number {
  const n = kept.elements.length;
  const headBytes = head > 0 ? kept.bounds[2 * (head - 1) + 1]! - kept.bounds[0]! : 0;
  const tailBytes = tail > 0 ? kept.bounds[2 * (n - 1) + 1]! - kept.bounds[2 * (n - tail)]! : 0;
  return headBytes + tailBytes;
}

/** `list`'s JSON written into new bytes: `from`'s first `head` and last `tail` elements copied, `middle` encoded between them. */
function written(list: readonly unknown[], from: KeptList | undefined, head: number, tail: number, middle: readonly string[], capacity: number): KeptList {
  const bytes = mapped(capacity);
  const bounds = new Uint32Array(2 * list.length);
  let at = 0;
  bytes[at++] = 0x5b; // [
  // Copies `count` elements' JSON from `from` (from its element `start` on) to the list's element `target` on, with the commas between them.
  const copy = (source: KeptList, start: number, count: number, target: number) => {
    const begin = source.bounds[2 * start]!;
    const end = source.bounds[2 * (start + count - 1) + 1]!;
    bytes.set(source.bytes.subarray(begin, end), at);
    for (let j = 0; j < count; j++) {
      bounds[2 * (target + j)] = source.bounds[2 * (start + j)]! - begin + at;
      bounds[2 * (target + j) + 1] = source.bounds[2 * (start + j) + 1]! - begin + at;
    }
    at += end - begin;
  };
  if (from && head > 0) copy(from, 0, head, 0);
  for (let k = 0; k < middle.length; k++) {
    if (head + k > 0) bytes[at++] = 0x2c; // ,
    bounds[2 * (head + k)] = at;
    at += utf8.encodeInto(middle[k]!, bytes.subarray(at)).written;
    bounds[2 * (head + k) + 1] = at;
  }
  if (from && tail > 0) {
    if (list.length > tail) bytes[at++] = 0x2c;
    copy(from, from.elements.length - tail, tail, list.length - tail);
  }
  bytes[at++] = 0x5d; // ]
  return { elements: list.slice(), bytes: bytes.subarray(0, at), bounds };
}

/** The UTF-8 of `JSON.stringify(text)`, kept for a string at least `KEPT_STRING_CHARS` long; undefined for a shorter one. */
export function keptStringJson(text: string): Buffer | undefined {
  if (text.length < KEPT_STRING_CHARS) return undefined;
  const kept = strings.find((entry) => entry.text === text);
  if (kept) {
    strings = [kept, ...strings.filter((entry) => entry !== kept)];
    return kept.bytes;
  }
  const json = JSON.stringify(text);
  const bytes = mapped(json.length * MAX_BYTES_PER_UNIT);
  const entry = { text, bytes: bytes.subarray(0, utf8.encodeInto(json, bytes).written) };
  strings = [entry, ...strings].slice(0, KEPT_STRINGS);
  return entry.bytes;
}

/** Lets every kept list and string go (an idle server, or one with no document open). */
export function forgetKeptJson(): void {
  lists = [];
  strings = [];
}
