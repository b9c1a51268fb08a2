/**
 * Whether Pi 1.x opens a file, from the first entry it reads: the one check of
 * `loadEntriesFromFile`, shared by the skeleton (`tree`, `info`) and `usage`, which reads no
 * skeleton, so that they refuse the same files with the same words.
 */

/**
 * Why Pi does not open a file whose first entry read (on 0-based `line`) is `first`, or undefined
 * when it is a session header with a string id (`loadEntriesFromFile`'s check).
 */
export function headerFault(first: Record<string, unknown>, line: number): string | undefined {
  if (first.type === "session" && typeof first.id === "string") return undefined;
  return `the first entry Pi reads (line ${line + 1}) is not a session header with a string id`;
}

/** Why Pi does not open a file in which no entry was read (`bytes` long), in `SkeletonBuilder`'s words. */
export function noHeaderFault(bytes: number): { load: "empty" | "invalid"; message: string } {
  return bytes === 0 ? { load: "empty", message: "the file is empty" } : { load: "invalid", message: "no line of the file can be parsed as a session header" };
}
