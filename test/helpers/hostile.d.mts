// Types for hostile.mjs (plain JavaScript so that the oracle script can import it without a build).

export function seeded(seed: number): () => number;
export const PAYLOADS: readonly string[];
export function nested(depth: number, inner?: string): string;
export function makeGen(random: () => number): { session(options?: { oddIds?: boolean; entries?: number }): string };
export function writeHostileFolder(
  root: string,
  random: () => number,
  options?: { count?: number; hugeLines?: number },
): { dir: string; outside: string; files: string[] };
