/**
 * The tests' one time limit, and the rule behind it: no test depends on how fast the machine is.
 *
 * A test waits on events (a response, a publish, a child's exit), never on a sleep that guesses how
 * long the work takes, and asserts no duration: speed is the benchmark's business (bench/). A time
 * limit is there only so that a hang fails instead of blocking the run, so it is minutes: a correct
 * program finishes far inside it even on a machine whose load average is ten times its cores (at
 * 15 to 29 on 2 cores, the slowest test took 124 s, a fifth of it), and a hang still fails, only
 * later (issue 29).
 *
 * vitest's `testTimeout` and `hookTimeout` are `HANG_MS` (vitest.config.mts). A single wait inside
 * a test (an LSP request, a child process run with `spawnSync`) gets `WAIT_MS`, half of it, so that
 * a hung wait fails with its own message, which says what it waited for, before vitest's timeout
 * cuts the test short with none; `spawnSync` also blocks the worker, so vitest's timer cannot fire
 * until the child is killed.
 */
export const HANG_MS = 10 * 60_000;

/** The limit of one wait inside a test: half of `HANG_MS`, so that it fails first and says why. */
export const WAIT_MS = HANG_MS / 2;

/**
 * Resolves once `ready()` holds, looking again every 50 ms: the wait for a condition that no event
 * announces (a file the server reads again, a worker thread's counter). It fails after `WAIT_MS`,
 * naming `what`, so that only a hang fails it.
 */
export async function until(ready: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = performance.now() + WAIT_MS;
  while (!(await ready())) {
    if (performance.now() > deadline) throw new Error(`Timed out after ${WAIT_MS} ms waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
