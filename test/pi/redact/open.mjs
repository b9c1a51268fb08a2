// Run by the real Pi's Node.js 22: opens a session with Pi 1.6's own SessionManager (deep-imported,
// as test/parity/generate.mjs does) and prints what Pi makes of it as one JSON line: its entries,
// its leaf, and the context it resumes with.
// Usage: node open.mjs PI_PACKAGE_DIR SESSION_FILE
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [packageDir, file] = process.argv.slice(2);
const { SessionManager } = await import(pathToFileURL(join(packageDir, "dist", "core", "session-manager.js")).href);
const sm = SessionManager.open(file);
const context = sm.buildSessionContext();
process.stdout.write(
  `${JSON.stringify({
    entryCount: sm.getEntries().length,
    ids: sm.getEntries().map((e) => [e.id, e.parentId]),
    leafId: sm.getLeafId() ?? null,
    context,
  })}\n`,
);
