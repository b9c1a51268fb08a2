/**
 * Commands that change a session (`check --fix`, `resume-from`, `restore`…) move older backups out
 * of the session's folder into a history folder, by default in the user's home
 * (~/.local/state/pi-session-lsp/backups). Tests must never write there: every test file, and the
 * commands it starts (which inherit the environment), use a temporary folder of their own.
 */

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

process.env.PI_SESSION_LSP_BACKUP_DIR = mkdtempSync(join(tmpdir(), "pi-session-backups-"));
