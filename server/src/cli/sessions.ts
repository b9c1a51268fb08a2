/**
 * `pi-session-lsp sessions`: Pi's sessions of a project (or of every project), newest first, as
 * `/resume` shows them, from the folder Pi itself would use.
 *
 * The folder comes from `core/disk/location.ts` (flags, environment and settings as Pi reads
 * them), the files are read on every core by the scan pool, and the list is Pi's `list(cwd, dir)`
 * or `listAll(dir)`: `--json` prints exactly the `SessionInfo` objects Pi returns (without
 * `allMessagesText`) next to what this tool adds, and the text output is `/resume`'s threaded view
 * with the id, message count, branches, size, date and origin of each session.
 */

import { looseText, shortValue } from "../core/base/text";
import { existsSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { basename, resolve } from "node:path";
import { formatAge, infoJson, type ListedSession, resumeKeyThrows, threadSessions } from "../core/disk/list";
import { encodeCwd } from "../core/disk/location";
import { probeHeader } from "../io/scanFile";
import { type Listing, listSessions } from "../io/sessionQuery";
import { pathKey } from "../io/sessionStore";
import { type OptionSpecs, quote, readCommandLine } from "./commandLine";
import { type CliIo, Progress } from "./io";
import type { CheckVerdict } from "./checkVerdict";
import { checkSessions, verdictJson, verdictMark, verdictNotes } from "./sessionVerdicts";
import { printLargest } from "./sessionsLargest";
import { escapeControls, jsonLine } from "./terminal";
import { describeSource, formatBytes, formatDateTime, oneLine, oneLineTail, padEnd, padStart, terminalWidth, tildePath } from "./sessionOutput";

export const SESSIONS_USAGE = `Usage: pi-session-lsp sessions [--cwd DIR | --all] [--session-dir DIR] [--pi 1.x|0.74] [--check | --largest] [--json] [--limit N]

Lists Pi's sessions, newest first and forks under their origin, as Pi's /resume shows them: those
of the project in DIR (default: the current folder), or with --all those of every project. The
folder is the one Pi would use: --session-dir, else $PI_CODING_AGENT_SESSION_DIR, else sessionDir
in <agent>/settings.json or DIR/.pi/settings.json, else <agent>/sessions/--<DIR>--/, where <agent>
is $PI_CODING_AGENT_DIR or ~/.pi/agent.
  --pi 1.x|0.74   whose rules to follow (default 1.x)
  --json          {location, sessions, details, omitted}: "sessions" is exactly what Pi's
                  SessionManager.list (or listAll) returns, without allMessagesText; an
                  "omitted" file with "piFails" is one Pi's list hangs or dies on
  --check         also check each session listed, as \`check FILE\` does (on every core; it
                  builds each session's context and provider request, so it takes longer), and
                  mark it: "✗ cannot resume" (the walk up from its leaf loops), "✗ Pi 1.x
                  refuses it" (Pi 1.x does not open the file), "! next request fails: CODE" (Pi
                  resumes it, but the provider refuses every prompt or Pi throws before sending
                  it; CODE is the first such error), "N errors" (other errors), nothing when
                  check finds no error. --json adds to each session's details "check": {errors,
                  warnings, requestFails?, refused?} (check's verdict is Pi 1.x's, as check's is)
  --largest       list the largest sessions first, with what takes their space: the base64
                  data of inline images, tool output, and the rest (what is worth slimming);
                  --json gives {largest: [{path, id, size, images, toolResults, other}]}
  --limit N       print at most N sessions (default 200, with --largest 20; 0 prints all);
                  only those are checked or measured`;

const OPTIONS: OptionSpecs = {
  cwd: { type: "string" },
  all: { type: "boolean" },
  "session-dir": { type: "string" },
  json: { type: "boolean" },
  check: { type: "boolean" },
  largest: { type: "boolean" },
  limit: { type: "string", whole: {} },
};

export async function runSessions(args: readonly string[], io: CliIo): Promise<number> {
  const line = readCommandLine(args, io, {
    name: "sessions",
    usage: SESSIONS_USAGE,
    options: OPTIONS,
    pi: true,
    check: (values, positionals) =>
      positionals.length > 0
        ? `unexpected argument ${quote(positionals[0]!)}`
        : values.all && values.cwd !== undefined
          ? "--cwd and --all cannot be combined"
          : values.check && values.largest
            ? "--check and --largest cannot be combined"
            : undefined,
  });
  if (typeof line === "number") return line;
  const { values, version } = line;
  const limit = values.limit === undefined ? (values.largest ? 20 : 200) : Number(values.limit);

  const progress = new Progress("reading sessions");
  let listing: Listing;
  try {
    listing = await listSessions({
      version,
      cwd: values.cwd as string | undefined,
      sessionDir: values["session-dir"] as string | undefined,
      scope: values.all ? "all" : "current",
      pool: { onProgress: (p) => progress.update(p) },
    });
  } finally {
    progress.done();
  }
  if (listing.location.problem) io.err(`pi-session-lsp sessions: ${listing.location.problem}\n`);
  if (values.largest) return printLargest(listing, limit, values.json === true, io);
  // The text lists the first `limit` rows, so only they are checked; --json has every session.
  const checked = values.check
    ? await checkListed(
        values.json || limit === 0
          ? listing.sessions
          : listedRows(listing)
              .slice(0, limit)
              .map((r) => r.session.listed),
        values["session-dir"] as string | undefined,
        io.cwd ?? process.cwd(),
      )
    : undefined;
  if (values.json) {
    io.out(jsonLine(listingJson(listing, checked)));
    return 0;
  }
  io.out(renderListing(listing, { limit, width: terminalWidth(), now: Date.now(), home: homedir(), checked }));
  return 0;
}

/** `check`'s verdict on each of `sessions`, by session. */
async function checkListed(sessions: readonly ListedSession[], sessionDir: string | undefined, cwd: string): Promise<Map<ListedSession, CheckVerdict>> {
  const verdicts = await checkSessions(sessions, sessionDir, cwd);
  return new Map(sessions.map((s, i) => [s, verdicts[i]!] as const));
}

/** The rows of the text listing, forks under their origin, as `/resume` threads them. */
function listedRows(listing: Listing) {
  const keyOf = (path: string) => pathKey(path, listing.process.cwd);
  return threadSessions(
    listing.sessions.map((s) => ({ ...s.info, listed: s })),
    keyOf,
  );
}

/** The `--json` document; `sessions` equals Pi's list element for element. */
export function listingJson(listing: Listing, checked?: ReadonlyMap<ListedSession, CheckVerdict>): Record<string, unknown> {
  const { location } = listing;
  return {
    pi: location.version,
    cwd: listing.process.cwd,
    scope: listing.scope,
    location: {
      source: location.source,
      ...(location.settingsScope ? { settingsScope: location.settingsScope } : {}),
      currentDir: location.currentDir,
      projectDir: location.projectDir,
      sessionsRoot: location.sessionsRoot,
      filterByCwd: location.filterByCwd,
      all: location.all,
      settings: location.settings,
      ...(location.problem ? { problem: location.problem } : {}),
    },
    sessions: listing.sessions.map((s) => infoJson(s.info)),
    details: listing.sessions.map((s) => ({
      path: s.info.path,
      size: s.size,
      entries: s.entries,
      branches: s.branches,
      ...(s.unreadLines > 0 ? { unreadLines: s.unreadLines } : {}),
      ...(s.leafLoops ? { cannotResume: "the walk up from the leaf runs into a parent cycle" } : {}),
      ...(checked?.has(s) ? { check: verdictJson(checked.get(s)!) } : {}),
    })),
    omitted: listing.omitted,
    ...(resumeThrows(listing) ? { resumeThrows: resumeThrows(listing)!.info.path } : {}),
    ...(listing.otherProjects > 0 ? { otherProjects: listing.otherProjects } : {}),
  };
}

/** The mark of a session Pi cannot resume, before its title. */
const CANNOT_RESUME = "✗ ";

interface RenderOptions {
  limit: number;
  width: number;
  now: number;
  home: string;
  /** With `--check`, `check`'s verdict on each session checked. */
  checked?: ReadonlyMap<ListedSession, CheckVerdict> | undefined;
}

/** The text listing: a heading saying where Pi looks, one row per session, then what Pi leaves out. */
export function renderListing(listing: Listing, options: RenderOptions): string {
  const { location } = listing;
  const home = options.home;
  const lines: string[] = [];
  const where =
    listing.scope === "all" && location.all.kind === "projects"
      ? `every project under ${tildePath(location.all.root, home)}`
      : tildePath(location.currentDir || "(empty folder name)", home);
  const count = `${listing.sessions.length} session${listing.sessions.length === 1 ? "" : "s"}`;
  lines.push(
    listing.scope === "all"
      ? `Pi ${location.version} lists ${count} in ${escapeControls(where)}`
      : `Pi ${location.version} lists ${count} for ${escapeControls(tildePath(listing.process.cwd, home))}`,
  );
  if (listing.scope === "current") lines.push(`from ${escapeControls(where)} (${describeSource(location)})`);
  const throwing = resumeThrows(listing);
  if (throwing) {
    // The list is loaded with a progress callback that draws the threaded view; the callback's
    // TypeError rejects the loading inside `listSessionsFromDir` (or `listAll`), whose `catch`
    // returns [] (core/session-manager.js:604-627), so `/resume` shows none of these sessions.
    lines.push(
      `warning: Pi 1.6's /resume shows no sessions here (${listing.scope === "all" ? 'its All tab says "No sessions found"' : '"No sessions in current folder"'}): the header of ${escapeControls(tildePath(throwing.info.path, home))} has a parentSession that is not a path (${oneLine(shortValue(throwing.info.parentSessionPath), 40)}), on which its threaded view throws a TypeError while the list loads, and the loading then comes back empty. \`pi --session ID\` still opens each session.`,
    );
  }
  // A file Pi's list hangs or dies on is not left out: /resume shows nothing at all.
  for (const o of listing.omitted.filter((o) => o.piFails !== undefined).slice(0, 10))
    lines.push(`warning: ${escapeControls(tildePath(o.path, home))}: ${escapeControls(o.piFails!)}. Move it out of the folder.`);
  lines.push("");

  const keyOf = (path: string) => pathKey(path, listing.process.cwd);
  const rows = listedRows(listing);
  const byKey = new Map(listing.sessions.map((s) => [keyOf(s.info.path), s] as const));
  const shown = options.limit === 0 ? rows : rows.slice(0, options.limit);
  if (shown.length > 0) {
    const showCwd = listing.scope === "all";
    const head = `${padEnd("ID", 8)}  ${padEnd("MODIFIED", 21)}  ${padStart("MSGS", 5)}  ${padStart("BRANCHES", 8)}  ${padStart("SIZE", 8)}  ${showCwd ? `${padEnd("CWD", 24)}  ` : ""}NAME OR FIRST MESSAGE`;
    lines.push(head);
    const fixed = head.length - "NAME OR FIRST MESSAGE".length;
    for (const row of shown) {
      const s = row.session.listed;
      const info = s.info;
      const id = oneLine(typeof info.id === "string" ? info.id.slice(0, 8) : looseText(info.id), 8);
      const when = `${formatDateTime(info.modified)} ${padStart(formatAge(info.modified, options.now), 4)}`;
      const cwd = showCwd ? `${padEnd(oneLineTail(tildePath(info.cwd, home), 24), 24)}  ` : "";
      const origin = forkedFrom(s, byKey, home, listing.process.cwd);
      const prefix = boundedPrefix(row.prefix, row.depth);
      const room = Math.max(16, options.width - fixed - prefix.length - (origin ? origin.length + 2 : 0));
      const mark = options.checked ? verdictMark(s, options.checked.get(s)) : s.leafLoops ? CANNOT_RESUME : "";
      const title = oneLine(info.name ?? info.firstMessage, room - mark.length);
      lines.push(
        `${padEnd(id, 8)}  ${padEnd(when, 21)}  ${padStart(String(info.messageCount), 5)}  ${padStart(String(s.branches), 8)}  ${padStart(formatBytes(s.size), 8)}  ${cwd}${prefix}${mark}${title}${origin ? `  ${origin}` : ""}`,
      );
    }
    if (shown.length < rows.length) lines.push(`… ${rows.length - shown.length} more (--limit 0 lists all)`);
  } else {
    lines.push(listing.scope === "all" ? "No sessions found." : "No sessions in this folder.");
    if (listing.scope === "current") lines.push(...movedHints(listing, home));
  }
  if (listing.otherProjects > 0) {
    lines.push(
      "",
      `${listing.otherProjects} more session${listing.otherProjects === 1 ? "" : "s"} in this folder belong${listing.otherProjects === 1 ? "s" : ""} to other projects; Pi 1.x lists only this project's.`,
    );
  }
  const looping = listing.sessions.filter((s) => s.leafLoops).length;
  if (looping > 0)
    lines.push(
      "",
      `${CANNOT_RESUME}${looping === 1 ? "1 session Pi cannot resume" : `${looping} sessions Pi cannot resume`}: the walk up from the leaf runs into a parent cycle (Pi 1.x fails with "RangeError: Invalid array length", 0.73/0.74 hangs). \`pi-session-lsp check ID\` shows the cycle; \`pi-session-lsp resume-from ID ENTRY\` with an entry above it makes the session resumable again.`,
    );
  if (listing.sessions.length > 0) lines.push(...verdictNotes(options.checked, listing.sessions.length));
  const unread = listing.sessions.filter((s) => s.unreadLines > 0);
  for (const s of unread)
    lines.push(`note: ${escapeControls(tildePath(s.info.path, home))} has ${s.unreadLines} line(s) too long to read here; Pi's numbers for it may differ.`);
  const left = listing.omitted.filter((o) => o.piFails === undefined);
  if (left.length > 0) {
    lines.push("", `${left.length} file${left.length === 1 ? "" : "s"} Pi leaves out of its list:`);
    for (const o of left.slice(0, 50)) lines.push(`  ${escapeControls(tildePath(o.path, home))}: ${escapeControls(o.reason)}`);
    if (left.length > 50) lines.push(`  … ${left.length - 50} more (--json lists all)`);
  }
  return `${lines.join("\n")}\n`;
}

/** Widest tree prefix printed before a title, in columns (each level of forks takes 3). */
const MAX_PREFIX = 24;

/**
 * The tree prefix of a row, kept to `MAX_PREFIX` columns. `/resume` draws three columns per level
 * of forks and then cuts the whole line to the terminal's width (`truncateToWidth`), so in a deep
 * chain of forks it shows prefix and no title; here the levels beyond the last few become
 * "…(depth N) ", so that a line stays about a screen wide however deep the chain, and the title shows.
 */
export function boundedPrefix(prefix: string, depth: number): string {
  if (prefix.length <= MAX_PREFIX) return prefix;
  const marker = `…(depth ${depth}) `;
  return `${marker}${prefix.slice(-(MAX_PREFIX - marker.length))}`;
}

/** Pi 1.x only: the first listed session whose `parentSession` makes `/resume` throw (and so list nothing). */
export function resumeThrows(listing: Listing): ListedSession | undefined {
  if (listing.location.version !== "1.x") return undefined;
  const exists = (path: string) => existsSync(resolve(listing.process.cwd, path));
  return listing.sessions.find((s) => resumeKeyThrows(s.info.parentSessionPath, exists));
}

/** `forked from <id>` for a session with a `parentSession` (relative to Pi's cwd, `piCwd`), naming the parent file when it is not in the list. */
function forkedFrom(s: ListedSession, byKey: Map<string, ListedSession>, home: string, piCwd: string): string | undefined {
  const parent = s.info.parentSessionPath;
  if (parent === undefined || parent === null || parent === "") return undefined;
  if (typeof parent !== "string") return `(parentSession is not a path: ${oneLine(shortValue(parent), 40)})`;
  const listed = byKey.get(pathKey(parent, piCwd));
  if (listed) return `forked from ${oneLine(looseText(listed.info.id).slice(0, 8), 8)}`;
  // A relative path names the file from Pi's cwd, as `/resume` reads it.
  const file = resolve(piCwd, parent);
  if (!existsSync(file)) return `forked from ${oneLine(tildePath(parent, home), 60)} (missing)`;
  const probe = probeHeader(file, Number.POSITIVE_INFINITY);
  const id = probe.header ? probe.header.id.slice(0, 8) : basename(parent);
  // The folder is cut to one line on its own: `oneLine` trims, and would take the space before "in".
  const cwd = typeof probe.header?.cwd === "string" ? ` in ${oneLine(tildePath(probe.header.cwd, home), 57)}` : "";
  return `forked from ${oneLine(id, 8)}${cwd}`;
}

/**
 * When a project has no sessions, the project folders under Pi's sessions folder whose name ends
 * like this project's: where its sessions probably are if the project was moved or renamed.
 */
function movedHints(listing: Listing, home: string): string[] {
  const { location, process: p } = listing;
  if (location.source !== "default") return [];
  const tail = encodeCwd(location.version, `/${basename(p.cwd)}`, p).slice(2);
  let names: string[] = [];
  try {
    names = readdirSync(location.sessionsRoot).filter((n) => n.endsWith(tail) && n !== basename(location.projectDir));
  } catch {
    return [];
  }
  if (names.length === 0) return [];
  return [
    "",
    "If the project was moved or renamed, its sessions may be in:",
    ...names.slice(0, 10).map((n) => `  ${escapeControls(tildePath(`${location.sessionsRoot}/${n}`, home))}`),
    `Pi looks only in ${escapeControls(tildePath(location.projectDir, home))}; \`pi-session-lsp sessions --all\` lists every project.`,
  ];
}
