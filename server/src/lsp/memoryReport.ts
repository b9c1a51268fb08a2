/**
 * What the server's memory is made of, written to standard error after each idle collection when
 * `PI_SESSION_LSP_MEMORY_LOG` is set: a debugging aid for issue 32's "memory after the close", which
 * needs V8's own view (each heap space's committed and used bytes, the bytes outside its heap)
 * beside the RSS, from inside the process. Unset, nothing is measured or written.
 */

import { getHeapSpaceStatistics } from "node:v8";

const MB = 1024 * 1024;
const mb = (bytes: number) => (bytes / MB).toFixed(1);

/** One line: the RSS, V8's heap and external bytes, and each non-empty heap space's physical / used size, in MB. */
export function memoryReport(): string {
  const usage = process.memoryUsage();
  const spaces = getHeapSpaceStatistics()
    .filter((space) => space.physical_space_size > 0)
    .map((space) => `${space.space_name} ${mb(space.physical_space_size)}/${mb(space.space_used_size)}`);
  return `rss ${mb(usage.rss)} heap ${mb(usage.heapTotal)}/${mb(usage.heapUsed)} external ${mb(usage.external)} arrayBuffers ${mb(usage.arrayBuffers)}; ${spaces.join(", ")}`;
}

/** Writes `memoryReport()` after `when` to standard error if `env` asks for it. */
export function logMemory(when: string, env: NodeJS.ProcessEnv = process.env): void {
  if (!env.PI_SESSION_LSP_MEMORY_LOG) return;
  process.stderr.write(`pi-session-lsp memory ${when}: ${memoryReport()}\n`);
}
