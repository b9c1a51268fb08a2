/**
 * Every diagnostic code the checker can report, with its severity and a one-line statement of what
 * Pi does. The README's table of codes is checked against this list by a test, so the two cannot
 * drift apart.
 */

export type Severity = "error" | "warning" | "information" | "hint";

export interface CodeInfo {
  severity: Severity;
  /** What Pi does with the fault when it opens the file; the README's table repeats it. */
  pi: string;
}

export const CODES = {
  // Errors: Pi refuses, rewrites, hangs, throws, or silently drops part of the session.
  "empty-file": {
    severity: "error",
    pi: "0 bytes: Pi writes a fresh header into it; whitespace only: Pi 0.73/0.74 overwrites it with a fresh header, Pi 1.x refuses to open it",
  },
  "missing-header": { severity: "error", pi: "Pi 0.73/0.74 overwrites the whole file with a fresh header (every entry is lost); Pi 1.x refuses to open it" },
  "invalid-header": { severity: "error", pi: "Same as missing-header: a header whose id is not a string makes the file invalid" },
  "malformed-json": { severity: "error", pi: "Pi skips the line; entries whose parentId names it become roots and lose the history above them" },
  "truncated-line": {
    severity: "error",
    pi: "Pi skips the cut-off line; Pi 1.x first appends a newline, Pi 0.73/0.74 writes its next entry onto the same line, losing that entry too",
  },
  "not-an-object": {
    severity: "error",
    pi: 'A `null` line makes Pi 0.73/0.74 throw on open; Pi 1.x skips null/false/0/"" and keeps other values as entries without an id',
  },
  "parent-cycle": {
    severity: "error",
    pi: 'Pi has no cycle guard: when the last line leads into the cycle, Pi 0.73/0.74 hangs opening the session and Pi 1.x stops with "RangeError: Invalid array length"; otherwise /tree does not show the cycle',
  },
  "self-parent": {
    severity: "error",
    pi: 'A cycle of length one: opening the session from it or below, or going there in /tree, hangs Pi 0.73/0.74 and fails in Pi 1.x with "RangeError: Invalid array length"',
  },
  "dangling-parent": { severity: "error", pi: "Pi treats the entry as a root: the context built through it stops here and loses everything above" },
  "duplicate-id": {
    severity: "error",
    pi: "Pi keeps the later entry under this id; references and children resolve to it, and the earlier one cannot be reached",
  },
  "missing-message": { severity: "error", pi: "Pi throws a TypeError when it builds a context that includes this entry" },
  bom: { severity: "error", pi: "Pi 0.73/0.74 strips it; Pi 1.x cannot parse the first line and refuses to open the file" },
  utf16: {
    severity: "error",
    pi: "Pi reads sessions as UTF-8: Pi 1.x refuses to open a UTF-16 file; Pi 0.73/0.74 overwrites it with a fresh header (every entry is lost). The editor tells it from the file's first bytes, since the text it sends is already decoded",
  },
  "oh-my-pi-session": {
    severity: "error",
    pi: "An oh-my-pi file (a title line before the header): Pi 1.x refuses to open it, Pi 0.73/0.74 overwrites it with a fresh header; nothing else is checked",
  },
  "orphaned-tool-result": {
    severity: "error",
    pi: "Pi drops the call's turn (error/aborted) or answers the call before this result, but sends the result: the provider rejects every prompt (not /compact, which sends the conversation as text)",
  },
  "request-throws": { severity: "error", pi: "Pi's message pipeline (convertToLlm, transformMessages) throws on this message, so no request is sent" },
  "invalid-reasoning-item": {
    severity: "error",
    pi: "Pi replays the thinking block to OpenAI's Responses API as the reasoning item its signature holds, which OpenAI refuses (no item of its turn follows it, or it lacks its encrypted content while nothing is stored): every request to that model fails",
  },
  "too-many-images": { severity: "error", pi: "Pi sends every image; the provider refuses a request with more than its documented number" },
  "image-too-large": { severity: "error", pi: "Pi sends the image as stored; Anthropic refuses images over 8000x8000 px (2000x2000 px with more than 20)" },
  "request-too-large": { severity: "error", pi: "Pi sends the whole context; the provider refuses a request body over its documented size" },
  // Warnings: Pi opens the file, but the session is not what it seems.
  "old-version": {
    severity: "warning",
    pi: "Pi migrates the file to v3 on open and rewrites the whole file, dropping lines it cannot parse; a v1 file's entries get new random ids and are chained into one line of history",
  },
  "invalid-version": {
    severity: "warning",
    pi: 'Pi compares the version loosely: "3" or 4 count as current (nothing migrated); other values start a migration and a rewrite of the whole file',
  },
  "second-header": { severity: "warning", pi: "Pi ignores every header after the first" },
  "missing-field": { severity: "warning", pi: "Pi does not validate fields; the message says what the missing field breaks" },
  "wrong-type": { severity: "warning", pi: "Pi does not validate fields; the message says what the wrong type breaks" },
  "invalid-timestamp": { severity: "warning", pi: "Pi reads it with `new Date()`: sibling branches sort wrongly and synthesized messages get a null time" },
  "dangling-target": { severity: "warning", pi: "Pi ignores the label or context edit: its targetId names no entry" },
  "dangling-from": { severity: "warning", pi: "Pi keeps the summary, but its fromId names no entry" },
  "dangling-first-kept": { severity: "warning", pi: "Pi keeps nothing from before the compaction: firstKeptEntryId names no entry" },
  "first-kept-not-on-path": { severity: "warning", pi: "Pi keeps nothing from before the compaction: firstKeptEntryId is not an ancestor of the compaction" },
  "unmatched-tool-result": { severity: "warning", pi: "Pi sends the result anyway; most providers reject a tool result without its tool call" },
  "hook-message-in-v3": {
    severity: "warning",
    pi: "Pi renames hookMessage to custom only when migrating v2 files; in a v3 file the role is unknown and the message is not sent",
  },
  "compaction-keeps-tool-result": {
    severity: "warning",
    pi: "The kept range starts on a tool result whose call was summarised away: Pi sends the result after the summary, without its call",
  },
  "context-over-window": {
    severity: "warning",
    pi: "Over the model's context window (pi-ai's catalogue): requests fail until a compaction succeeds; Pi 1.x compacts first, 0.73/0.74 first only when the last recorded usage is over its threshold, else after the overflow error",
  },
  "leaf-hides-messages": {
    severity: "warning",
    pi: "The last line, where Pi resumes, is a metadata entry hung on an older entry: the resumed context leaves out the newest messages (not said of the line Resume from here appends)",
  },
  "misplaced-header": {
    severity: "warning",
    pi: "Pi reads only the first parseable line as the header; this one is ignored and the file is refused or overwritten",
  },
  "no-final-newline": {
    severity: "warning",
    pi: "Pi 1.x appends a newline when it opens the file; Pi 0.73/0.74 writes its next entry onto the same line, and both entries become one unparsable line",
  },
  secret: {
    severity: "warning",
    pi: "Nothing: Pi sends the credential to the provider with the rest of the context, and it goes wherever the session is shared (/share, exports, bug reports); `redact` writes a copy without it",
  },
  "cwd-missing": {
    severity: "warning",
    pi: 'Pi stops with "Stored session working directory does not exist" in print and RPC mode; interactive Pi asks whether to continue in the current folder (1.x: or to fork the session there)',
  },
  // Information and hints: nothing is lost, but a person reading the file should know.
  "folder-mismatch": {
    severity: "information",
    pi: "Pi lists a session by the folder it lies in, so it shows under another project's /resume; opened, it runs in the cwd of its header",
  },
  "not-a-session": { severity: "information", pi: "No line looks like a Pi entry; Pi would refuse or overwrite it, and it is not checked further" },
  "unknown-entry-type": { severity: "information", pi: "Pi keeps the entry in the tree (it can be the leaf) but it contributes nothing to the context" },
  "unknown-role": { severity: "information", pi: "Pi keeps the message in the context, but converting it to model input drops it" },
  "unknown-usage-kind": { severity: "information", pi: "Pi counts it as ordinary usage" },
  "tool-call-without-result": { severity: "information", pi: 'Pi answers the call with a synthetic error result, "No result provided"; providers accept it' },
  "image-not-sent": { severity: "information", pi: "The model takes no images: Pi sends a text placeholder instead" },
  "empty-user-message": {
    severity: "information",
    pi: 'A user message without text: Pi leaves it out of an Anthropic request (and of any request when its content is empty), and otherwise sends it empty, or "<empty>" to Bedrock (Pi 1.x)',
  },
  "interleaved-writers": { severity: "information", pi: "Two processes appended to the file; Pi resumes the branch of the last line and leaves the other out" },
  "check-failed": {
    severity: "information",
    pi: "Not about Pi: one of pi-session-lsp's own checks failed on this file, and the message says which findings are missing",
  },
  "blank-line": { severity: "hint", pi: "Pi skips blank lines" },
  "timestamp-backwards": { severity: "hint", pi: "Nothing; Pi orders sibling branches by timestamp, so the tree view may look out of order" },
} as const satisfies Record<string, CodeInfo>;

export type DiagnosticCode = keyof typeof CODES;

export const ALL_CODES = Object.keys(CODES) as DiagnosticCode[];

/**
 * The errors that mean Pi resumes the session but its next provider request fails: the provider
 * rejects it, or Pi's pipeline throws before sending it. `sessions --check` names the first one.
 */
export const REQUEST_FAILS_CODES: ReadonlySet<DiagnosticCode> = new Set([
  "orphaned-tool-result",
  "request-throws",
  "invalid-reasoning-item",
  "too-many-images",
  "image-too-large",
  "request-too-large",
] satisfies DiagnosticCode[]);

/** The errors that mean Pi 1.x refuses to open the file at all (`sessions --check` marks it as one Pi cannot resume). */
export const REFUSED_CODES: ReadonlySet<DiagnosticCode> = new Set([
  "missing-header",
  "invalid-header",
  "bom",
  "utf16",
  "oh-my-pi-session",
] satisfies DiagnosticCode[]);

/**
 * Codes the editor shows that are not faults of the file: `check` never reports them, so they are
 * not in `CODES`, the README's table of codes or the fixtures, but their severity is decided here too.
 */
export const PRESENTATION_CODES = {
  "not-in-context": { severity: "hint", pi: "Pi leaves the entry out of the context it builds when it resumes the session" },
} as const satisfies Record<string, CodeInfo>;

export type PresentationCode = keyof typeof PRESENTATION_CODES;

/** The severity the table gives a code, a fault's or a presentation hint's. */
export function severityOf(code: DiagnosticCode | PresentationCode): Severity {
  return Object.hasOwn(CODES, code) ? CODES[code as DiagnosticCode].severity : PRESENTATION_CODES[code as PresentationCode].severity;
}

/** The README's table of codes, as Markdown: code, severity, and what Pi does. */
export function codesTable(): string {
  const rows = ALL_CODES.map((code) => `| \`${code}\` | ${CODES[code].severity} | ${CODES[code].pi.replace(/\|/g, "\\|")} |`);
  return `${["| Code | Severity | What Pi does |", "| --- | --- | --- |", ...rows].join("\n")}\n`;
}
