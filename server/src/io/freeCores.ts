/**
 * How many cores other work leaves for this process's workers, measured over a stretch of work:
 * the machine's idle time from the kernel's per-core counters (`os.cpus()`) and this process's own
 * CPU time (`process.cpuUsage()`, every thread) tell what the other processes used meanwhile; the
 * cores left, less the one this thread works on, are free for workers.
 *
 * A worker thread pays only when a core is free for it. The last minute's load average (what the
 * server's first open reads, `parsePool.ts`) lags: a job started seconds ago is not in it, and one
 * that ended is. The time measured while this thread checks its first files says what the machine
 * has to spare now, and costs nothing, since those files had to be checked anyway. This process's
 * own use is taken out rather than the idle time read alone, because its collector and compiler
 * threads take part of the second core of an otherwise idle machine (a one-thread `check` used
 * about 1.4 cores): that part is this process's, not another's, and a worker shares it.
 */

import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { processCores } from "./cpuQuota";

/** The idle milliseconds of every core, summed, this process's CPU milliseconds, and when they were read. */
interface Reading {
  idleMs: number;
  ownMs: number;
  cores: number;
  at: number;
}

function read(): Reading {
  let idleMs = 0;
  const all = cpus();
  for (const core of all) idleMs += core.times.idle;
  const own = process.cpuUsage();
  return { idleMs, ownMs: (own.user + own.system) / 1000, cores: all.length, at: performance.now() };
}

/** A stretch of work being measured: `freeCores()` answers for the time since `measureFreeCores()`. */
export interface FreeCoreProbe {
  /** Milliseconds since the probe started. */
  elapsed(): number;
  /**
   * The cores free for workers on average since the probe started: 0 when too little time passed
   * to tell, infinite when the system gives no counters (then every thread asked for is started).
   */
  freeCores(): number;
}

/** `$PI_SESSION_LSP_FREE_CORES` as a number, NaN when it is not set. */
export function statedFreeCores(env: NodeJS.ProcessEnv): number {
  return env.PI_SESSION_LSP_FREE_CORES === undefined || env.PI_SESSION_LSP_FREE_CORES === "" ? Number.NaN : Number(env.PI_SESSION_LSP_FREE_CORES);
}

/**
 * Starts measuring. `$PI_SESSION_LSP_FREE_CORES`, a number, is the answer instead: for a machine
 * whose counters do not describe this process's share, and for tests, which must not depend on how
 * busy the machine is. The answer is never more than the cores this process may use less this
 * thread's (`usable`, the affinity's cores lowered by a CPU quota: `cpuQuota.ts`), since the
 * machine's idle counters do not see a container's quota.
 */
export function measureFreeCores(env: NodeJS.ProcessEnv = process.env, usable = processCores()): FreeCoreProbe {
  const start = read();
  const stated = statedFreeCores(env);
  return {
    elapsed: () => performance.now() - start.at,
    freeCores: () => {
      if (stated >= 0) return stated;
      const end = read();
      const wall = end.at - start.at;
      // Without the counters (`os.cpus()` is empty on some systems) nothing can be told: the threads asked for are started.
      if (end.cores === 0) return Number.POSITIVE_INFINITY;
      // The kernel counts idle time in ticks (10 ms each on most systems): a shorter stretch says nothing.
      if (wall < 20) return 0;
      const idle = (end.idleMs - start.idleMs) / wall;
      const own = (end.ownMs - start.ownMs) / wall;
      const others = Math.max(0, end.cores - idle - own);
      return Math.max(0, Math.min(end.cores - 1 - others, usable - 1));
    },
  };
}

/**
 * The cores free for workers at this instant, or undefined when that cannot be told at once: the
 * threads runnable now on the whole machine, from Linux's `/proc/loadavg` (its fourth field,
 * "running/total", counts this thread among them), against the cores. A measurement
 * (`measureFreeCores`) needs a tenth of a second before it answers, and a worker that waits for it
 * starts too late to share a search of half a second; this answer is one instant, so it is trusted
 * only when it says that a core is free (another thread's burst may have been missed), and the
 * measurement decides otherwise. `cores` are the cores this process may use (`cpuQuota.ts`: a
 * container's quota lowers them, while the runnable threads are the whole machine's).
 * `$PI_SESSION_LSP_FREE_CORES` is the answer, as for the measurement.
 */
export function freeCoresNow(env: NodeJS.ProcessEnv = process.env, loadavg = "/proc/loadavg", cores = processCores()): number | undefined {
  const stated = statedFreeCores(env);
  if (stated >= 0) return stated;
  let text: string;
  try {
    text = readFileSync(loadavg, "latin1");
  } catch {
    return undefined;
  }
  const running = Number(/^\S+ \S+ \S+ (\d+)\//.exec(text)?.[1]);
  if (!(running >= 1)) return undefined;
  // This thread is one of the runnable ones; the others hold a core each.
  const free = cores - running;
  return free >= 1 ? free : undefined;
}
