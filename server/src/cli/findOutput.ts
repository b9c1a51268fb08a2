/**
 * What `find` prints: its answer as JSON or as text, and what it says of a search that gave up.
 * Loaded by `find.ts` once the answer is there, so that the search's worker starts, and the search
 * runs, before this module and the list's code are loaded.
 */

import { homedir } from "node:os";
import { looseText } from "../core/base/text";
import { infoJson, type ListedSession } from "../core/disk/list";
import { REGEX_TEST_TIMEOUT_MS } from "../io/boundedRegex";
import type { FindResult } from "../io/sessionFind";
import { formatDateTime, oneLine, terminalWidth, tildePath } from "./sessionOutput";
import { escapeControls, jsonLine } from "./terminal";

/** What `find` says on stderr when a `re:` search gave up on files (see `io/boundedRegex.ts`). */
export function gaveUpMessage({ timedOut, skipped }: NonNullable<FindResult["searchGaveUp"]>): string {
  // The session a test ran out on is not listed when it matched anyway (a field tested earlier did).
  const files =
    timedOut.length === 0
      ? "a session"
      : timedOut.slice(0, 3).map(escapeControls).join(", ") + (timedOut.length > 3 ? `, and ${timedOut.length - 3} more` : "");
  return `pi-session-lsp find: the regular expression ran for more than ${REGEX_TEST_TIMEOUT_MS / 1000} s on ${files} and was given up (it backtracks without end: Pi's /resume search hangs on it)${skipped.length > 0 ? `; ${skipped.length} more session${skipped.length === 1 ? " was" : "s were"} not searched` : ""}\n`;
}

/** The answer as `find` prints it: one line of JSON, or the text for a terminal. */
export function findText(result: FindResult, json: boolean): string {
  return json ? jsonLine(findJson(result)) : renderFind(result, terminalWidth(), homedir());
}

export function findJson(result: FindResult): Record<string, unknown> {
  const { resolution } = result;
  return {
    pi: result.location.version,
    cwd: result.process.cwd,
    arg: result.arg,
    opens: resolution,
    ...(result.opens ? { session: infoJson(result.opens.info) } : {}),
    candidates: result.candidates.map((c) => ({
      ...infoJson(c.session.info),
      scope: c.scope,
      rank: c.rank,
      exact: c.exact,
      opened: c.session.info.path === result.opens?.info.path,
    })),
    ...(result.text ? { text: result.text.map((s) => ({ ...infoJson(s.info), match: s.search })) } : {}),
    read: result.read,
    ...(result.missingCwd !== undefined ? { missingCwd: result.missingCwd } : {}),
    ...(result.pathState ? { pathState: result.pathState } : {}),
    ...(result.searchGaveUp ? { searchGaveUp: result.searchGaveUp } : {}),
  };
}

function describe(s: ListedSession, width: number, home: string): string {
  const info = s.info;
  const title = info.name ?? info.firstMessage;
  return `${oneLine(looseText(info.id), 36)}  ${formatDateTime(info.modified)}  ${oneLine(tildePath(info.cwd, home), 30)}  ${oneLine(title, Math.max(20, width - 96))}`;
}

/** Why Pi opened the session it opened, in words. */
function why(result: FindResult): string {
  const r = result.resolution;
  const arg = escapeControls(result.arg);
  const local = result.candidates.filter((c) => c.scope === "local").length;
  const all = result.candidates.length;
  switch (r.kind) {
    case "path":
      return "ARG is a path (it contains a slash or ends in .jsonl)";
    case "local":
      if (r.how === "exact") return "its id is exactly ARG and it belongs to this project";
      return local > 1
        ? `it is the newest of ${local} sessions of this project whose id starts with ${arg}; Pi takes the first of its list and does not say the prefix is ambiguous`
        : `it is the only session of this project whose id starts with ${arg}`;
    case "global": {
      const how =
        r.how === "exact"
          ? "its id is exactly ARG"
          : all > 1
            ? `it is the newest of ${all} sessions whose id starts with ${arg} (none is this project's)`
            : `its id starts with ${arg}`;
      return `${how}, in another project (${escapeControls(r.cwd)}): Pi asks "Fork this session into current directory?" and opens a fork of it`;
    }
    default:
      return "";
  }
}

/**
 * The argument as a shell word, so that the command line shown is the one to type: an argument
 * with spaces (at its ends too, which Pi keeps: `" 019d"` matches no id) or shell characters is
 * put in single quotes.
 */
function shellWord(arg: string): string {
  return /^[A-Za-z0-9._/~:@%+=,-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`;
}

export function renderFind(result: FindResult, width: number, home: string): string {
  const lines: string[] = [];
  const r = result.resolution;
  const where = escapeControls(tildePath(result.process.cwd, home));
  lines.push(`pi --session ${oneLine(shellWord(result.arg), 60)} (Pi ${result.location.version}, in ${where}):`);
  // Pi quotes the argument as it got it, spaces at its ends included, so it is not flattened here.
  if (r.kind === "not-found")
    lines.push(
      `  opens nothing: "No session found matching '${escapeControls([...result.arg].length > 60 ? `${[...result.arg].slice(0, 59).join("")}…` : result.arg)}'"`,
    );
  else if (r.kind === "throws") lines.push(`  stops with ${escapeControls(r.error)} (a listed session's id is not a string)`);
  else if (result.pathState?.kind === "stops") {
    lines.push(`  opens nothing: Pi stops with "Error: ${escapeControls(tildePath(result.pathState.error, home))}" and exits 1`);
  } else if (result.pathState) {
    const path = escapeControls(tildePath(r.path, home));
    lines.push(
      result.pathState.kind === "missing"
        ? `  opens a new session, to be written to ${path}: there is no such file`
        : `  opens a new session in ${path}: the file is empty, and Pi writes a new header into it`,
    );
  } else {
    lines.push(`  opens ${escapeControls(tildePath(r.path, home))}`);
    if (result.opens) lines.push(`    ${describe(result.opens, width, home)}`);
    lines.push(`  because ${why(result)}.`);
    if (result.opens && r.kind !== "global") {
      const cwd = result.opens.info.cwd;
      if (result.missingCwd !== undefined) {
        lines.push(
          `  note: its header's cwd ${escapeControls(tildePath(result.missingCwd, home))} does not exist, so Pi first asks "Session cwd does not exist" (continue here, fork here, or cancel); without a terminal (-p, --mode json or rpc) it stops with "Stored session working directory does not exist".`,
        );
      } else if (cwd && cwd !== result.process.cwd) lines.push(`  note: its header's cwd is ${escapeControls(tildePath(cwd, home))}, not this folder.`);
    }
  }
  const others = result.candidates.filter((c) => c.session.info.path !== result.opens?.info.path);
  if (others.length > 0) {
    lines.push("", `Other sessions whose id starts with ${escapeControls(oneLine(result.arg, 40))}:`);
    for (const c of others.slice(0, 50)) {
      const reason =
        c.scope === "local"
          ? c.exact
            ? "this project, exact id"
            : `this project, #${c.rank} newest`
          : `another project; Pi looks there only when this project has no match`;
      lines.push(`  ${describe(c.session, width, home)}  (${reason})`);
    }
    if (others.length > 50) lines.push(`  … ${others.length - 50} more (--json lists all)`);
    if (result.location.version === "1.x" && r.kind !== "not-found") lines.push("  A full id always opens exactly that session.");
  }
  if (result.text) {
    const gaveUp = result.searchGaveUp ? result.searchGaveUp.timedOut.length + result.searchGaveUp.skipped.length : 0;
    lines.push(
      "",
      result.text.length === 0
        ? `No session's name or messages match it${gaveUp > 0 ? ` of those searched; ${gaveUp} could not be searched (see the message above)` : ""}.`
        : `Sessions whose name or messages match it (${result.text.length}, best first${gaveUp > 0 ? `; ${gaveUp} could not be searched` : ""}):`,
    );
    for (const s of result.text.slice(0, 30)) lines.push(`  ${describe(s, width, home)}  (${s.search!.fields.join(", ")})`, ...hitLines(s, width, home));
    if (result.text.length > 30) lines.push(`  … ${result.text.length - 30} more (--json lists all)`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Under a text match: the session's file, and the first message that holds the text (its line,
 * entry id and role, and the match in a clipped snippet), so that `tree`, `context --leaf` or an
 * editor can go straight there. Both are session text, escaped and clipped to one line.
 */
function hitLines(s: ListedSession, width: number, home: string): string[] {
  const lines = [`      ${oneLine(tildePath(s.info.path, home), Math.max(40, width - 6))}`];
  const hit = s.search?.entry;
  if (!hit) return lines;
  const id = hit.id === undefined ? "" : `, entry ${oneLine(hit.id, 24)}`;
  const where = `line ${hit.line}${id}, ${oneLine(hit.role, 12)}: `;
  lines.push(`      ${where}${oneLine(hit.snippet, Math.max(30, width - 6 - where.length))}`);
  return lines;
}
