/**
 * The parsed values of lines, kept for the lines used last, within a budget.
 *
 * A parsed JSON value takes several times the memory of its text; keeping every line's for the
 * life of a 50 MB document costs hundreds of megabytes. A line's parse therefore keeps only the
 * facts features read on every pass (`ParsedLine`), and its value lives here: the lines whose value
 * was wanted last stay, up to a budget in characters of text, and a line let go is parsed again
 * when its value is wanted (its text never changes: an edit makes a new parse). The cache is shared
 * by every document of the process, so its size does not grow with the number of open files.
 */

/** The lines whose values are kept: at most this many characters of their text (see `keepAllValues`). */
const BUDGET_CHARS = 8_000_000;
let budget = BUDGET_CHARS;

/**
 * For a program that reads one document through and then drops it (the CLI): keep every value, so
 * that nothing is parsed twice. `forgetValues` empties the cache between documents.
 */
export function keepAllValues(): void {
  budget = Number.POSITIVE_INFINITY;
}

/**
 * Keeps values for at most `chars` characters of line text (the streaming check bounds its memory
 * so, whatever the file's size); the default is restored by passing `undefined`.
 */
export function setValueBudget(limit: number | undefined): void {
  budget = limit ?? BUDGET_CHARS;
  if (chars > budget) evict();
}

/**
 * Lets the least recently used values go until at most `limit` characters' worth are kept: what an
 * idle server keeps of the cache while documents stay open (the next request parses a line again).
 */
export function trimValues(limit: number): void {
  held.clear();
  for (const oldest of cache.keys()) {
    if (chars <= limit) break;
    cache.delete(oldest);
    chars -= charsOf(oldest);
  }
}

export function forgetValues(): void {
  cache.clear();
  chars = 0;
  held.clear();
}

interface Cached {
  readonly text: string;
  /**
   * `text.length`, for a line whose text is not held in memory (a streamed line reads it back from
   * disk): the cache counts with it instead of reading the text again.
   */
  readonly textLength?: number;
}

function charsOf(line: Cached): number {
  return line.textLength ?? line.text.length;
}

const cache = new Map<Cached, unknown>();
let chars = 0;

/**
 * Values kept apart from the cache for the lines of a large open's resumed path (`heldValues.ts`),
 * until each is read, when it joins the cache, or the server is idle (`trimValues`): the first
 * complete diagnostics read them all, and the cache, whose least recently used line goes first,
 * would let each go before it is read when the path holds more text than its budget.
 */
const held = new Map<Cached, unknown>();

/** Keeps `value` for `line` apart from the cache, until it is read, `releaseHeldValues`, `trimValues` or `forgetValues`. */
export function holdValue(line: Cached, value: unknown): void {
  held.set(line, value);
}

/**
 * Lets every held value go: a new document's parse does so before it holds its own, so that a
 * process with no idle collection (Pi's, running `/doctor`) holds one document's at most.
 */
export function releaseHeldValues(): void {
  held.clear();
}

/** The value `parseWithoutKeeping` parsed last, while `captureUnkept(true)` asks for it. */
let unkept: unknown;
let capturing = false;

/** Whether the values `parseWithoutKeeping` does not keep are handed to `takeUnkept` instead. */
export function captureUnkept(on: boolean): void {
  capturing = on;
  unkept = undefined;
}

/** The value of the line parsed last while capturing, given up here. */
export function takeUnkept(): unknown {
  const value = unkept;
  unkept = undefined;
  return value;
}

/** False while `parseWithoutKeeping` runs. */
let remembering = true;

/**
 * Runs `parse`, which parses lines of `chars` characters in all, keeping none of their values when
 * they could not all stay in the cache anyway: the lines parsed first would be let go before
 * anything asked for them (opening a 45 MB session evicted every value it kept before the first
 * diagnostics read one), after costing a cache entry each and, kept long enough to survive young
 * collections, a share of the full ones. Values are then parsed again when they are wanted, as
 * they would have been.
 */
export function parseWithoutKeeping<T>(chars: number, parse: () => T): T {
  if (chars <= budget || !remembering) return parse();
  remembering = false;
  try {
    return parse();
  } finally {
    remembering = true;
  }
}

/** How many characters of line text the cache keeps values for. */
export function valueBudget(): number {
  return budget;
}

/** Whether `parseWithoutKeeping(chars, …)` would keep the values it parses (else a parse elsewhere that keeps none is the same). */
export function keepsValues(chars: number): boolean {
  return chars <= budget && remembering;
}

/** Keeps a value just parsed from a line's text. */
export function rememberValue(line: Cached, value: unknown): void {
  if (!remembering) {
    if (capturing) unkept = value;
    return;
  }
  // A primitive (a number, null, a string) is as small as its text: nothing to save by letting it go.
  if (value === null || typeof value !== "object") return;
  const previous = cache.get(line);
  if (previous !== undefined) {
    cache.delete(line);
    chars -= charsOf(line);
  }
  cache.set(line, value);
  chars += charsOf(line);
  if (chars > budget) evict();
}

/** Lets the least recently used values go until the cache is a quarter under budget (so that evictions come in batches). */
function evict(): void {
  const target = budget * 0.75;
  for (const oldest of cache.keys()) {
    if (chars <= target || cache.size <= 1) break;
    cache.delete(oldest);
    chars -= charsOf(oldest);
  }
}

/**
 * Files the value cached for `from` under `to` instead, for a line whose parse is replaced by a
 * smaller record of the same text (the streaming check drops the text `parseLine` kept).
 */
export function transferValue(from: Cached, to: Cached): void {
  const value = cache.get(from);
  if (value === undefined) return;
  cache.delete(from);
  chars -= charsOf(from);
  rememberValue(to, value);
}

/** The value of a line: from the cache (marking it used), or parsed again from its text. */
export function lineValue(line: Cached): unknown {
  const value = cache.get(line);
  if (value !== undefined) {
    // Move it to the back: the least recently used is evicted first.
    cache.delete(line);
    cache.set(line, value);
    return value;
  }
  // A held value read joins the cache, as the one parsed here would: the lines read last are kept
  // when the server is idle (`trimValues`), and the first keystroke after that finds them.
  const kept = held.get(line);
  if (kept !== undefined) {
    held.delete(line);
    rememberValue(line, kept);
    return kept;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(line.text);
  } catch {
    // The text parsed once and has not changed; this cannot happen.
    return undefined;
  }
  rememberValue(line, parsed);
  return parsed;
}

/** How many characters of line text the cache holds values for (for tests and the benchmark). */
export function cachedChars(): number {
  return chars;
}

/** How many lines have a value held apart from the cache (for tests). */
export function heldLines(): number {
  return held.size;
}
