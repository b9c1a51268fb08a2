// Types for the parts of oracle.mjs the tests share (the cases, so both sides ask the same questions).

import type { FakeHome } from "./fakeHome.mjs";

export function findCases(h: FakeHome): { name: string; cwd: string; arg: string; sessionDir?: string }[];
export function listScenarios(h: FakeHome): unknown;
