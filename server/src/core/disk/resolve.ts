/**
 * What `pi --session ARG` opens, decided as Pi decides it (`resolveSessionPath` in Pi's
 * `main.ts`), and every other session the argument could have meant.
 *
 * Pi 1.x: an argument with "/" or "\" or ending in ".jsonl" is a path; otherwise an exact id
 * among this project's session headers (`findById`, in folder order), then the first session of
 * this project's list (newest first) whose id starts with it, then in the list of every project
 * the first with exactly that id, else the first whose id starts with it. Pi 0.74 skips the exact
 * steps: the first of this project's list whose id starts with it, then the first of every
 * project's. Neither says when a prefix matched more than one session (#9733); a match in another
 * project is offered as a fork into the current one.
 */

import { idMatches } from "../session/rules";
import { type PiVersion, resolvePath16 } from "./location";

export interface ResolveSession {
  path: string;
  id: unknown;
  cwd: string;
  modified: number;
}

export type Resolution =
  | { kind: "path"; path: string }
  | { kind: "local" | "global"; path: string; how: "exact" | "prefix"; cwd: string }
  | { kind: "not-found" }
  | { kind: "throws"; error: string };

export interface ResolveInput {
  version: PiVersion;
  arg: string;
  /** Pi's process cwd and home. */
  cwd: string;
  home: string;
  /** 1.x `findById`: the first file of this project's folder (in folder order) whose header has exactly this id, if any. */
  exactLocal?: string;
  /** This project's list, in Pi's order (newest first). */
  local: readonly ResolveSession[];
  /** Every project's list (1.x: of the custom folder when one is set), in Pi's order. */
  all: readonly ResolveSession[];
}

export function looksLikePath(arg: string): boolean {
  return arg.includes("/") || arg.includes("\\") || arg.endsWith(".jsonl");
}

/** Whether an argument can be an id or id prefix (Pi 1.x ids: letters, digits, ".", "_", "-"). */
function idLike(arg: string): boolean {
  return /^[A-Za-z0-9._-]+$/.test(arg);
}

/**
 * Whether `find` searches names and messages from the start: `text` "always", or "auto" and an
 * argument that is neither a path nor an id (an id that matches none is searched afterwards).
 */
export function searchesTextFirst(arg: string, text: "auto" | "always" | "never" | undefined): boolean {
  return text === "always" || (text !== "never" && !looksLikePath(arg) && !idLike(arg));
}

export function resolveLikePi(input: ResolveInput): Resolution {
  const { arg, version } = input;
  // 1.x resolves the path (`~`, `file:` URLs); 0.74 opens it as given, relative to its cwd.
  if (looksLikePath(arg)) return { kind: "path", path: version === "1.x" ? resolvePath16(arg, input.cwd, input.home) : arg };
  try {
    if (version === "1.x") {
      if (input.exactLocal) return { kind: "local", path: input.exactLocal, how: "exact", cwd: input.cwd };
      const local = input.local.find((s) => idMatches(s, arg));
      if (local) return { kind: "local", path: local.path, how: "prefix", cwd: local.cwd };
      const exact = input.all.find((s) => s.id === arg);
      const global = exact ?? input.all.find((s) => idMatches(s, arg));
      if (global) return { kind: "global", path: global.path, how: exact ? "exact" : "prefix", cwd: global.cwd };
      return { kind: "not-found" };
    }
    // 0.74 filters the whole list first, so any id that is not a string throws.
    const local = input.local.filter((s) => idMatches(s, arg));
    if (local.length > 0) return { kind: "local", path: local[0]!.path, how: local[0]!.id === arg ? "exact" : "prefix", cwd: local[0]!.cwd };
    const global = input.all.filter((s) => idMatches(s, arg));
    if (global.length > 0) return { kind: "global", path: global[0]!.path, how: global[0]!.id === arg ? "exact" : "prefix", cwd: global[0]!.cwd };
    return { kind: "not-found" };
  } catch (error) {
    return { kind: "throws", error: `${error instanceof Error ? error.name : "Error"}: ${error instanceof Error ? error.message : String(error)}` };
  }
}
