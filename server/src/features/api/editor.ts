/**
 * The facade's features that only the editor shows: what is under the cursor, navigation, the
 * tree's views, completion, the code actions and the context request. The command line loads none
 * of them.
 */

export { CODE_ACTION_KINDS, computeCodeActions } from "../codeActions";
export { computeCodeLenses, resolveCodeLens } from "../codeLens";
export { computeCompletion } from "../completion";
export {
  BUILD_CONTEXT_REQUEST,
  type BuildContextParams,
  type BuildContextResult,
  type ContextAnswer,
  computeContextRequest,
  computeShowContext,
  SHOW_CONTEXT_COMMAND,
} from "../contextRequest";
export { isForkActionData, resolveForkAction } from "../entryActions";
export { computeFadingHints } from "../fading";
export { computeFoldingRanges } from "../folding";
export { formattingSteps } from "../formatting";
export {
  callHierarchyIncomingCalls,
  callHierarchyOutgoingCalls,
  prepareHierarchy,
  typeHierarchySubtypes,
  typeHierarchySupertypes,
} from "../hierarchy";
export { computeHover } from "../hover";
export { computeInlayHints } from "../inlayHints";
export { computeDefinition, computeDocumentHighlights, computeDocumentLinks, computeReferences } from "../navigation";
export { computeRename, isRenameRefusal, prepareRename } from "../rename";
export { computeDocumentSymbols, DEFAULT_MAX_SYMBOLS } from "../symbols";
export { targetAt } from "../target";
export { computeWorkspaceSymbols, DEFAULT_MAX_WORKSPACE_SYMBOLS } from "../workspaceSymbols";
