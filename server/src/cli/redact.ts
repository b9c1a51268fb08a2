/**
 * `pi-session-lsp redact FILE [--out PATH] [--dry-run]`: a copy of a session with each credential
 * the `secret` diagnostic finds replaced by a stable placeholder, proved to be the same session
 * apart from those strings before it is written (`redactProof.ts`).
 *
 * The placeholder is `[REDACTED:kind:hash8]`, where hash8 is the start of an HMAC-SHA-256 of the
 * secret under a key drawn for this run: the same secret gets the same placeholder throughout the
 * file, and the placeholder cannot be used to confirm a guess of the secret (a plain hash of a
 * short password could be), at the price of differing between two runs.
 *
 * The copy is created with `wx` (an existing file is never overwritten), never in Pi's sessions
 * folder unless asked (Pi would list it as a second session with the same id); `--out FILE` itself
 * replaces the session through `replace.ts`, which keeps FILE.bak, as `check --fix` does.
 */

import * as nodeFs from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import { newRedactionKey, type Redaction, redactionPlaceholder, redactText } from "../core/edits/redact";
import { SECRET_KIND_NAMES } from "../core/line/secrets";
import { groupDigits } from "../core/base/text";
import { oneFile, readCommandLine, type OptionSpecs } from "./commandLine";
import { closeFile, MAX_FILE_BYTES, type OpenedFile, openSessionFile } from "./files";
import { decodeSession } from "../io/checkRead";
import type { CliIo } from "./io";
import { proveRedaction } from "./redactProof";
import { FileChanged, FixRefused, replaceFile } from "./replace";
import { FILE_OR_ID_HELP, SESSION_DIR_OPTION, withSessionFile } from "./sessionArg";
import { escapeControls } from "./terminal";
import { locate } from "../io/sessionStore";

export const REDACT_USAGE = `Usage: pi-session-lsp redact [--out PATH] [--dry-run] [--session-dir DIR] FILE

Writes a copy of the session FILE with each credential the \`secret\` diagnostic finds (API keys and
tokens in their vendors' formats, private keys, passwords in URLs, .env-style assignments,
high-entropy values after a credential's name) replaced by [REDACTED:kind:hash8], everywhere it
occurs in the file: the same secret gets the same placeholder (hash8 is keyed for this run, so it
cannot confirm a guess). Ids, parents and tool call ids are left as they are.

Before writing, the copy is proved to be the same session apart from the replaced strings, and
the command says so: every line parses as before with the same id, parent, type and tool call
ids (tool calls and results stay paired), the leaf is the same, the diagnostics are the same
apart from secret, and the context Pi 1.x resumes with and its provider request equal the
original's with the same replacements. A copy that fails the proof is not written.
  --out PATH   where to write (default FILE with .jsonl replaced by .redacted.jsonl, beside it,
               or in the current folder when FILE is in Pi's sessions folder, so that Pi does not
               list the copy as a second session); an existing file is never overwritten, except
               FILE itself, which is replaced keeping FILE.bak
  --dry-run    list what would change (line, kind, masked value) and write nothing
${FILE_OR_ID_HELP}
The file is read whole, up to ${MAX_FILE_BYTES / 1024 / 1024} MiB, and must be UTF-8.
Exit status: 0 written (or nothing to redact, or --dry-run), 1 the proof failed (nothing written),
2 usage error, unreadable file, or the output exists.`;

const OPTIONS: OptionSpecs = { out: { type: "string" }, "dry-run": { type: "boolean" }, "session-dir": SESSION_DIR_OPTION };

/** How many replacements are listed one per line; the rest are counted. */
const MAX_LISTED = 200;

export function runRedact(args: readonly string[], io: CliIo): number | Promise<number> {
  const line = readCommandLine(args, io, { name: "redact", usage: REDACT_USAGE, options: OPTIONS, check: oneFile });
  if (typeof line === "number") return line;
  const sessionDir = line.values["session-dir"] as string | undefined;
  const out = line.values.out as string | undefined;
  const dryRun = line.values["dry-run"] === true;
  return withSessionFile("redact", line.positionals[0]!, io, { version: "1.x", sessionDir }, (path) => redactFile(path, { out, dryRun, sessionDir }, io));
}

function fail(io: CliIo, what: string): number {
  io.err(`pi-session-lsp redact: ${escapeControls(what)}\n`);
  return 2;
}

export function redactFile(path: string, options: { out: string | undefined; dryRun: boolean; sessionDir?: string | undefined }, io: CliIo): number {
  let file: OpenedFile;
  try {
    file = openSessionFile(path);
  } catch (error) {
    return fail(io, `cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    const decoded = decodeSession(file.bytes);
    if (decoded.encoding !== "utf-8" || !decoded.lossless) return fail(io, `${path} is not UTF-8: \`pi-session-lsp check\` says why`);
    const key = newRedactionKey();
    const redaction = redactText(decoded.text, (kind, value) => redactionPlaceholder(kind, value, key));
    listReplacements(redaction, io);
    if (redaction.replacements.length === 0) {
      io.out(`${escapeControls(path)}: no credentials found; nothing written.\n`);
      return 0;
    }
    const proof = proveRedaction(decoded.text, redaction.text, redaction.secrets);
    if (proof.differences.length > 0) {
      io.err(`pi-session-lsp redact: ${escapeControls(path)}: the copy is not the same session apart from the replaced strings, so it is not written:\n`);
      for (const d of proof.differences) io.err(`  ${escapeControls(d)}\n`);
      return 1;
    }
    const summary = `${groupDigits(redaction.replacements.length)} replacement${redaction.replacements.length === 1 ? "" : "s"} of ${groupDigits(redaction.secrets.length)} secret${redaction.secrets.length === 1 ? "" : "s"}`;
    const proved = `proved: every line parses as before with the same ids, parents and tool call ids, the same leaf, the same ${groupDigits(proof.diagnostics)} diagnostics apart from secret, and the same context (${groupDigits(proof.contextMessages)} messages) and provider request (${groupDigits(proof.providerMessages)} messages) apart from the replaced strings`;
    if (options.dryRun) {
      io.out(`${summary} would be made; ${proved}. Nothing written (--dry-run).\n`);
      return 0;
    }
    const target = options.out ?? defaultOut(path, io, options.sessionDir);
    const written = writeCopy(file, path, target, redaction.text, io);
    if (written !== undefined) return written;
    io.out(`${summary} written to ${escapeControls(target)}; ${proved}.\n`);
    return 0;
  } finally {
    closeFile(file);
  }
}

/**
 * FILE with `.jsonl` replaced by `.redacted.jsonl`, beside it; but never in Pi's sessions folder,
 * where Pi would list the copy as a second session with the same id: then in the current folder.
 */
function defaultOut(path: string, io: CliIo, sessionDir: string | undefined): string {
  const name = path.endsWith(".jsonl") ? `${basename(path).slice(0, -".jsonl".length)}.redacted.jsonl` : `${basename(path)}.redacted.jsonl`;
  if (!inPiFolder(path, io, sessionDir)) return join(dirname(path), name);
  io.err(
    `pi-session-lsp redact: ${escapeControls(path)} is in Pi's sessions folder, which is left alone: the copy goes to the current folder (--out chooses another place)\n`,
  );
  return join(io.cwd ?? process.cwd(), name);
}

/** Whether `path` lies in the folders Pi keeps sessions in (its agent folder, or the --session-dir Pi is given). */
function inPiFolder(path: string, io: CliIo, sessionDir: string | undefined): boolean {
  let folder: string;
  try {
    folder = dirname(nodeFs.realpathSync(path));
  } catch {
    folder = dirname(resolve(path));
  }
  try {
    const { location } = locate({ version: "1.x", cwd: io.cwd ?? process.cwd(), env: io.env, ...(sessionDir === undefined ? {} : { sessionDir }) });
    const roots = [location.agentDir, location.sessionsRoot, location.currentDir].filter((r) => r !== "");
    return roots.some((root) => folder === root || folder.startsWith(`${root}${sep}`));
  } catch {
    return false;
  }
}

function listReplacements(redaction: Redaction, io: CliIo): void {
  const seen = new Set<string>();
  let listed = 0;
  for (const r of redaction.replacements) {
    const key = `${r.line}\u0000${r.secret.raw}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (listed++ >= MAX_LISTED) continue;
    io.out(`line ${r.line + 1}: ${SECRET_KIND_NAMES[r.secret.kind]} ${escapeControls(r.secret.masked)} -> ${r.secret.placeholder}\n`);
  }
  if (listed > MAX_LISTED) io.out(`… and ${groupDigits(listed - MAX_LISTED)} more\n`);
  for (const k of redaction.kept.slice(0, MAX_LISTED)) {
    io.out(`line ${k.line + 1}: ${SECRET_KIND_NAMES[k.secret.kind]} ${escapeControls(k.secret.masked)} left in place: it is part of an id or a link\n`);
  }
}

/** Writes the copy; a number is the exit status of a refusal, already said. */
function writeCopy(file: OpenedFile, path: string, target: string, text: string, io: CliIo): number | undefined {
  let same = false;
  try {
    same = nodeFs.realpathSync(target) === nodeFs.realpathSync(path);
  } catch {
    same = resolve(target) === resolve(path);
  }
  if (same) {
    try {
      const replaced = replaceFile(file, text);
      io.out(`${escapeControls(path)} replaced; the original is kept as ${escapeControls(replaced.backup)}.\n`);
      return undefined;
    } catch (error) {
      if (error instanceof FileChanged || error instanceof FixRefused) return fail(io, `${path} left as it is: ${error.message}`);
      throw error;
    }
  }
  let fd: number;
  try {
    fd = nodeFs.openSync(target, "wx", file.stat.mode & 0o777);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return fail(io, code === "EEXIST" ? `${target} exists: remove it or choose another --out` : `cannot write ${target}: ${(error as Error).message}`);
  }
  try {
    nodeFs.writeFileSync(fd, text);
    nodeFs.fsyncSync(fd);
  } finally {
    nodeFs.closeSync(fd);
  }
  return undefined;
}
