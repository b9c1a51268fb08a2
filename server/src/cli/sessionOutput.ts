/**
 * Output helpers of the session commands (`sessions`, `find`, `tree`, `info`): untrusted session
 * text as one terminal line clipped to a display width (control characters escaped by
 * `terminal.ts`), and sizes and dates for people.
 */

import type { SessionLocation } from "../core/disk/location";
import { escapeControls } from "./terminal";

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

/** A cost in dollars as Pi's footer shows it, "$1.234" (4 decimals under a cent); a sum too large to be a number says so. */
export function formatCost(cost: number): string {
  if (!Number.isFinite(cost)) return "(overflow)";
  return `$${cost.toFixed(cost > 0 && cost < 0.01 ? 4 : 3)}`;
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

/** A path under the home folder written from "~". */
export function tildePath(path: string, home: string): string {
  return home && (path === home || path.startsWith(`${home}/`)) ? `~${path.slice(home.length)}` : path;
}

/** Why Pi reads the folder it reads: the flag, the variable or the settings file that named it, or none. */
export function describeSource(location: SessionLocation): string {
  switch (location.source) {
    case "--session-dir":
      return "from --session-dir";
    case "PI_CODING_AGENT_SESSION_DIR":
      return "from $PI_CODING_AGENT_SESSION_DIR";
    case "settings":
      return `from sessionDir in ${location.settings.find((s) => s.scope === location.settingsScope)?.path ?? "settings"}`;
    default:
      return "the project's default folder";
  }
}
