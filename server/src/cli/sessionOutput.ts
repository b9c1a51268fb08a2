/**
 * Output helpers of the session commands (`sessions`, `find`, `tree`, `info`): untrusted session
 * text as one terminal line clipped to a display width (control characters escaped by
 * `terminal.ts`), sizes and dates for people, option parsing with `parseArgs`, and a progress line
 * on stderr that appears only when stderr is a terminal, so pipes and logs never see it.
 */

import { parseArgs, type ParseArgsConfig } from "node:util";
import type { CliIo } from "./check";
import { clip } from "../core/base/text";
import { escapeControls } from "./terminal";

/** The longest usage error message shown, in UTF-16 code units: several times the longest one written. */
const MAX_USAGE_MESSAGE = 400;

/** Control characters made visible, as every command prints untrusted text (`terminal.ts`). */
export { escapeControls };

/** Display columns of one code point: 2 for East Asian wide and emoji ranges, 0 for combining marks, else 1. */
function columnsOf(code: number): number {
  if ((code >= 0x300 && code <= 0x36f) || (code >= 0x200b && code <= 0x200d) || code === 0xfe0f) return 0;
  if (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1faff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}

export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += columnsOf(ch.codePointAt(0)!);
  return width;
}

/**
 * Free text as one terminal line: whitespace runs collapsed, controls escaped, at most `width`
 * columns (an ellipsis marks a cut). Looks at a bounded prefix, so a 100 MB message costs nothing.
 */
export function oneLine(text: string, width: number): string {
  const sample = text.length > width * 8 + 64 ? text.slice(0, width * 8 + 64) : text;
  const flat = escapeControls(sample.replace(/\s+/g, " ")).trim();
  let out = "";
  let used = 0;
  let fits = "";
  for (const ch of flat) {
    const w = columnsOf(ch.codePointAt(0)!);
    if (used + w > width) return `${fits}…`;
    out += ch;
    used += w;
    if (used <= width - 1) fits = out;
  }
  return sample.length < text.length ? `${fits}…` : out;
}

/**
 * A path as one terminal line of at most `width` columns, cut at its start when it is longer: the
 * end of a project's folder (its name) says the most, `…/work/alpha`. Bounded like `oneLine`.
 */
export function oneLineTail(text: string, width: number): string {
  const sample = text.length > width * 8 + 64 ? text.slice(-(width * 8 + 64)) : text;
  const chars = [...escapeControls(sample.replace(/\s+/g, " ")).trim()];
  let used = 0;
  let start = chars.length;
  while (start > 0 && used + columnsOf(chars[start - 1]!.codePointAt(0)!) <= width) used += columnsOf(chars[--start]!.codePointAt(0)!);
  if (start === 0 && sample.length === text.length) return chars.join("");
  // Room for the ellipsis: drop characters from the start until it fits.
  while (start < chars.length && used + 1 > width) used -= columnsOf(chars[start++]!.codePointAt(0)!);
  return `…${chars.slice(start).join("")}`;
}

/** Cuts text (already one line, controls escaped) to `width` columns, marking a cut with an ellipsis. */
export function clipColumns(text: string, width: number): string {
  if (text.length <= width) return text;
  let out = "";
  let used = 0;
  for (const ch of text) {
    const w = columnsOf(ch.codePointAt(0)!);
    if (used + w > width - 1) return `${out}…`;
    out += ch;
    used += w;
  }
  return out;
}

/** Pads (or cuts) to exactly `width` columns. */
export function padEnd(text: string, width: number): string {
  const w = displayWidth(text);
  return w >= width ? text : text + " ".repeat(width - w);
}

export function padStart(text: string, width: number): string {
  const w = displayWidth(text);
  return w >= width ? text : " ".repeat(width - w) + text;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

/** A local date and time to the minute, "2026-03-02 10:00"; "?" for an invalid date. */
export function formatDateTime(time: number): string {
  if (!Number.isFinite(time) || Math.abs(time) > 8.64e15) return "?";
  const d = new Date(time);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** The terminal's width, or 160 columns for a pipe. */
export function terminalWidth(): number {
  const columns = process.stdout.isTTY ? process.stdout.columns : undefined;
  return Math.max(40, Math.min(columns ?? 160, 240));
}

/**
 * A progress line on stderr, redrawn at most ten times a second and erased at the end. Nothing is
 * written unless stderr is a terminal.
 */
export class Progress {
  private last = 0;
  private shown = false;
  private readonly enabled: boolean;

  constructor(
    private readonly label: string,
    stream: NodeJS.WriteStream = process.stderr,
  ) {
    this.enabled = stream.isTTY === true;
    this.stream = stream;
  }

  private readonly stream: NodeJS.WriteStream;

  update(p: { files: number; totalFiles: number; bytes: number; totalBytes: number }): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (now - this.last < 100 && p.files < p.totalFiles) return;
    this.last = now;
    this.shown = true;
    this.stream.write(`\r\x1b[2K${this.label}: ${p.files}/${p.totalFiles} files, ${formatBytes(p.bytes)} of ${formatBytes(p.totalBytes)}`);
  }

  done(): void {
    if (this.enabled && this.shown) this.stream.write("\r\x1b[2K");
  }
}

/**
 * A usage error for `command`: the message and the usage text on stderr, exit status 2. The message
 * echoes words of the command line (Node's `parseArgs` quotes an unknown option raw), which can hold
 * an ESC or be megabytes long, so it is escaped and clipped here, for every session command at once.
 */
export function usageError(io: CliIo, command: string, usage: string, message: string): number {
  io.err(`pi-session-lsp ${command}: ${escapeControls(clip(message, MAX_USAGE_MESSAGE))}\n${usage}\n`);
  return 2;
}

/** `parseArgs`, with its errors as a message instead of an exception. */
export function parseOptions<T extends ParseArgsConfig["options"]>(
  args: readonly string[],
  options: T,
): { ok: true; values: Record<string, string | boolean | undefined>; positionals: string[] } | { ok: false; message: string } {
  try {
    const parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
    return { ok: true, values: parsed.values as Record<string, string | boolean | undefined>, positionals: parsed.positionals };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

/** A session command's line once read: its options, its words, the Pi version it speaks for. */
export interface CommandLine {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  version: "1.x" | "0.74";
}

/**
 * The start every session command shares: the options parsed, `--help` answered, the command's own
 * checks of its words (`check` returns the message of a usage error), then `--pi` read. A number is
 * the exit status to return at once.
 */
export function readCommandLine<T extends ParseArgsConfig["options"]>(
  args: readonly string[],
  io: CliIo,
  command: { name: string; usage: string; options: T; check: (values: CommandLine["values"], positionals: string[]) => string | undefined },
): CommandLine | number {
  const { name, usage } = command;
  const parsed = parseOptions(args, command.options);
  if (!parsed.ok) return usageError(io, name, usage, parsed.message);
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(`${usage}\n`);
    return 0;
  }
  const wrong = command.check(values, positionals);
  if (wrong !== undefined) return usageError(io, name, usage, wrong);
  const version = piVersionOf(values.pi);
  if (!version) return usageError(io, name, usage, `--pi must be 1.x or 0.74, not ${JSON.stringify(values.pi)}`);
  return { values, positionals, version };
}

/** The check of a command that reads one file. */
export function oneFile(_values: CommandLine["values"], positionals: string[]): string | undefined {
  return positionals.length === 1 ? undefined : positionals.length === 0 ? "no file given" : "give one file";
}

/** `--pi 1.x|0.74` (also `1`, `0.73`). */
export function piVersionOf(value: string | boolean | undefined): "1.x" | "0.74" | undefined {
  if (value === undefined || value === "1.x" || value === "1") return "1.x";
  if (value === "0.74" || value === "0.73") return "0.74";
  return undefined;
}
