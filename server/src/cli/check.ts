/**
 * `pi-session-lsp check`: the editor's diagnostics on the command line, for CI and fixtures.
 *
 * It reads each file, builds the same `SessionDocument` the server builds for an open editor
 * buffer, and prints what `computeDiagnostics` returns, so the CLI and the editor always agree.
 * Exit status: 1 if any error was found, 2 for a usage error or a path that cannot be read (the
 * other paths are still checked), 0 otherwise.
 */

import * as nodeFs from "node:fs";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Diagnostic } from "vscode-languageserver";
import { SessionDocument } from "../core/document";
import { computeDiagnostics } from "../features/diagnostics";
import { applySafeFixes, unifiedDiff, unitsOf } from "../features/fixes";

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

const SEVERITY_NAMES = ["", "error", "warning", "information", "hint"];

export const CHECK_USAGE = `Usage: pi-session-lsp check [--format text|json] [--fix [--dry-run]] PATH...

Checks Pi session files (*.jsonl) and prints their diagnostics. Folders are searched recursively
for *.jsonl files. Exit status: 0 no errors, 1 errors found, 2 usage error or unreadable path.

--fix applies the safe fixes, those that keep every entry and its content (byte order mark, final
newline, pretty-printed entries joined, missing or invalid header, bare null lines, duplicate ids,
parent cycles), saves the original as FILE.bak (FILE.bak.1, ... if that exists), replaces FILE
atomically, and prints what is left. --dry-run (implies --fix) prints a unified diff instead and
writes nothing; what is left is then reported at its place in the fixed text. With --fix the exit
status is that of the fixed files; a file that cannot be written gives 2 and stays as it was.`;

export function runCheck(args: readonly string[], io: CliIo): number {
  let format = "text";
  let fix = false;
  let dryRun = false;
  const paths: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--format" || arg.startsWith("--format=")) {
      const value = arg === "--format" ? args[++i] : arg.slice("--format=".length);
      if (value !== "text" && value !== "json") {
        io.err(`pi-session-lsp check: --format must be text or json, not ${value ?? "nothing"}\n${CHECK_USAGE}\n`);
        return 2;
      }
      format = value;
    } else if (arg === "--fix") {
      fix = true;
    } else if (arg === "--dry-run") {
      fix = true;
      dryRun = true;
    } else if (arg === "--help" || arg === "-h") {
      io.out(`${CHECK_USAGE}\n`);
      return 0;
    } else if (arg.startsWith("-") && arg !== "-") {
      io.err(`pi-session-lsp check: unknown option ${arg}\n${CHECK_USAGE}\n`);
      return 2;
    } else {
      paths.push(arg);
    }
  }
  if (paths.length === 0) {
    io.err(`pi-session-lsp check: no path given\n${CHECK_USAGE}\n`);
    return 2;
  }

  let status = 0;
  for (const file of expandPaths(paths, io, () => (status = 2))) {
    let text: string;
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
      text = bytes.toString("utf8");
    } catch (error) {
      io.err(`pi-session-lsp check: cannot read ${file}: ${(error as Error).message}\n`);
      status = 2;
      continue;
    }
    let doc = new SessionDocument(pathToFileURL(resolve(file)).href, "jsonl", 0, text);
    let report: Record<string, unknown> = {};
    // Text that is not valid UTF-8 would not be written back byte for byte, so it is not fixed.
    const lossless = fix && Buffer.from(text, "utf8").equals(bytes);
    if (fix && !lossless) {
      io.err(
        `pi-session-lsp check: cannot fix ${file}: it is not valid UTF-8, and rewriting it would change bytes that are not fixes; the file is unchanged\n`,
      );
      status = 2;
    }
    if (lossless) {
      const result = applySafeFixes(doc);
      if (result.doc !== doc) {
        const fixed = Object.fromEntries(result.fixed);
        const summary = [...result.fixed].map(([code, count]) => (count > 1 ? `${code} ×${count}` : code)).join(", ");
        if (dryRun) {
          const diff = unifiedDiff(unitsOf(doc), unitsOf(result.doc), `a/${file}`, `b/${file}`);
          if (format === "json") report = { fixed, diff };
          else io.out(diff);
          doc = result.doc;
        } else {
          try {
            const backup = writeFixed(file, result.doc.getText());
            if (format === "json") report = { fixed, backup };
            else io.out(`${file}: fixed ${summary}; the original is saved as ${backup}\n`);
            doc = result.doc;
          } catch (error) {
            io.err(`pi-session-lsp check: cannot fix ${file}: ${(error as Error).message}; the file is unchanged\n`);
            status = 2;
          }
        }
      }
    }
    const diagnostics = computeDiagnostics(doc);
    if (format === "json") io.out(`${JSON.stringify({ file, ...report, diagnostics })}\n`);
    else for (const d of diagnostics) io.out(`${formatText(file, d)}\n`);
    if (status === 0 && diagnostics.some((d) => d.severity === 1)) status = 1;
  }
  return status;
}

/** The file system calls `writeFixed` makes; tests inject failures. */
export type FixFs = Pick<typeof nodeFs, "statSync" | "copyFileSync" | "openSync" | "writeSync" | "fsyncSync" | "closeSync" | "renameSync" | "unlinkSync">;

/**
 * Replaces `file` with `text` so that a failure at any step leaves the original in place: the
 * original is first copied to a backup that does not exist yet (FILE.bak, else FILE.bak.1 …), the
 * new text is written and flushed to a temporary file in the same folder, and that file is renamed
 * over the original (atomic on one file system). A temporary file left by a failure is removed.
 * Returns the backup's path.
 */
export function writeFixed(file: string, text: string, fs: FixFs = nodeFs): string {
  const mode = fs.statSync(file).mode & 0o7777;
  let backup = `${file}.bak`;
  for (let n = 1; ; n++) {
    try {
      fs.copyFileSync(file, backup, nodeFs.constants.COPYFILE_EXCL);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || n > 1000) throw error;
      backup = `${file}.bak.${n}`;
    }
  }
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${Date.now().toString(36)}.tmp`);
  let fd: number | undefined;
  try {
    fd = fs.openSync(temp, "wx", mode);
    const bytes = Buffer.from(text, "utf8");
    for (let written = 0; written < bytes.length; ) written += fs.writeSync(fd, bytes, written, bytes.length - written);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(temp, file);
  } catch (error) {
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {
        // Already failing; the original error is the one to report.
      }
    }
    try {
      fs.unlinkSync(temp);
    } catch {
      // The temporary file was never created, or is gone.
    }
    throw error;
  }
  return backup;
}

export function formatText(file: string, d: Diagnostic): string {
  const { line, character } = d.range.start;
  return `${file}:${line + 1}:${character + 1}: ${SEVERITY_NAMES[d.severity ?? 1]} ${String(d.code)}: ${d.message}`;
}

/** Files to check, in a stable order: given files as they are, folders searched for *.jsonl. */
function expandPaths(paths: readonly string[], io: CliIo, onUnreadable: () => void): string[] {
  const files: string[] = [];
  for (const path of paths) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch (error) {
      io.err(`pi-session-lsp check: cannot read ${path}: ${(error as Error).message}\n`);
      onUnreadable();
      continue;
    }
    if (!isDirectory) {
      files.push(path);
      continue;
    }
    // An explicit stack instead of recursion, and sorted names so output is reproducible.
    const stack = [path];
    const found: string[] = [];
    while (stack.length > 0) {
      const dir = stack.pop()!;
      let names: string[];
      try {
        names = readdirSync(dir).sort();
      } catch (error) {
        io.err(`pi-session-lsp check: cannot read ${dir}: ${(error as Error).message}\n`);
        onUnreadable();
        continue;
      }
      for (const name of names) {
        const full = join(dir, name);
        let stat: ReturnType<typeof statSync>;
        try {
          stat = statSync(full);
        } catch {
          continue; // A broken symlink or a file removed meanwhile: nothing to check.
        }
        if (stat.isDirectory()) stack.push(full);
        else if (name.endsWith(".jsonl")) found.push(full);
      }
    }
    files.push(...found.sort());
  }
  return files;
}
