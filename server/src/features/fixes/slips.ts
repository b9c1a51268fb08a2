/**
 * A linear count of the places where a line breaks JSON's grammar, to keep jsonrepair off lines it
 * would take minutes on. jsonrepair copies its output at every repair and re-reads a string it
 * misjudged, so its time grows with the line's length times its repairs: a 1 MB line of quotes, or
 * one with 130,000 missing commas, took more than 30 s each, where a 1 MB line with one slip takes
 * 0.24 s. A mend takes at most a few insertions, so a long line with more slips than that is not
 * given to jsonrepair at all.
 */

/** Lines up to this length go to jsonrepair whatever they hold: its worst case measured there was 0.7 s. */
export const ALWAYS_REPAIRABLE_CHARS = 64 * 1024;

enum Expect {
  Value,
  ValueOrClose,
  KeyOrClose,
  Key,
  Colon,
  AfterValue,
  End,
}

const OBJECT = 0;
const ARRAY = 1;

/** Whether jsonrepair may be given `text`: it is short, or it breaks the grammar in at most `max` places. */
export function mayRepair(text: string, max: number): boolean {
  return text.length <= ALWAYS_REPAIRABLE_CHARS || countSlips(text, max) <= max;
}

/**
 * How many places in `text` break JSON's grammar, each read as the repair that continues it
 * (a missing comma or colon assumed, a stray token skipped); the count stops just past `max`.
 */
export function countSlips(text: string, max: number): number {
  const stack: number[] = [];
  let expect = Expect.Value;
  let slips = 0;
  const n = text.length;
  let i = 0;
  while (i < n && slips <= max) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      i++;
      continue;
    }
    let token: number; // a character code of punctuation, or 0 for a string or another word
    if (c === 34) {
      const end = stringEnd(text, i);
      if (end < 0) {
        slips++; // A string that never closes.
        break;
      }
      token = 0;
      i = end;
    } else if (c === 123 || c === 125 || c === 91 || c === 93 || c === 44 || c === 58) {
      token = c;
      i++;
    } else {
      while (i < n && !isDelimiter(text.charCodeAt(i))) i++;
      token = 0;
    }
    const top = stack.length > 0 ? stack[stack.length - 1]! : -1;
    switch (expect) {
      case Expect.KeyOrClose:
      case Expect.Key:
        if (token === 125) {
          if (expect === Expect.Key) slips++; // A comma before the brace.
          slips += closeWith(stack, token);
          expect = after(stack);
        } else {
          if (token !== 0) slips++;
          expect = token === 0 ? Expect.Colon : expect;
        }
        break;
      case Expect.Colon:
        if (token === 58) expect = Expect.Value;
        else {
          slips++;
          expect = opened(stack, token);
        }
        break;
      case Expect.AfterValue:
        if (token === 44) expect = top === OBJECT ? Expect.Key : Expect.Value;
        else if (token === 125 || token === 93) {
          slips += closeWith(stack, token);
          expect = after(stack);
        } else {
          slips++; // A missing comma: the token starts the next member or element.
          expect = token === 0 && top === OBJECT ? Expect.Colon : opened(stack, token);
        }
        break;
      case Expect.End:
        slips++;
        break;
      default:
        if (expect === Expect.ValueOrClose && token === 93) {
          slips += closeWith(stack, token);
          expect = after(stack);
        } else if (token === 125 || token === 93) {
          slips += 1 + closeWith(stack, token); // A missing value.
          expect = after(stack);
        } else if (token === 44 || token === 58) slips++;
        else expect = opened(stack, token);
    }
  }
  return stack.length > 0 && slips <= max ? slips + 1 : slips;
}

/** After a value's first token: inside the container it opens, or after the value. */
function opened(stack: number[], token: number): Expect {
  if (token === 123) {
    stack.push(OBJECT);
    return Expect.KeyOrClose;
  }
  if (token === 91) {
    stack.push(ARRAY);
    return Expect.ValueOrClose;
  }
  return stack.length === 0 ? Expect.End : Expect.AfterValue;
}

/**
 * Closes the innermost container that `token` closes, and the slips that takes: each container
 * left open inside it is one (a missing bracket), and a closer that closes nothing is one.
 */
function closeWith(stack: number[], token: number): number {
  const want = token === 125 ? OBJECT : ARRAY;
  const at = stack.lastIndexOf(want);
  if (at < 0) return 1;
  const slips = stack.length - 1 - at;
  stack.length = at;
  return slips;
}

/** What follows a closed container: the end of the line, or the next member or element. */
function after(stack: number[]): Expect {
  return stack.length === 0 ? Expect.End : Expect.AfterValue;
}

/** Just past the quote that closes the string opened at `start`, or -1 when the line ends first. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) return i + 1;
  }
  return -1;
}

function isDelimiter(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 34 || c === 123 || c === 125 || c === 91 || c === 93 || c === 44 || c === 58;
}
