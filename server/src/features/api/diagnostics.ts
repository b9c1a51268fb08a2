/**
 * The facade's diagnostics: the checks, the cap on their number, the severities a user overrides,
 * and the encoding's diagnostic that `check` reports before a file is decoded. `check` loads this
 * part alone, so that a run compiles what checking needs and nothing of the editor's features.
 */

export { capDiagnostics, MAX_PER_CODE, MAX_PER_FILE } from "../diagnosticCap";
export {
  collectDiagnostics,
  collectDiagnosticsSteps,
  collectProvisionalDiagnostics,
  collectStructuralDiagnostics,
  type CollectedDiagnostics,
} from "../diagnostics";
export { rederiveRequestDiagnosticsSteps, requestDiagnosticsFor } from "../requestDiagnostics";
export { encodingDiagnostics } from "../diagnostics/encodingChecks";
export { applySeverityOverrides, DIAGNOSTIC_SOURCE, type SeverityOverrides } from "../diagnostics/report";
