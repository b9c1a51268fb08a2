/**
 * The command line of every command, read one way: `node:util`'s `parseArgs` (`--opt value`,
 * `--opt=value`, short flags, `--` before words that start with a dash), strict about unknown
 * options, `--help` answered, the command's own checks of its words, and `--pi 1.x|0.74` read.
 *
 * `parseArgs` runs non-strict with tokens, and this module does the strict checks on the tokens
 * itself: its messages are stable and say what to do (Node's differ between versions and do not
 * suggest the option that was meant). A usage error echoes words of the command line, which can
 * hold an ESC or be megabytes long, so every word is quoted and clipped, and the message escaped
 * and clipped again, for every command at once.
 */

import { parseArgs } from "node:util";
import { clip } from "../core/base/text";
import type { CliIo } from "./io";
import { escapeControls } from "./terminal";

export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  /** For string options: the values accepted (`--format text|json`). */
  choices?: readonly string[];
  /** For string options: the value is a whole number (digits only), at least `min`, of `unit` when named. */
  whole?: { min?: number; unit?: string };
}

export type OptionSpecs = Record<string, OptionSpec>;

/** The last value of each string option given, and `true` for each boolean option given. */
export type OptionValues = Record<string, string | true | undefined>;

export interface CommandSpec {
  /** The command's name, as typed after `pi-session-lsp`. */
  name: string;
  /** The help `--help` prints. */
  usage: string;
  /** The command's options; `-h, --help` is every command's and need not be listed. */
  options: OptionSpecs;
  /** The command reads `--pi 1.x|0.74` (the option is added here) into `CommandLine.version`. */
  pi?: boolean;
  /** The command's own checks of its options and words: the message of a usage error, or undefined. */
  check?: (values: OptionValues, positionals: readonly string[]) => string | undefined;
}

/** A command's line once read: its options, its words, the Pi version it speaks for ("1.x" unless `--pi` says otherwise). */
export interface CommandLine {
  values: OptionValues;
  positionals: string[];
  version: "1.x" | "0.74";
}

/** The longest usage error message shown, in UTF-16 code units: several times the longest one written. */
const MAX_USAGE_MESSAGE = 400;

const HELP: OptionSpec = { type: "boolean", short: "h" };
const PI: OptionSpec = { type: "string" };

/**
 * Reads a command's line: the options parsed, `--help` answered, the command's own checks, then
 * `--pi`. A number is the exit status to return at once (0 after the help, 2 after a usage error,
 * which is already printed).
 */
export function readCommandLine(args: readonly string[], io: CliIo, command: CommandSpec): CommandLine | number {
  const specs: OptionSpecs = { ...command.options, help: HELP, ...(command.pi ? { pi: PI } : {}) };
  let parsed: { values: OptionValues; positionals: string[] };
  try {
    parsed = parseTokens(args, specs);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return usageError(io, command, error.message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(`${command.usage}\n`);
    return 0;
  }
  // A command given no words was probably run without knowing how: it is shown its usage.
  const wrong = command.check?.(values, positionals);
  if (wrong !== undefined) return usageError(io, command, wrong, positionals.length === 0);
  const version = command.pi ? piVersionOf(values.pi) : "1.x";
  if (!version) return usageError(io, command, `--pi must be 1.x or 0.74, not ${quote(String(values.pi))}`);
  return { values, positionals, version };
}

/**
 * A usage error: the message on stderr, then the command's usage when `withUsage`, else where to
 * find it; exit status 2.
 */
export function usageError(io: CliIo, command: Pick<CommandSpec, "name" | "usage">, message: string, withUsage = false): number {
  const after = withUsage ? command.usage : `Run "pi-session-lsp ${command.name} --help" for the options.`;
  io.err(`pi-session-lsp ${command.name}: ${escapeControls(clip(message, MAX_USAGE_MESSAGE))}\n${after}\n`);
  return 2;
}

/** The check of a command that reads one file. */
export function oneFile(_values: OptionValues, positionals: readonly string[]): string | undefined {
  return positionals.length === 1 ? undefined : positionals.length === 0 ? "no file given" : "give one file";
}

/** `--pi 1.x|0.74` (also `1`, `0.73`). */
function piVersionOf(value: string | true | undefined): "1.x" | "0.74" | undefined {
  if (value === undefined || value === "1.x" || value === "1") return "1.x";
  if (value === "0.74" || value === "0.73") return "0.74";
  return undefined;
}

class UsageError extends Error {}

function parseTokens(args: readonly string[], specs: OptionSpecs): { values: OptionValues; positionals: string[] } {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {};
  for (const [name, spec] of Object.entries(specs)) options[name] = spec.short ? { type: spec.type, short: spec.short } : { type: spec.type };
  const { tokens } = parseArgs({ args: [...args], options, strict: false, allowPositionals: true, tokens: true });
  // No prototype: an option named "constructor" or "__proto__" is an unknown option, never an inherited value.
  const values: OptionValues = Object.create(null);
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === "positional") positionals.push(token.value);
    if (token.kind !== "option") continue;
    const spec = Object.hasOwn(specs, token.name) ? specs[token.name] : undefined;
    const raw = token.rawName;
    if (!spec) throw new UsageError(`unknown option ${quote(raw)}${suggestion(raw, specs)}`);
    if (spec.type === "boolean") {
      if (token.value !== undefined) throw new UsageError(`${raw} takes no value (given ${quote(`${raw}=${token.value}`)})`);
      values[token.name] = true;
      continue;
    }
    values[token.name] = optionValue(raw, spec, token.value, token.inlineValue === true);
  }
  return { values, positionals };
}

/** The value of a string option, checked against its spec. */
function optionValue(raw: string, spec: OptionSpec, value: string | undefined, inline: boolean): string {
  const choices = spec.choices ? ` (${spec.choices.join(" or ")})` : "";
  if (value === undefined) throw new UsageError(`${raw} needs a value${choices}`);
  // `--format --fix` is a forgotten value, not a format named "--fix".
  if (!inline && value.startsWith("-") && value !== "-")
    throw new UsageError(
      `${raw} needs a value${choices}, but the next word is the option ${quote(value)}; write ${raw}=${value} for a value that starts with "-"`,
    );
  if (spec.choices && !spec.choices.includes(value)) throw new UsageError(`${raw} must be ${spec.choices.join(" or ")}, not ${quote(value)}`);
  if (spec.whole) {
    const { min = 0, unit } = spec.whole;
    const n = wholeNumber(value);
    if (n === undefined || n < min)
      throw new UsageError(`${raw} takes a whole number${unit ? ` of ${unit}` : ""}${min > 0 ? `, ${min} or more` : ""}, not ${quote(value)}`);
  }
  return value;
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

/** A word from the command line, quoted, clipped to 80 characters and with its control characters escaped. */
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
