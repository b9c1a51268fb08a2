/**
 * What the command line writes to a terminal: text with its control characters made visible, and
 * colour only where it is wanted.
 *
 * Session files and folder names come from other people's machines. A raw ESC in an id, a role, a
 * `JSON.parse` error snippet or a file name would reach the terminal as an escape sequence (clear
 * the screen, set the window title, print "all good" over the real output), so every text the CLI
 * prints goes through `escapeControls` first, and colour codes are added only afterwards.
 */

/**
 * C0 controls and DEL, C1 controls (U+0080–U+009F: some terminals read U+009B as CSI), the line and
 * paragraph separators, and the bidirectional controls that reorder what is shown (Trojan Source).
 */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const CONTROLS_BUT_LAYOUT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const CONTROLS_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeOne(c: string): string {
  const code = c.charCodeAt(0);
  switch (c) {
    case "\n":
      return "\\n";
    case "\r":
      return "\\r";
    case "\t":
      return "\\t";
  }
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** One line of terminal text: every control character, line breaks included, shown as an escape. */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, escapeOne);
}

/** Text of several lines (a diff, Markdown): like `escapeControls`, but "\n" and "\t" stay. */
export function escapeControlsKeepingLines(text: string): string {
  return text.replace(CONTROLS_BUT_LAYOUT, escapeOne);
}

/**
 * JSON text from `JSON.stringify`, which escapes C0 controls but leaves DEL, C1 and bidirectional
 * controls raw: those become `\uXXXX` escapes, which parse back to the same string.
 */
export function escapeJsonControls(json: string): string {
  return json.replace(CONTROLS_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * How deep a value is written by `jsonLine` once `JSON.stringify` overflowed its stack on it (at a
 * few thousand levels): far deeper than anything Pi writes, and shallow enough to copy safely.
 */
export const MAX_JSON_OUTPUT_DEPTH = 1000;

/**
 * One line of JSON output: exactly `JSON.stringify(value)` (control characters escaped) whenever it
 * can be made; a value nested too deep for it (an id that is an array 100,000 deep) is written down
 * to `MAX_JSON_OUTPUT_DEPTH` levels, and below that as a string that says it was left out, so one
 * odd session costs its own field, not the whole answer.
 */
export function jsonLine(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    text = JSON.stringify(clampDepth(value, MAX_JSON_OUTPUT_DEPTH));
  }
  return `${escapeJsonControls(text)}\n`;
}

const TOO_DEEP = `(nested more than ${MAX_JSON_OUTPUT_DEPTH} levels deep: not written)`;

/** A copy of `value` whose arrays and objects below `depth` levels are `TOO_DEEP`; recursion is bounded by `depth`. */
function clampDepth(value: unknown, depth: number): unknown {
  let v = value;
  if (v !== null && typeof v === "object" && typeof (v as { toJSON?: unknown }).toJSON === "function") v = (v as { toJSON: () => unknown }).toJSON();
  if (v === null || typeof v !== "object") return v;
  if (depth === 0) return TOO_DEEP;
  if (Array.isArray(v)) return v.map((item) => clampDepth(item, depth - 1));
  // fromEntries defines each member, so a "__proto__" key stays a member.
  return Object.fromEntries(Object.entries(v).map(([key, item]) => [key, clampDepth(item, depth - 1)]));
}

/**
 * Whether to colour output: never when `NO_COLOR` is set to anything but "" (no-color.org) or
 * `TERM` is "dumb"; always when `FORCE_COLOR` is set to anything but "", "0" or "false"; else only
 * on a terminal, never into a pipe or a file.
 */
export function wantsColor(isTTY: boolean, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "" && force !== "0" && force !== "false") return true;
  return isTTY && env.TERM !== "dumb";
}

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  blue(text: string): string;
  cyan(text: string): string;
  green(text: string): string;
}

const sgr =
  (on: string, off: string) =>
  (text: string): string =>
    text === "" ? "" : `\u001b[${on}m${text}\u001b[${off}m`;

const COLORED: Style = {
  bold: sgr("1", "22"),
  dim: sgr("2", "22"),
  red: sgr("31", "39"),
  yellow: sgr("33", "39"),
  blue: sgr("34", "39"),
  cyan: sgr("36", "39"),
  green: sgr("32", "39"),
};

const same = (text: string): string => text;
const PLAIN: Style = { bold: same, dim: same, red: same, yellow: same, blue: same, cyan: same, green: same };

export function styleFor(color: boolean): Style {
  return color ? COLORED : PLAIN;
}
