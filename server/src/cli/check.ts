/**
 * `pi-session-lsp check`: the editor's diagnostics on the command line, for CI and fixtures.
 *
 * It reads each file, builds the same `SessionDocument` the server builds for an open editor
 * buffer, and prints what `computeDiagnostics` returns, so the CLI and the editor always agree.
 * Exit status: 1 if any error was found, 2 for a usage error or a path that cannot be read (the
 * other paths are still checked), 0 otherwise.
 */

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Diagnostic } from "vscode-languageserver";
import { SessionDocument } from "../core/document";
import { computeDiagnostics } from "../features/diagnostics";

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

const SEVERITY_NAMES = ["", "error", "warning", "information", "hint"];

export const CHECK_USAGE = `Usage: pi-session-lsp check [--format text|json] PATH...

Checks Pi session files (*.jsonl) and prints their diagnostics. Folders are searched recursively
for *.jsonl files. Exit status: 0 no errors, 1 errors found, 2 usage error or unreadable path.`;

export function runCheck(args: readonly string[], io: CliIo): number {
  let format = "text";
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
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      io.err(`pi-session-lsp check: cannot read ${file}: ${(error as Error).message}\n`);
      status = 2;
      continue;
    }
    const diagnostics = computeDiagnostics(new SessionDocument(pathToFileURL(resolve(file)).href, "jsonl", 0, text));
    if (format === "json") io.out(`${JSON.stringify({ file, diagnostics })}\n`);
    else for (const d of diagnostics) io.out(`${formatText(file, d)}\n`);
    if (status === 0 && diagnostics.some((d) => d.severity === 1)) status = 1;
  }
  return status;
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
        let stat;
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
