// Types for fakeHome.mjs (plain JavaScript so that the oracle script can import it without a build).

export interface WrittenSession {
  path: string;
  id: string | undefined;
  cwd: string | undefined;
}

export interface FakeHome {
  root: string;
  home: string;
  agentDir: string;
  sessions: string;
  projects: { alpha: string; beta: string; gammaOld: string; gamma: string; empty: string };
  alphaLink: string;
  shared: string;
  dirs: { alpha: string; beta: string; gammaOld: string };
  written: Record<"a1" | "a2" | "a3" | "a4" | "a5" | "a6" | "empty" | "b1" | "b2" | "g1" | "s1" | "s2", WrittenSession>;
}

export function encodeCwd(cwd: string): string;
export function buildFakeHome(root: string): FakeHome;
export function writeLargeSession(
  file: string,
  bytes: number,
  options?: { cwd?: string; id?: string; firstMessage?: string },
): { entries: number; bytes: number };
