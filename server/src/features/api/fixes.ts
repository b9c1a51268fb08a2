/**
 * The facade's fixes: the quick fixes of a diagnostic, Fix all (what `check --fix` applies), and
 * the v1/v2 migration. `check` loads this part with the diagnostics, and no other feature.
 */

export { quickFixes } from "../fixes";
export { applyFixes, type FixAllResult, type UnsafeFixApplied } from "../fixes/fixAll";
export { isMigrationActionData, needsMigration, resolveMigrationAction } from "../migration";
