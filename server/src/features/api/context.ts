/**
 * The facade's context as text: the context Pi builds and the provider request after it, put into
 * Markdown, with the view of a file Pi would migrate. `context FILE` loads this part alone; the
 * editor's request for the same context is in `editor.ts`.
 */

export { contextMarkdownOptions, renderContextMarkdown } from "../contextMarkdown";
export { contextDocument, migrationNote } from "../migratedView";
export { type ContextStage, providerRequestOf, renderProviderMarkdown } from "../providerView";
