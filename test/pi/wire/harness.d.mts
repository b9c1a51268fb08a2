// Types for harness.mjs (plain JavaScript so that record.mjs runs without a build).

export const APIS: string[];
export const WIRE_PROMPT: string;
export const STAND_IN: Record<string, { provider: string; id: string; path: string }>;
export function runWire(options: unknown): Promise<unknown>;
