/**
 * How many cores stood idle while this process worked: the machine's idle time over a stretch of
 * work, from the kernel's per-core counters (`os.cpus()`), divided by the stretch's wall time.
 *
 * A worker thread pays only when a core is free for it. The last minute's load average (what the
 * server's first open reads, `parsePool.ts`) lags: a job started seconds ago is not in it, and one
 * that ended is. The idle time measured while this thread checks its first files says what the
 * machine has to spare now, and costs nothing, since those files had to be checked anyway.
 */

import { cpus } from "node:os";

/** The idle milliseconds of every core, summed, and when they were read. */
interface IdleReading {
  idleMs: number;
  at: number;
}

function readIdle(): IdleReading {
  let idleMs = 0;
  for (const core of cpus()) idleMs += core.times.idle;
  return { idleMs, at: performance.now() };
}

/** A stretch of work being measured: `freeCores()` answers for the time since `measureFreeCores()`. */
export interface FreeCoreProbe {
  /** Milliseconds since the probe started. */
  elapsed(): number;
  /** The cores that stood idle on average since the probe started (0 when too little time passed to tell). */
  freeCores(): number;
}

/**
 * Starts measuring. `$PI_SESSION_LSP_FREE_CORES`, a number, is the answer instead: for a machine
 * whose counters do not describe this process's share (a container limited to part of the cores
 * it sees), and for tests, which must not depend on how busy the machine is.
 */
export function measureFreeCores(env: NodeJS.ProcessEnv = process.env): FreeCoreProbe {
  const start = readIdle();
  const stated = env.PI_SESSION_LSP_FREE_CORES === undefined || env.PI_SESSION_LSP_FREE_CORES === "" ? Number.NaN : Number(env.PI_SESSION_LSP_FREE_CORES);
  return {
    elapsed: () => performance.now() - start.at,
    freeCores: () => {
      if (stated >= 0) return stated;
      const end = readIdle();
      const wall = end.at - start.at;
      // The kernel counts idle time in ticks (10 ms each on most systems): a shorter stretch says nothing.
      if (wall < 20) return 0;
      return Math.max(0, (end.idleMs - start.idleMs) / wall);
    },
  };
}
