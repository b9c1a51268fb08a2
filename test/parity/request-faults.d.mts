// Types for request-faults.mjs (plain JavaScript so that generate.mjs imports it without a build).

export function requestFaults(h: unknown): [string, string, () => string][];
export function noisePng(width: number, height: number, seed: number): Buffer;
export const SCREENSHOT: { width: number; height: number; count: number };
export function requestTooLarge(): string;
export const GENERATED_FAULTS: [string, string, () => string][];
