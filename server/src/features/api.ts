/**
 * The features as the server (`lsp/`) and the command line (`cli/`) call them: the one place
 * outside `features/` that names a feature's file, so that a feature can be split or moved by
 * changing a line here instead of every caller.
 */

export { CODE_ACTION_KINDS, computeCodeActions } from "./codeActions";
export { computeCodeLenses, resolveCodeLens } from "./codeLens";
export { computeCompletion } from "./completion";
export { contextMarkdownOptions, renderContextMarkdown } from "./contextMarkdown";
export {
  BUILD_CONTEXT_REQUEST,
  type BuildContextParams,
  type BuildContextResult,
  type ContextAnswer,
  computeContextRequest,
  computeShowContext,
  SHOW_CONTEXT_COMMAND,
} from "./contextRequest";
export { capDiagnostics, MAX_PER_CODE, MAX_PER_FILE } from "./diagnosticCap";
export { applySeverityOverrides, collectDiagnostics, DIAGNOSTIC_SOURCE, type SeverityOverrides } from "./diagnostics";
export { isForkActionData, resolveForkAction } from "./entryActions";
export { computeFadingHints } from "./fading";
export { applyFixes, type FixAllResult, quickFixes, type UnsafeFixApplied } from "./fixes";
export { computeFoldingRanges } from "./folding";
export { formattingSteps } from "./formatting";
export {
  callHierarchyIncomingCalls,
  callHierarchyOutgoingCalls,
  prepareHierarchy,
  typeHierarchySubtypes,
  typeHierarchySupertypes,
} from "./hierarchy";
export { computeHover } from "./hover";
export { computeInlayHints } from "./inlayHints";
export { contextDocument, migrationNote } from "./migratedView";
export { isMigrationActionData, needsMigration, resolveMigrationAction } from "./migration";
export { computeDefinition, computeDocumentHighlights, computeDocumentLinks, computeReferences } from "./navigation";
export { type ContextStage, providerRequestOf, renderProviderMarkdown } from "./providerView";
export { computeRename, isRenameRefusal, prepareRename } from "./rename";
export { computeDocumentSymbols, DEFAULT_MAX_SYMBOLS } from "./symbols";
export { targetAt } from "./target";
export { computeWorkspaceSymbols, DEFAULT_MAX_WORKSPACE_SYMBOLS } from "./workspaceSymbols";
