/**
 * `redact` from start to end, apart from its command line and its words: the secrets gathered
 * (one streaming pass), the copy written into a new temporary file beside where it goes (a second
 * pass), proved (`redactProof.ts`, each file streamed as `check` streams it), and only then put in
 * place: linked to its name, which must not exist (`wx`'s promise, kept up to the last moment), or,
 * for `--out FILE`, put in FILE's place as `slim` puts its copy (`slimCommit.ts`: FILE.bak kept,
 * what Pi appended meanwhile carried over, and proved again). A copy that fails is removed.
 *
 * Both passes hash the bytes they read: the two must agree (the copy is made from the bytes the
 * secrets were gathered from), and FILE is replaced only while it still begins with them. A run
 * is synchronous, so Ctrl-C ends it with no handler of ours running: a dry run's copy has no name,
 * and the named copies such a run leaves are removed by the next run beside the same output.
 *
 * Memory is what `check` takes for the larger of the two files, whatever their size.
 */

import { createHash, randomBytes } from "node:crypto";
import * as nodeFs from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { newRedactionKey, type RedactedSecret, redactionPlaceholder } from "../core/edits/redact";
import { isUtf16 } from "../io/checkRead";
import { openRegularFile } from "./files";
import { compareSummaries, type ProofResult, summariseFile } from "./redactProof";
import { collectSecrets, type RedactionCounts, type Span, writeRedacted } from "./redactStream";
import { FileChanged, FixRefused, removeQuietly } from "./replace";
import { commitSlimmed } from "./slimCommit";

export interface RedactRunOptions {
  /** Where the copy goes: a new file, or the session itself (`inPlace`). Undefined for a dry run. */
  target: string | undefined;
  inPlace: boolean;
  /** How many replacements are listed one by one. */
  listMax: number;
  /** The key of the placeholders' hashes; a fresh one per run unless a test fixes it. */
  key?: Uint8Array;
  /** The longest line read (tests lower it). */
  maxLineBytes?: number;
  /** Called once the copy is written, before it is proved: tests look at what an interruption would leave behind. */
  afterCopy?: () => void;
  /** Called once the copy is proved, before it replaces FILE: tests append to FILE here, as Pi would. */
  beforeCommit?: () => void;
}

export type RedactOutcome =
  | { status: "refused"; reason: string; exit: 1 | 2 }
  /** No credential found (`found` 0), or each one found left in place as part of an id or a link. */
  | { status: "nothing"; counts: RedactionCounts | undefined; found: number }
  | { status: "failed"; counts: RedactionCounts; secrets: RedactedSecret[]; proof: ProofResult }
  | { status: "proved"; counts: RedactionCounts; secrets: RedactedSecret[]; proof: ProofResult; backup?: string; carried: number };

/**
 * A new file for the copy, beside `target`, created with `wx`. For a dry run, in the temporary
 * folder, private (0600), and given no name at all: unlinked as soon as it is made and read back
 * through its descriptor (`unlinked`), so that no end of the run, not even Ctrl-C or a kill,
 * leaves it behind.
 */
function createTemp(target: string | undefined, mode: number, inPlace: boolean): { path: string; fd: number; unlinked?: true } {
  if (target === undefined) {
    const path = join(tmpdir(), `.pi-redact-${process.pid}-${randomBytes(8).toString("hex")}.jsonl`);
    const fd = nodeFs.openSync(path, "wx+", 0o600);
    try {
      nodeFs.unlinkSync(path);
    } catch {
      // A system that cannot unlink an open file: a named copy, removed when the run ends.
      return { path, fd };
    }
    return { path, fd, unlinked: true };
  }
  removeInterrupted(target);
  for (let n = 0; ; n++) {
    const path = join(dirname(target), `.${basename(target)}.${process.pid}.${n}.redact`);
    try {
      const fd = nodeFs.openSync(path, "wx", mode);
      // The copy that takes the session's place takes its mode too, whatever the umask.
      if (inPlace) nodeFs.fchmodSync(fd, mode);
      return { path, fd };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || n >= 1000) throw error;
    }
  }
}

/**
 * Removes the copies a run interrupted by Ctrl-C or a kill left beside `target` (a run is
 * synchronous, so no handler of ours runs then): `.NAME.PID.N.redact` of a process that is gone.
 * A copy of a process still running, another redact, is left alone.
 */
function removeInterrupted(target: string): void {
  const prefix = `.${basename(target)}.`;
  let names: string[];
  try {
    names = nodeFs.readdirSync(dirname(target));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith(".redact")) continue;
    const match = /^(\d+)\.\d+\.redact$/.exec(name.slice(prefix.length));
    const pid = match ? Number(match[1]) : Number.NaN;
    if (Number.isSafeInteger(pid) && pid !== process.pid && !running(pid)) removeQuietly(nodeFs, join(dirname(target), name));
  }
}

/** Whether a process `pid` exists (one of another user's too: it answers EPERM). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

export function redactSession(path: string, options: RedactRunOptions): RedactOutcome {
  const { fd, stat } = openRegularFile(path);
  try {
    if (isUtf16(fd)) return { status: "refused", reason: `${path} is not UTF-8: \`pi-session-lsp check\` says why`, exit: 2 };
    if (options.inPlace && stat.nlink > 1)
      return {
        status: "refused",
        reason: `${path} has ${stat.nlink} hard links: replacing it would leave the other names on the original; redact a copy (--out)`,
        exit: 2,
      };
    const key = options.key ?? newRedactionKey();
    const size = stat.size;
    const span: Span = { end: size, ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }) };
    // Each pass hashes the bytes it read: the copy is made from the bytes the secrets were gathered
    // from, and FILE is replaced only while it still begins with them (`commitSlimmed`).
    const gathered = createHash("sha256");
    const secrets = collectSecrets(fd, span, (kind, value) => redactionPlaceholder(kind, value, key), gathered);
    if (secrets.length === 0) return { status: "nothing", counts: undefined, found: 0 };
    if (options.target !== undefined && !options.inPlace && nodeFs.existsSync(options.target)) return exists(options.target);
    let temp: ReturnType<typeof createTemp>;
    try {
      temp = createTemp(options.inPlace ? nodeFs.realpathSync(path) : options.target, stat.mode & 0o777, options.inPlace);
    } catch (error) {
      return { status: "refused", reason: `cannot write ${options.target ?? "a temporary copy"}: ${(error as Error).message}`, exit: 2 };
    }
    let keep = false;
    const copied = createHash("sha256");
    try {
      let counts: RedactionCounts;
      try {
        counts = writeRedacted(fd, span, secrets, temp.fd, options.listMax, copied);
        if (!temp.unlinked) nodeFs.fsyncSync(temp.fd);
      } finally {
        if (!temp.unlinked) nodeFs.closeSync(temp.fd);
      }
      options.afterCopy?.();
      const prefixHash = copied.digest("hex");
      if (prefixHash !== gathered.digest("hex")) throw new FileChanged("its content changed while it was read");
      if (counts.replaced === 0) return { status: "nothing", counts, found: secrets.length };
      const original = summariseFile(fd, pathToFileURL(path).href, size, secrets);
      const proof = proveAgainst(original, temp.path, temp.unlinked ? temp.fd : undefined);
      if (proof.differences.length > 0) return { status: "failed", counts, secrets, proof };
      const done = { status: "proved" as const, counts, secrets, proof, carried: 0 };
      if (options.target === undefined) return done;
      if (!options.inPlace) {
        const linked = linkNew(temp.path, options.target);
        return linked ?? done;
      }
      options.beforeCommit?.();
      const reprove = (end: number) =>
        appendedCredential(fd, size, end, secrets, key) ?? failureOf(proveAgainst(summariseFile(fd, pathToFileURL(path).href, end, secrets), temp.path));
      const target = nodeFs.realpathSync(path);
      const committed = commitSlimmed({ target, fd, stat, size, prefixHash, temp: temp.path, reprove, command: "redact" });
      keep = true;
      return { ...done, backup: committed.backup, carried: committed.carried };
    } catch (error) {
      if (error instanceof FileChanged || error instanceof FixRefused) return { status: "refused", reason: `${path} left as it is: ${error.message}`, exit: 2 };
      throw error;
    } finally {
      if (temp.unlinked) nodeFs.closeSync(temp.fd);
      else if (!keep) removeQuietly(nodeFs, temp.path);
    }
  } finally {
    nodeFs.closeSync(fd);
  }
}

function exists(target: string): RedactOutcome {
  return { status: "refused", reason: `${target} exists: remove it or choose another --out`, exit: 2 };
}

/** The proof of the copy at `copy` (read through `open` when given: a dry run's copy has no name) against the original's summary. */
function proveAgainst(original: ReturnType<typeof summariseFile>, copy: string, open?: number): ProofResult {
  const fd = open ?? openRegularFile(copy).fd;
  try {
    return compareSummaries(original, summariseFile(fd, pathToFileURL(copy).href, undefined, []));
  } finally {
    if (open === undefined) nodeFs.closeSync(fd);
  }
}

function failureOf(proof: ProofResult): string | undefined {
  return proof.differences.length > 0 ? `the proof failed: ${proof.differences[0]}` : undefined;
}

/**
 * Why what Pi appended (`[from, to)`) cannot be carried into the copy as it is: it holds a
 * credential, known or new, which would be written in clear. Undefined when it holds none. When
 * the bytes read ended inside a line (Pi was writing it), that whole line is searched: a key split
 * there is neither in the part redacted nor in the part appended.
 */
function appendedCredential(fd: number, from: number, to: number, secrets: readonly RedactedSecret[], key: Uint8Array): string | undefined {
  const span: Span = { start: lineStartBefore(fd, from), end: to };
  const fresh = collectSecrets(fd, span, (kind, value) => redactionPlaceholder(kind, value, key));
  if (fresh.length > 0 || writeRedacted(fd, span, secrets, undefined, 0).replaced > 0) return "what it appended holds a credential; run redact again";
  return undefined;
}

/** Where the line holding the byte before `at` starts (`at` itself when that byte ends a line). */
function lineStartBefore(fd: number, at: number): number {
  const buffer = Buffer.allocUnsafe(64 * 1024);
  for (let end = at; end > 0; ) {
    const from = Math.max(0, end - buffer.length);
    const n = nodeFs.readSync(fd, buffer, 0, end - from, from);
    const newline = buffer.subarray(0, n).lastIndexOf(10);
    if (newline >= 0) return from + newline + 1;
    end = from;
  }
  return 0;
}

/** Gives the proved copy its name, which must not exist yet; the refusal when it does. */
function linkNew(temp: string, target: string): RedactOutcome | undefined {
  try {
    nodeFs.linkSync(temp, target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return exists(target);
    // A file system without hard links: copied, still never over an existing file.
    try {
      nodeFs.copyFileSync(temp, target, nodeFs.constants.COPYFILE_EXCL);
    } catch (copyError) {
      if ((copyError as NodeJS.ErrnoException).code === "EEXIST") return exists(target);
      return { status: "refused", reason: `cannot write ${target}: ${(copyError as Error).message}`, exit: 2 };
    }
  }
  return undefined;
}
