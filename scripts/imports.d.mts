// Types for imports.mjs (plain JavaScript, so that CI runs it without a build), for test/imports.test.ts and test/protocol/facade.test.ts.

export const MAY_IMPORT: Record<string, readonly string[]>;
export const FACADES: readonly string[];
export const MAX_FUNCTION_LINES: number;
export const MAX_FILE_LINES: number;
export function sourceFiles(root: string): string[];
export function importGraph(root: string): Map<string, string[]>;
export function findCycles(graph: Map<string, readonly string[]>): { files: string[]; loop: string[] }[];
export function layerOf(file: string): string | undefined;
export function layerViolations(graph: Map<string, readonly string[]>): { file: string; target?: string; message: string }[];
export function reexportViolations(root: string): { file: string; line: number; message: string }[];
export function sizeReport(root: string): {
  files: { file: string; lines: number }[];
  functions: { file: string; line: number; name: string; lines: number }[];
};
