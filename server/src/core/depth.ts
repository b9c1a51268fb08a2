/**
 * How deep a parsed JSON value nests, found without recursion: `JSON.stringify` (and so every
 * JSON-RPC answer) overflows the stack on a value a few thousand levels deep, which a session
 * line can hold, so an answer that carries session values is checked before it is sent.
 */

/** Deeper than anything Pi writes, and well below where `JSON.stringify` overflows. */
export const MAX_ANSWER_DEPTH = 1000;

/** Whether `value` has arrays or objects nested more than `limit` levels deep. */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth >= limit) return true;
    for (const item of Array.isArray(v) ? v : Object.values(v)) if (item !== null && typeof item === "object") stack.push([item, depth + 1]);
  }
  return false;
}
