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
 * The file is streamed (`redactRun.ts`), so a session of any size is redacted in bounded memory.
 * The copy is never written over an existing file, never in Pi's sessions folder unless asked (Pi
 * would list it as a second session with the same id); `--out FILE` itself replaces the session as
 * `slim` replaces it (`slimCommit.ts`), keeping FILE.bak and what Pi appends meanwhile.
 */

import * as nodeFs from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import { SECRET_KIND_NAMES } from "../core/line/secrets";
import { groupDigits } from "../core/base/text";
import { oneFile, readCommandLine, type OptionSpecs } from "./commandLine";
import { ReadRefused } from "./files";
import type { CliIo } from "./io";
import { type RedactOutcome, redactSession } from "./redactRun";
import { NotUtf8, type RedactionCounts } from "./redactStream";
import { LineTooLong } from "../io/streamedDocument";
import { DEFAULT_MAX_LINE_BYTES } from "../io/lineReader";
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
               list the copy as a second session; when the current folder is in it too, --out
               is needed); an existing file is never overwritten, except FILE itself, which is
               replaced keeping FILE.bak (entries Pi appends meanwhile are carried over, proved
               again; a file changed otherwise meanwhile is left as it is)
  --dry-run    list what would change (line, kind, masked value), and prove it on a temporary
               copy in the system's temporary folder, private and unlinked as soon as it is made
               (nothing is left behind, even by Ctrl-C)
${FILE_OR_ID_HELP}
The file must be UTF-8. It is streamed line by line, of any size, in the memory \`check\` takes for
it (a 1 GiB session: under 500 MiB), each line up to ${DEFAULT_MAX_LINE_BYTES / 1024 / 1024} MiB; the copy is written beside
its place and given its name only once proved.
Exit status: 0 written (or nothing to redact, or --dry-run), 1 the proof failed (nothing written),
2 usage error, unreadable or not UTF-8 file, the output exists or cannot be written, no --out
where one is needed, or FILE changed while it was read (nothing written).`;

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

export interface RedactOptions {
  out: string | undefined;
  dryRun: boolean;
  sessionDir?: string | undefined;
  /** Fixes the placeholders' key (tests compare runs); a fresh one is drawn otherwise. */
  key?: Uint8Array;
  /** The longest line read (tests lower it). */
  maxLineBytes?: number;
}

export function redactFile(path: string, options: RedactOptions, io: CliIo): number {
  const target = options.dryRun ? undefined : (options.out ?? defaultOut(path, io, options.sessionDir));
  if (target === null) return fail(io, `${path} and the current folder are in Pi's sessions folder, which is left alone: give --out`);
  let outcome: RedactOutcome;
  try {
    outcome = redactSession(path, {
      target,
      inPlace: target !== undefined && sameFile(target, path),
      listMax: MAX_LISTED,
      ...(options.key === undefined ? {} : { key: options.key }),
      ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
    });
  } catch (error) {
    if (error instanceof NotUtf8) return fail(io, `${path} is not UTF-8 (${error.message}): \`pi-session-lsp check\` says why`);
    if (error instanceof LineTooLong || error instanceof ReadRefused || (error as NodeJS.ErrnoException).code !== undefined)
      return fail(io, `cannot read ${path}: ${(error as Error).message}`);
    throw error;
  }
  if (outcome.status === "refused") {
    io.err(`pi-session-lsp redact: ${escapeControls(outcome.reason)}\n`);
    return outcome.exit;
  }
  if (outcome.counts) listReplacements(outcome.counts, io);
  if (outcome.status === "nothing") {
    const found =
      outcome.found === 0 ? "no credentials found" : `${groupDigits(outcome.found)} credential${outcome.found === 1 ? "" : "s"} found, each left in place`;
    io.out(`${escapeControls(path)}: ${found}; nothing written.\n`);
    return 0;
  }
  if (outcome.status === "failed") {
    io.err(`pi-session-lsp redact: ${escapeControls(path)}: the copy is not the same session apart from the replaced strings, so it is not written:\n`);
    for (const d of outcome.proof.differences) io.err(`  ${escapeControls(d)}\n`);
    return 1;
  }
  const { counts, proof } = outcome;
  const summary = `${groupDigits(counts.replaced)} replacement${counts.replaced === 1 ? "" : "s"} of ${groupDigits(outcome.secrets.length)} secret${outcome.secrets.length === 1 ? "" : "s"}`;
  const proved = `proved: every line parses as before with the same ids, parents and tool call ids, the same leaf, the same ${groupDigits(proof.diagnostics)} diagnostics apart from secret, and the same context (${groupDigits(proof.contextMessages)} messages) and provider request (${groupDigits(proof.providerMessages)} messages) apart from the replaced strings`;
  if (target === undefined) {
    io.out(`${summary} would be made; ${proved}. Nothing written (--dry-run).\n`);
    return 0;
  }
  if (outcome.backup !== undefined) io.out(`${escapeControls(path)} replaced; the original is kept as ${escapeControls(outcome.backup)}.\n`);
  if (outcome.carried > 0) io.out(`${groupDigits(outcome.carried)} bytes Pi appended meanwhile were carried over and proved.\n`);
  io.out(`${summary} written to ${escapeControls(target)}; ${proved}.\n`);
  return 0;
}

function sameFile(target: string, path: string): boolean {
  try {
    return nodeFs.realpathSync(target) === nodeFs.realpathSync(path);
  } catch {
    return resolve(target) === resolve(path);
  }
}

/**
 * FILE with `.jsonl` replaced by `.redacted.jsonl`, beside it; but never in Pi's sessions folder,
 * where Pi would list the copy as a second session with the same id: then in the current folder,
 * unless it is in Pi's folder too (null: the caller asks for --out).
 */
function defaultOut(path: string, io: CliIo, sessionDir: string | undefined): string | null {
  const name = path.endsWith(".jsonl") ? `${basename(path).slice(0, -".jsonl".length)}.redacted.jsonl` : `${basename(path)}.redacted.jsonl`;
  if (!inPiFolder(dirname(realOrResolved(path)), io, sessionDir)) return join(dirname(path), name);
  const here = io.cwd ?? process.cwd();
  if (inPiFolder(realOrResolved(here), io, sessionDir)) return null;
  io.err(
    `pi-session-lsp redact: ${escapeControls(path)} is in Pi's sessions folder, which is left alone: the copy goes to the current folder (--out chooses another place)\n`,
  );
  return join(here, name);
}

function realOrResolved(path: string): string {
  try {
    return nodeFs.realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** Whether `folder` lies in the folders Pi keeps sessions in (its agent folder, or the --session-dir Pi is given). */
function inPiFolder(folder: string, io: CliIo, sessionDir: string | undefined): boolean {
  try {
    const { location } = locate({ version: "1.x", cwd: io.cwd ?? process.cwd(), env: io.env, ...(sessionDir === undefined ? {} : { sessionDir }) });
    const roots = [location.agentDir, location.sessionsRoot, location.currentDir].filter((r) => r !== "");
    return roots.some((root) => folder === root || folder.startsWith(`${root}${sep}`));
  } catch {
    return false;
  }
}

function listReplacements(counts: RedactionCounts, io: CliIo): void {
  for (const r of counts.listed) {
    io.out(`line ${r.line + 1}: ${SECRET_KIND_NAMES[r.secret.kind]} ${escapeControls(r.secret.masked)} -> ${r.secret.placeholder}\n`);
  }
  if (counts.pairs > counts.listed.length) io.out(`… and ${groupDigits(counts.pairs - counts.listed.length)} more\n`);
  for (const k of counts.kept) {
    io.out(`line ${k.line + 1}: ${SECRET_KIND_NAMES[k.secret.kind]} ${escapeControls(k.secret.masked)} left in place: it is part of an id or a link\n`);
  }
}
