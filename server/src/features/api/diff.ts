/**
 * The facade's branch comparison: `diff FILE LEAF_A LEAF_B` loads this part alone.
 */

export { type BranchDiff, type BranchSide, branchDiff, type ContextSummary, type DiffMessage, MAX_LISTED_MESSAGES, summarizeContext } from "../branchDiff";
export { renderDiff } from "../branchDiffText";
export { type BranchComparison, COMPARE_BRANCHES_COMMAND, type ComparisonAnswer, computeBranchComparison } from "../branchCompare";
