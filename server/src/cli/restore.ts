/**
 * `restore FILE`: puts back the session as it was before the last change the command line made to
 * it (`check --fix`, `resume-from`, `drop-from-context`), from FILE.bak beside it.
 *
 * The restore is itself a change made the safe way (`replace.ts`): the file as it is now becomes
 * the new FILE.bak (so a second `restore` undoes the first), it is compared with what was read
 * right before the rename, and what Pi appends during the rename is kept. The backup restored from
 * is moved to the history folder with the older ones (`backups.ts`), not deleted.
 */

import * as nodeFs from "node:fs";
import { type OptionSpecs, type OptionValues, oneFile, readCommandLine } from "./commandLine";
import { backupBeside, historyFolder } from "./backups";
import { closeFile, openSessionFile, type OpenedFile } from "./files";
import type { CliIo } from "./io";
import { replaceFile, type FixFs } from "./replace";
import { displayPath } from "./report";
import { escapeControls } from "./terminal";
import { errorText } from "./walk";
import { FILE_OR_ID_HELP, SESSION_DIR_OPTION, withSessionFile } from "./sessionArg";
import { groupDigits } from "../core/base/text";

export const RESTORE_USAGE = `Usage: pi-session-lsp restore [--dry-run] [--force] [--session-dir DIR] FILE

Puts back the session FILE as it was before the last change pi-session-lsp made to it (check --fix,
resume-from, drop-from-context), from FILE.bak beside it. The file as it is now becomes the new
FILE.bak, so running restore again undoes it. Older backups are kept outside Pi's folder, in
$PI_SESSION_LSP_BACKUP_DIR, else $XDG_STATE_HOME/pi-session-lsp/backups (~/.local/state/...);
copy one of them over FILE.bak to restore it.
  --dry-run   say what would be restored, and change nothing
  --force     restore even when the file was written after its backup was made (what was
              written since, Pi's new entries, is then only in the new FILE.bak)
${FILE_OR_ID_HELP}
Exit status: 0 restored (or would be), 2 usage error, no backup, or the file changed meanwhile.`;

const OPTIONS: OptionSpecs = { "dry-run": { type: "boolean" }, force: { type: "boolean" }, "session-dir": SESSION_DIR_OPTION };

/**
 * How much later than its backup's last change a file may be written and still be the file that
 * change left: the writer renames the file (or appends) and then names the backup, within it.
 */
const SAME_CHANGE_MS = 1000;

export function runRestore(args: readonly string[], io: CliIo, fs: FixFs = nodeFs): number | Promise<number> {
  const parsed = readCommandLine(args, io, { name: "restore", usage: RESTORE_USAGE, options: OPTIONS, check: oneFile });
  if (typeof parsed === "number") return parsed;
  const sessionDir = parsed.values["session-dir"] as string | undefined;
  return withSessionFile("restore", parsed.positionals[0]!, io, { version: "1.x", sessionDir }, (path) => restore(path, parsed.values, io, fs));
}

/** Puts back FILE.bak beside `path`, keeping the file as it is now as the new FILE.bak. */
function restore(path: string, values: OptionValues, io: CliIo, fs: FixFs): number {
  const cwd = process.cwd();
  const fail = (message: string) => {
    io.err(`pi-session-lsp restore: ${escapeControls(message)}\n`);
    return 2;
  };
  let target: string;
  try {
    target = nodeFs.realpathSync(path);
  } catch (error) {
    return fail(`cannot read ${path}: ${errorText(error)}`);
  }
  const backup = backupBeside(target);
  let saved: Buffer;
  let backupStat: nodeFs.Stats;
  let fileStat: nodeFs.Stats;
  try {
    saved = nodeFs.readFileSync(backup);
    backupStat = nodeFs.statSync(backup);
    fileStat = nodeFs.statSync(target);
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === "ENOENT" ? "there is none" : errorText(error);
    return fail(
      `no backup to restore beside ${path} (${displayPath(backup, cwd)}: ${why}); older backups, if any, are in ${displayPath(historyFolder(), cwd)}`,
    );
  }
  const when = backupStat.mtime.toISOString();
  // The backup is named when the change is made (its ctime): a file written later holds more than
  // that change, Pi's new entries most likely, which restoring would take out of the session.
  if (fileStat.mtimeMs > backupStat.ctimeMs + SAME_CHANGE_MS && !values.force) {
    return fail(
      `${path} was written at ${fileStat.mtime.toISOString()}, after its backup was made (${backupStat.ctime.toISOString()}): restoring would take out what was written since (Pi's new entries, if the session is still in use); run with --force to restore anyway, which keeps it in the new FILE.bak`,
    );
  }
  if (values["dry-run"]) {
    io.out(`${escapeControls(path)}: would restore ${displayPath(backup, cwd)} (${groupDigits(saved.length)} bytes, last written ${when})\n`);
    return 0;
  }
  let file: OpenedFile;
  try {
    file = openSessionFile(path);
  } catch (error) {
    return fail(`cannot read ${path}: ${errorText(error)}`);
  }
  try {
    if (file.bytes.equals(saved)) return fail(`${path} already holds what ${displayPath(backup, cwd)} holds; nothing to restore`);
    const done = replaceFile(file, saved, fs);
    let line = `${escapeControls(path)}: restored the file as it was at ${when}; what it held until now is ${displayPath(done.backup, cwd)} (restore again to undo)`;
    if (done.history) line += `; the backup restored from was moved to ${displayPath(done.history, cwd)}`;
    if (done.recovered > 0) line += `; ${groupDigits(done.recovered)} bytes appended during the restore were kept at its end`;
    io.out(`${line}\n`);
    return 0;
  } catch (error) {
    // FileChanged (Pi wrote to it meanwhile), FixRefused (hard links, owner) or an I/O error: the
    // writer left the file as it was in every case.
    return fail(`${path} was not changed: ${errorText(error)}`);
  } finally {
    closeFile(file);
  }
}
