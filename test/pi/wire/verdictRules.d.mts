// Types for verdictRules.mjs (plain JavaScript, shared by verdicts.mjs and test/parity/wireVerdicts.test.ts).

import type { Diagnostic } from "vscode-languageserver";

export interface WireRecord {
  fixture: string;
  pi: string;
  api: string;
  model: string;
  outcome: string;
  error?: string;
  requests: { path: string; body: unknown; bodyBytes?: number }[];
  source: "wire" | "recorded" | "capture";
}
export interface Core {
  SessionDocument: new (uri: string, languageId: string, version: number, text: string) => unknown;
  computeDiagnostics: (doc: never) => Diagnostic[];
  requestDiagnosticsFor: (doc: never, model: never) => Diagnostic[];
  activeContext: (analysis: never) => { ok: boolean; failure?: { entry?: { line: number } } };
  REFUSED_CODES: ReadonlySet<string>;
  REQUEST_FAILS_CODES: ReadonlySet<string>;
  findModel: (version: "1.6", provider: string, id: string) => unknown;
}
export const MODELS: Record<string, [string, string]>;
export const APIS: string[];
export const RULE_CODES: Record<string, string[]>;
export const REQUEST_FAMILY: ReadonlySet<string>;
export const ALLOWED: Record<string, string>;
export function stem(fixture: string): string;
export function corpus(parity: string): string[];
export function sessionFile(parity: string, fixture: string): string;
export function sessionText(parity: string, fixture: string): string;
export function modelFor(core: Core, api: string, name: string): unknown;
export function recordedFailure(parity: string, fixture: string): { outcome: string; error: string } | undefined;
export function storedRecord(parity: string, fixture: string, api: string): WireRecord | undefined;
export function providerVerdict(record: WireRecord): { verdict: string; rule: string; message?: string };
export function ourVerdict(core: Core, text: string, model: unknown): { verdict: string; code: string };
export function agree(provider: { verdict: string; rule: string }, ours: { verdict: string; code: string }): boolean;
