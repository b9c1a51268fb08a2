/**
 * The facade's export: a session's branch or tree as Markdown or one HTML page, and the plan of
 * what is shown. `export FILE` loads this part, with `diagnostics.ts` for the findings it marks.
 */

export { exportSession, type ExportOptions, type ExportResult } from "../export/exportSession";
export { PAGE_SCRIPT } from "../export/htmlPage";
export { type ExportPlan, exportPlan } from "../export/plan";
export { contextDocument, migrationNote } from "../migratedView";
export { computeMarkdownExport, EXPORT_MARKDOWN_COMMAND, type MarkdownExport, type MarkdownExportAnswer } from "../exportCommand";
