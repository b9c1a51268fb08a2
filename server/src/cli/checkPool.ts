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
import { processCores } from "../io/cpuQuota";
import { freeCoresNow, measureFreeCores } from "../io/freeCores";
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

/**
 * How long this thread checks the smallest files alone before it decides on workers: the kernel's
 * idle counters tick every 10 ms, so a tenth of a second tells a free core from a busy one.
 */
const PROBE_MS = 100;

/** The probe checks at most this share of the folder's bytes, so that a folder of a few large files is not checked on one thread for long. */
const PROBE_SHARE = 1 / 8;

/**
 * Checks `targets`; a promise when they are checked on worker threads, undefined when already done here.
 *
 * Threads never cost: unless a core is free at this instant (`freeCoresNow`), this thread first
 * checks the smallest files for `PROBE_MS` while measuring how many cores the machine's other work
 * left free meanwhile (`io/freeCores.ts`), and starts a worker only for a core that was free. A
 * worker on a busy machine took this thread's core instead of an idle one, and with its start and
 * its own compilation of the checker the folder took longer than on one thread (0.76–0.83× while
 * another job held a core of two).
 */
export function checkTargets<O>(targets: readonly Target[], hooks: CheckHooks<O>): Promise<void> | undefined {
  const sizes = targets.map((t) => {
    try {
      return statSync(t.path).size;
    } catch {
      return 0;
    }
  });
  const progress: ScanProgress = { files: 0, totalFiles: targets.length, bytes: 0, totalBytes: sizes.reduce((a, b) => a + b, 0) };
  const onBytes = (bytes: number) => {
    progress.bytes += bytes;
    hooks.progress?.update(progress);
  };
  const reports: (FileReport | undefined)[] = new Array(targets.length);
  let next = 0;
  const flush = () => {
    for (; next < targets.length && reports[next] !== undefined; next++) {
      hooks.absorb(reports[next]!);
      reports[next] = undefined;
    }
  };
  const task = (target: Target): CheckTask<O> => ({ target, options: hooks.options, cwd: hooks.cwd });
  const rest = usesThreads(hooks.threads, targets.length, sizes, WORKER_SCRIPT) ? probe(targets, sizes, hooks, task, reports, onBytes) : undefined;
  if (rest === undefined || rest.workers === 0) {
    // In the files' order, each printed as it is checked; a file the probe checked is printed from its report.
    for (let i = 0; i < targets.length; i++) {
      const report = reports[i];
      if (report === undefined) hooks.here(targets[i]!, onBytes);
      else {
        hooks.absorb(report);
        reports[i] = undefined;
      }
      progress.files++;
      hooks.progress?.update(progress);
    }
    hooks.progress?.done();
    return undefined;
  }
  const { indices, workers } = rest;
  const job = {
    script: WORKER_SCRIPT,
    here: hooks.one,
    onResult: (index: number, report: FileReport) => {
      reports[indices[index]!] = report;
      flush();
    },
  };
  const options = {
    threads: workers + 1,
    keepWorkers: coresStayFree(),
    sizes: indices.map((i) => sizes[i]!),
    withThisThread: true,
    // The pool counts the files left; the probe's files and bytes come before them.
    onProgress: (p: ScanProgress) =>
      hooks.progress?.update({
        files: targets.length - indices.length + p.files,
        totalFiles: targets.length,
        bytes: progress.bytes + p.bytes,
        totalBytes: progress.totalBytes,
      }),
  };
  return runPool(
    indices.map((i) => task(targets[i]!)),
    job,
    options,
  ).then(() => {
    hooks.progress?.done();
  });
}

/**
 * Whether the cores the workers were started for are still free, asked after each file this
 * thread checks: measured over stretches of `PROBE_MS` (`io/freeCores.ts`), the answer turns
 * false, for good, after a stretch in which other work held the cores (less than half a core left
 * for the workers, as the start's decision rounds). Another job started after the workers (a build,
 * a test run) then has the core a worker shares with it, and this thread takes the files left
 * instead of waiting at the end for a worker's file checked at a third of the speed.
 */
function coresStayFree(): () => boolean {
  let stretch = measureFreeCores();
  let free = true;
  return () => {
    if (free && stretch.elapsed() >= PROBE_MS) {
      free = stretch.freeCores() >= 0.5;
      stretch = measureFreeCores();
    }
    return free;
  };
}

/**
 * Checks the smallest files in this thread into `reports` until `PROBE_MS` have passed, and says
 * which files are left (in the files' order) and how many workers the cores left free meanwhile
 * are worth. A core free at this instant needs no probe: its worker starts at once, and this
 * thread, instead of checking small files alone for `PROBE_MS` while the other core idles, takes
 * the largest file while the worker starts (about 0.1 s on an idle machine of two cores).
 */
function probe<O>(
  targets: readonly Target[],
  sizes: readonly number[],
  hooks: CheckHooks<O>,
  task: (target: Target) => CheckTask<O>,
  reports: (FileReport | undefined)[],
  onBytes: (bytes: number) => void,
): { indices: number[]; workers: number } {
  const now = freeCoresNow();
  if (now !== undefined && now >= 1) return { indices: targets.map((_, i) => i), workers: Math.min(hooks.threads - 1, Math.floor(now)) };
  // One core usable (a CPU quota of one: `io/cpuQuota.ts`) leaves none to measure: no probe. Asked
  // after `freeCoresNow`, whose answer `$PI_SESSION_LSP_FREE_CORES` states whatever the cores, so
  // that the tests' stated cores start the same workers on a runner of one core as on any other.
  if (processCores() < 2) return { indices: targets.map((_, i) => i), workers: 0 };
  const smallestFirst = targets.map((_, i) => i).sort((a, b) => sizes[a]! - sizes[b]! || a - b);
  const budget = sizes.reduce((a, b) => a + b, 0) * PROBE_SHARE;
  const cores = measureFreeCores();
  let probed = 0;
  let bytes = 0;
  // At least one file, and never the last: what is left is what the workers would share.
  while (probed < targets.length - 1 && (probed === 0 || (cores.elapsed() < PROBE_MS && bytes + sizes[smallestFirst[probed]!]! <= budget))) {
    const i = smallestFirst[probed++]!;
    reports[i] = hooks.one(task(targets[i]!), onBytes);
    bytes += sizes[i]!;
  }
  const free = cores.freeCores();
  const workers = Math.min(hooks.threads - 1, Math.floor(free + 0.5));
  const indices = targets.map((_, i) => i).filter((i) => reports[i] === undefined);
  return { indices, workers };
}
