/**
 * How deep a parsed JSON value nests, found without recursion: `JSON.stringify` (and so every
 * JSON-RPC answer) overflows the stack on a value a few thousand levels deep, which a session
 * line can hold, so an answer that carries session values is checked before it is sent.
 */

import { renewableWeakMap } from "./weakTables";

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

/** A message's nesting, found once per message object: the answers that carry messages check each again only when it changed. */
const depths = renewableWeakMap<object, number>();

/**
 * Whether any of `messages`, sent `offset` levels below an answer's top (an answer's
 * `context.messages[k]` is 3 below it), nests deeper than `limit` there: each message's nesting is
 * found once per message object (a context or request built again after an edit shares the
 * unchanged ones), so the check costs in proportion to the messages not checked before.
 */
export function messagesDeeperThan(messages: readonly unknown[], offset: number, limit: number): boolean {
  for (const m of messages) {
    if (m === null || typeof m !== "object") continue;
    let depth = depths.get(m);
    if (depth === undefined) depths.set(m, (depth = deepestObject(m, MAX_ANSWER_DEPTH)));
    if (offset + depth >= limit) return true;
  }
  return false;
}

/** The depth of the deepest array or object in `value` (itself 0), at most `cap`: `nestedDeeperThan(value, n)` is `deepestObject(value, cap) >= n` for n up to `cap`. */
function deepestObject(value: unknown, cap: number): number {
  let deepest = -1;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > deepest && (deepest = depth) >= cap) return cap;
    for (const item of Array.isArray(v) ? v : Object.values(v)) if (item !== null && typeof item === "object") stack.push([item, depth + 1]);
  }
  return deepest;
}
