/**
 * Where `export` writes: standard output, or the file `--out` names, written in chunks as the
 * export goes. The file is written beside its place under a temporary name and put there only
 * when the export is complete: without `--force` by a hard link, which fails rather than replace
 * a file that exists (even one made meanwhile); with `--force` by a rename. A failed export leaves
 * no file behind and the old one, if any, as it was.
 */

import * as nodeFs from "node:fs";
import { basename, dirname, join } from "node:path";

/** Bytes gathered before one write. */
const CHUNK_BYTES = 1024 * 1024;

export interface ExportSink {
  write(text: string): void;
  /** Puts the file in place (for `--out`); after this, nothing more is written. */
  finish(): void;
  /** Removes what was written (for `--out`), after a failure. */
  abandon(): void;
}

/** A sink to `out` (standard output), each chunk passed through `map` (the terminal's escaping). */
export function stdoutSink(out: (text: string) => void, map: (text: string) => string): ExportSink {
  let pending: string[] = [];
  let size = 0;
  const flush = () => {
    if (pending.length > 0) out(map(pending.join("")));
    pending = [];
    size = 0;
  };
  return {
    write(text) {
      pending.push(text);
      size += text.length;
      if (size >= CHUNK_BYTES) flush();
    },
    finish: flush,
    abandon: flush,
  };
}

/**
 * Why `path` cannot be written, or undefined: it exists and `force` is not given, or it is not a
 * regular file, or it is the session being exported.
 */
export function outRefusal(path: string, input: nodeFs.Stats | undefined, force: boolean): string | undefined {
  let stat: nodeFs.Stats;
  try {
    stat = nodeFs.statSync(path);
  } catch {
    return undefined;
  }
  if (input && stat.dev === input.dev && stat.ino === input.ino) return "it is the session being exported";
  if (!stat.isFile()) return "it exists and is not a regular file";
  return force ? undefined : "it exists (give --force to replace it)";
}

/** A sink to the file `path`, written under a temporary name beside it until `finish`. */
export function fileSink(path: string, force: boolean, map: (text: string) => string): ExportSink {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const fd = nodeFs.openSync(temp, "wx", 0o644);
  let pending: string[] = [];
  let size = 0;
  let open = true;
  const flush = () => {
    if (pending.length === 0) return;
    const bytes = Buffer.from(map(pending.join("")), "utf8");
    pending = [];
    size = 0;
    let done = 0;
    while (done < bytes.length) done += nodeFs.writeSync(fd, bytes, done, bytes.length - done);
  };
  const close = () => {
    if (!open) return;
    open = false;
    nodeFs.closeSync(fd);
  };
  return {
    write(text) {
      pending.push(text);
      size += text.length;
      if (size >= CHUNK_BYTES) flush();
    },
    finish() {
      try {
        flush();
        nodeFs.fsyncSync(fd);
        close();
        if (force) nodeFs.renameSync(temp, path);
        else nodeFs.linkSync(temp, path);
      } finally {
        nodeFs.rmSync(temp, { force: true });
      }
    },
    abandon() {
      close();
      nodeFs.rmSync(temp, { force: true });
    },
  };
}
