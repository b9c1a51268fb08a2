/**
 * A new file, created exclusively: a fork (`fork`), or the doctor's repaired copy (`doctor --fork`,
 * `/doctor` inside Pi). An existing file is never replaced, so a name taken meanwhile fails with
 * EEXIST instead of losing a session.
 */

import * as nodeFs from "node:fs";

/** Creates `path` (`wx`: never over a file) with `text`, flushed before anyone opens it. */
export function writeNewFile(path: string, text: string): void {
  const fd = nodeFs.openSync(path, "wx", 0o644);
  try {
    const bytes = Buffer.from(text, "utf8");
    for (let n = 0; n < bytes.length; ) n += nodeFs.writeSync(fd, bytes, n, bytes.length - n);
    nodeFs.fsyncSync(fd);
  } finally {
    nodeFs.closeSync(fd);
  }
}
