/**
 * Command-line arguments through `node:util`'s `parseArgs` (`--opt value`, `--opt=value`, short
 * flags, `--` before paths that start with a dash), strict about unknown options, with errors that
 * name the word that was wrong instead of printing the whole help.
 *
 * `parseArgs` runs non-strict with tokens, and this module does the strict checks on the tokens
 * itself: its own messages are stable and say what to do (Node's differ between versions and do
 * not suggest the option that was meant).
 */

import { parseArgs } from "node:util";
import { escapeControls } from "./terminal";

export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  /** For string options: the values accepted (`--format text|json`). */
  choices?: readonly string[];
}

export type OptionSpecs = Record<string, OptionSpec>;

export interface ParsedArgs {
  /** The last value of each string option given, and `true` for each boolean option given. */
  values: Map<string, string | true>;
  positionals: string[];
}

export class UsageError extends Error {}

export function parseCommandLine(args: readonly string[], specs: OptionSpecs): ParsedArgs {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {};
  for (const [name, spec] of Object.entries(specs)) options[name] = spec.short ? { type: spec.type, short: spec.short } : { type: spec.type };
  const { tokens } = parseArgs({ args: [...args], options, strict: false, allowPositionals: true, tokens: true });
  const values = new Map<string, string | true>();
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === "positional") {
      positionals.push(token.value);
      continue;
    }
    if (token.kind === "option-terminator") continue;
    const spec = Object.hasOwn(specs, token.name) ? specs[token.name] : undefined;
    const raw = token.rawName;
    if (!spec) throw new UsageError(`unknown option ${quote(raw)}${suggestion(raw, specs)}`);
    if (spec.type === "boolean") {
      if (token.value !== undefined) throw new UsageError(`${raw} takes no value (given ${quote(`${raw}=${token.value}`)})`);
      values.set(token.name, true);
      continue;
    }
    const value = token.value;
    const choices = spec.choices ? ` (${spec.choices.join(" or ")})` : "";
    if (value === undefined) throw new UsageError(`${raw} needs a value${choices}`);
    // `--format --fix` is a forgotten value, not a format named "--fix".
    if (!token.inlineValue && value.startsWith("-") && value !== "-")
      throw new UsageError(
        `${raw} needs a value${choices}, but the next word is the option ${quote(value)}; write ${raw}=${value} for a value that starts with "-"`,
      );
    if (spec.choices && !spec.choices.includes(value)) throw new UsageError(`${raw} must be ${spec.choices.join(" or ")}, not ${quote(value)}`);
    values.set(token.name, value);
  }
  return { values, positionals };
}

/**
 * The value of a whole-number option (`--limit`, `--depth`, `--threads`), or undefined when it is
 * not one: digits only, since `Number` reads "" as 0 and takes spaces, hex and exponents.
 */
export function wholeNumber(text: string): number | undefined {
  if (!/^[0-9]+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** A word from the command line, quoted and with its control characters escaped. */
export function quote(word: string): string {
  const shown = word.length > 80 ? `${word.slice(0, 80)}…` : word;
  return `"${escapeControls(shown)}"`;
}

function suggestion(raw: string, specs: OptionSpecs): string {
  if (!raw.startsWith("--")) return "";
  const near = closest(raw.slice(2).split("=")[0]!, Object.keys(specs));
  return near ? ` (did you mean --${near}?)` : "";
}

/** The candidate nearest to `word` by edit distance, if it is near enough to be a typo. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  if (word.length > 40) return undefined;
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = editDistance(word.toLowerCase(), candidate);
    if (d < bestDistance || (candidate.startsWith(word) && word.length >= 3)) {
      best = candidate;
      bestDistance = Math.min(d, bestDistance);
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    previous = row;
  }
  return previous[b.length]!;
}
