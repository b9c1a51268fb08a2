// Types for validate.mjs (plain JavaScript, imported as it is by the fake provider and verdicts.mjs).

export type Verdict = { ok: true } | { ok: false; status: number; type: string; message: string; rule: string; at: string };
export function validateRequest(api: string, body: unknown, options?: { bytes?: number }): Verdict;
export function bodyBytes(body: unknown): number;
export const ANTHROPIC_LIMITS: Record<string, number | string[]>;
export const OPENAI_LIMITS: Record<string, number | string[]>;
export function errorBody(api: string, verdict: Extract<Verdict, { ok: false }>): Record<string, unknown>;
