/**
 * `check` over many files: in this thread one after the other, or, for a folder worth it (several
 * files, 16 MiB or more in all), on the worker pool of `io/scanPool.ts`, one file per task, the
 * largest first, this thread being one of the pool's (`--threads 2` starts one worker). Each
 * thread's file is checked by the same code into a `FileReport` (what it printed and counted),
 * and reports are absorbed in the files' order as soon as every file before them is done, so the
 * output is the same, byte for byte, whatever the number of threads. A progress line goes to stderr
 * only when stderr is a terminal, and is erased before anything else is printed.
 */

import { statSync } from "node:fs";
import { join } from "node:path";
import { type ScanProgress, runPool, usesThreads } from "../io/scanPool";
import type { CheckVerdict } from "./checkVerdict";
import type { Totals } from "./report";
import type { Progress } from "./io";
import type { Target } from "./walk";

/** What a worker needs to check one file as the main thread would. */
export interface CheckTask<O> {
  target: Target;
  options: O;
  cwd: string;
}

/** What checking one file printed (1 stdout, 2 stderr, in order) and counted. */
export interface FileReport {
  printed: [1 | 2, string][];
  totals: Totals;
  status: number;
  failed: string[];
  /** With the option `verdict` (`sessions --check`), what the check says of the file. */
  verdict?: CheckVerdict;
}

export interface CheckHooks<O> {
  threads: number;
  options: O;
  cwd: string;
  progress: Progress | undefined;
  /** Checks a file in this thread, straight to the output. */
  here: (target: Target, onBytes: (bytes: number) => void) => void;
  /** Checks a file into a report (what a worker runs). */
  one: (task: CheckTask<O>, onBytes: (bytes: number) => void) => FileReport;
  /** Takes a worker's report into the run: prints it and adds its counts. */
  absorb: (report: FileReport) => void;
}

const WORKER_SCRIPT = join(__dirname, "checkWorker.js");

/** Checks `targets`; a promise when they are checked on worker threads, undefined when already done here. */
export function checkTargets<O>(targets: readonly Target[], hooks: CheckHooks<O>): Promise<void> | undefined {
  const sizes = targets.map((t) => {
    try {
      return statSync(t.path).size;
    } catch {
      return 0;
    }
  });
  const progress: ScanProgress = { files: 0, totalFiles: targets.length, bytes: 0, totalBytes: sizes.reduce((a, b) => a + b, 0) };
  if (!usesThreads(hooks.threads, targets.length, sizes, WORKER_SCRIPT)) {
    for (const target of targets) {
      hooks.here(target, (bytes) => {
        progress.bytes += bytes;
        hooks.progress?.update(progress);
      });
      progress.files++;
      hooks.progress?.update(progress);
    }
    hooks.progress?.done();
    return undefined;
  }
  const reports: (FileReport | undefined)[] = new Array(targets.length);
  let next = 0;
  const flush = () => {
    for (; next < targets.length && reports[next] !== undefined; next++) {
      hooks.absorb(reports[next]!);
      reports[next] = undefined;
    }
  };
  const tasks = targets.map((target) => ({ target, options: hooks.options, cwd: hooks.cwd }));
  const job = {
    script: WORKER_SCRIPT,
    here: hooks.one,
    onResult: (index: number, report: FileReport) => {
      reports[index] = report;
      flush();
    },
  };
  return runPool(tasks, job, { threads: hooks.threads, sizes, withThisThread: true, onProgress: (p) => hooks.progress?.update(p) }).then(() => {
    hooks.progress?.done();
  });
}
