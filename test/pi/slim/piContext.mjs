// Run by test/pi/slim/slim.test.ts on Pi 1.6's Node.js: opens each session with the real Pi 1.6
// `SessionManager` (deep-imported, as test/parity/generate.mjs does) and prints one JSON line per
// file: the context `buildSessionContext()` builds, the ids of `getEntries()`, and the size of
// `getTree()` (what /tree reads). Each file is copied first, since Pi may rewrite what it opens.
//
// Usage: node piContext.mjs PI_PACKAGE_DIR FILE...

import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [pkg, ...files] = process.argv.slice(2);
const { SessionManager } = await import(pathToFileURL(join(pkg, "dist", "core", "session-manager.js")).href);
const work = mkdtempSync(join(tmpdir(), "pi-slim-ctx-"));
for (const [n, file] of files.entries()) {
  const copy = join(work, `${n}.jsonl`);
  copyFileSync(file, copy);
  const sm = SessionManager.open(copy);
  let nodes = 0;
  const stack = [...sm.getTree()];
  while (stack.length > 0) {
    nodes++;
    stack.push(...stack.pop().children);
  }
  const ids = sm.getEntries().map((e) => e.id);
  process.stdout.write(`${JSON.stringify({ file, context: sm.buildSessionContext(), ids, nodes })}\n`);
}
