/**
 * The features as the server (`lsp/`) and the command line (`cli/`) call them. `lsp/` and `cli/`
 * reach `features/` only through this folder (`scripts/imports.mjs` fails on any other import), so
 * that a feature can be split or moved by changing a line here instead of every caller.
 *
 * The facade is split by job, because every module a command loads costs each of its runs: `check`
 * imports `diagnostics.ts` and `fixes.ts`, `context` imports `context.ts`, and neither loads the
 * editor's features. This file is the whole, for the server, which uses them all.
 */

export * from "./context";
export * from "./diagnostics";
export * from "./editor";
export * from "./fixes";
