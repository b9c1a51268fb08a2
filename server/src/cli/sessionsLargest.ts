/**
 * `sessions --largest`: the sessions Pi lists, largest file first, each with what takes its space:
 * the base64 data of inline images, the tool results' other bytes, and the rest. A 2.6 GB session
 * full of screenshots runs Pi out of memory and a 128 MB one takes seconds to resume, so this is the
 * list of what is worth slimming. The files are read as `usage` reads them (`io/usageScan.ts`, on
 * its worker threads), streamed, so the largest file costs time, not memory.
 */

import { homedir } from "node:os";
import { join } from "node:path";
import { looseText } from "../core/base/text";
import type { ListedSession } from "../core/disk/list";
import { runPool } from "../io/scanPool";
import { type FileUsage, scanUsage } from "../io/usageScan";
import type { Listing } from "../io/sessionQuery";
import { type CliIo, Progress } from "./io";
import { formatBytes, oneLine, oneLineTail, padEnd, padStart, terminalWidth, tildePath } from "./sessionOutput";
import { jsonLine } from "./terminal";

const WORKER_SCRIPT = join(__dirname, "usageWorker.js");

export interface LargestRow {
  path: string;
  id: unknown;
  size: number;
  images: number;
  toolResults: number;
  other: number;
  /** Why the file's parts are not known (it could not be read). */
  unread?: string;
}

/** The `limit` largest sessions of the listing (0: all), each read for what takes its space. */
export async function largestSessions(listing: Listing, limit: number): Promise<{ session: ListedSession; row: LargestRow }[]> {
  const sorted = [...listing.sessions].sort((a, b) => b.size - a.size);
  const chosen = limit === 0 ? sorted : sorted.slice(0, limit);
  const progress = new Progress("measuring sessions");
  let scans: FileUsage[];
  try {
    scans = await runPool(
      chosen.map((s) => ({ path: s.info.path, by: "session" as const })),
      { script: WORKER_SCRIPT, here: scanUsage },
      { sizes: chosen.map((s) => s.size), withThisThread: true, onProgress: (p) => progress.update(p) },
    );
  } finally {
    progress.done();
  }
  return chosen.map((session, i) => {
    const scan = scans[i]!;
    const { images, toolResults } = scan.space;
    const row: LargestRow = {
      path: session.info.path,
      id: session.info.id,
      size: session.size,
      images,
      toolResults,
      other: Math.max(0, session.size - images - toolResults),
    };
    // A file Pi opens but this read stopped in (it changed meanwhile) has parts unknown, not zero.
    if (scan.skipped !== undefined && !scan.skipped.startsWith("Pi does not open it")) row.unread = scan.skipped;
    return { session, row };
  });
}

export async function printLargest(listing: Listing, limit: number, json: boolean, io: CliIo): Promise<number> {
  const rows = await largestSessions(listing, limit);
  if (json) {
    io.out(jsonLine({ pi: listing.location.version, cwd: listing.process.cwd, scope: listing.scope, largest: rows.map((r) => r.row) }));
    return 0;
  }
  const home = homedir();
  const width = terminalWidth();
  const showCwd = listing.scope === "all";
  const head = `${padStart("SIZE", 8)}  ${padStart("IMAGES", 8)}  ${padStart("TOOL OUT", 8)}  ${padStart("OTHER", 8)}  ${padEnd("ID", 8)}  ${showCwd ? `${padEnd("CWD", 24)}  ` : ""}NAME OR FIRST MESSAGE`;
  const lines = [head];
  const room = Math.max(16, width - (head.length - "NAME OR FIRST MESSAGE".length));
  for (const { session, row } of rows) {
    const info = session.info;
    const parts = row.unread ? ["?", "?", "?"] : [formatBytes(row.images), formatBytes(row.toolResults), formatBytes(row.other)];
    const cwd = showCwd ? `${padEnd(oneLineTail(tildePath(looseText(info.cwd), home), 24), 24)}  ` : "";
    lines.push(
      `${padStart(formatBytes(row.size), 8)}  ${parts.map((p) => padStart(p, 8)).join("  ")}  ${padEnd(oneLine(looseText(info.id).slice(0, 8), 8), 8)}  ${cwd}${oneLine(info.name ?? info.firstMessage, room)}`,
    );
  }
  if (rows.length === 0) lines.push(listing.scope === "all" ? "No sessions found." : "No sessions in this folder.");
  else if (rows.length < listing.sessions.length) lines.push(`… ${listing.sessions.length - rows.length} smaller (--limit 0 lists all)`);
  const images = rows.reduce((a, r) => a + (r.row.unread ? 0 : r.row.images), 0);
  const tools = rows.reduce((a, r) => a + (r.row.unread ? 0 : r.row.toolResults), 0);
  if (images + tools > 0)
    lines.push(
      "",
      `Inline images take ${formatBytes(images)} and tool output ${formatBytes(tools)} of these sessions: Pi reads all of it on every resume, including what it no longer sends (other branches, what a compaction summarised).`,
    );
  io.out(`${lines.join("\n")}\n`);
  return 0;
}
