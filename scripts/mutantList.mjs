// scripts/mutantList.mjs: the mutants of scripts/mutants.mjs, each with the tests that kill it.
//
// A mutant is a plausible bug written as one exact piece of source text in `server/src/<file>` and
// its replacement. Its `tests` are the few test files that fail on it: the pass that CI runs
// (`node scripts/mutants.mjs`) runs only those for each mutant, so a list must name a test that
// really fails on the mutant (find one with `node scripts/mutants.mjs --tests=FILE,FILE ID`).
// test/mutants.test.ts checks that every mutant applies, the ids are unique and every test exists.

/**
 * `{ id, file, from, to, tests }`: replace the one occurrence of `from` in `server/src/<file>` by
 * `to`, then run the test files `tests`, one of which must fail.
 *
 * Left out because no input can tell it apart (an equivalent mutant): selectEntries' 0.74 rule
 * `e.type === "compaction"` when it finds the compaction again by id. Two path entries can share
 * that id only when the build starts from an earlier holder of a duplicated id, and every leaf a
 * feature builds from is found by id, which gives the last holder (as in Pi).
 *
 * Also left out: folding's `a.reachesCycle[c.index]` guard on a compaction in or below a parent
 * cycle. Since folding walks up through `semantics/walk.ts` (once around a cycle), the guard only
 * saves work: every entry above such a compaction reaches the cycle too, so `isAncestor` is false
 * for all of them and no fold can come out of the walk (test/features/folding.test.ts checks that
 * the later folds survive).
 */
export const MUTANTS = [
  // locate.ts: the JSON walker behind every range.
  {
    id: "locate-escaped-backslash",
    file: "core/line/locate.ts",
    from: "if (backslashes % 2 === 0) return j + 1;",
    to: "if (backslashes === 0) return j + 1;",
    tests: ["test/features/snapshots.test.ts", "test/diagnostics/fixtures.test.ts"],
  },
  {
    id: "locate-first-duplicate-key",
    file: "core/line/locate.ts",
    from: "if (key === step) found =",
    to: "if (key === step && !found) found =",
    tests: ["test/core/locateOracle.test.ts"],
  },
  {
    id: "locate-raw-key",
    file: "core/line/locate.ts",
    from: 'return raw.includes("\\\\") ? (JSON.parse(text.slice(start, end)) as string) : raw;',
    to: "return raw;",
    tests: ["test/features/snapshots.test.ts"],
  },
  {
    id: "locate-no-cr-whitespace",
    file: "core/line/locate.ts",
    from: "if (c === 32 || c === 9 || c === 10 || c === 13) i++;",
    to: "if (c === 32 || c === 9 || c === 10) i++;",
    tests: ["test/core/positions.test.ts"],
  },
  {
    id: "locateAt-key-start",
    file: "core/line/locate.ts",
    from: "if (offset >= keySpan.start && offset <= keySpan.end) {",
    to: "if (offset > keySpan.start && offset <= keySpan.end) {",
    tests: ["test/core/locateOracle.test.ts"],
  },
  // analysis.ts: the tree.
  {
    id: "analysis-first-duplicate-wins",
    file: "core/session/piIndex.ts",
    from: "    this.byId.set(key, holder);\n",
    to: "    if (!this.byId.has(key)) this.byId.set(key, holder);\n",
    tests: ["test/core/piIndexAgreement.test.ts", "test/diagnostics/fixtures.test.ts"],
  },
  {
    id: "analysis-fast-parent-with-duplicates",
    file: "core/session/piIndex.ts",
    from: "hint !== undefined && !this.duplicated ? hint",
    to: "hint !== undefined ? hint",
    tests: ["test/core/piIndexAgreement.test.ts", "test/diagnostics/fixtures.test.ts"],
  },
  {
    id: "analysis-header-without-id",
    file: "core/session/analysis.ts",
    from: 'if (p.type === "session" && p.id !== undefined) {',
    to: 'if (p.type === "session") {',
    tests: ["test/diagnostics/fixtures.test.ts"],
  },
  {
    id: "analysis-below-cycle-unmarked",
    file: "core/session/cycles.ts",
    from: "cyclic = reachesCycle[current] === 1;",
    to: "cyclic = false;",
    tests: ["test/core/walk.test.ts", "test/diagnostics/fixtures.test.ts"],
  },
  {
    id: "analysis-active-path-cycle-guard",
    file: "core/session/analysis.ts",
    from: "if (!leaf || reachesCycle[leaf.index]) return { activePath: [], onActivePath };",
    to: "if (!leaf) return { activePath: [], onActivePath };",
    tests: ["test/core/buildContext.test.ts", "test/core/walk.test.ts"],
  },
  {
    id: "analysis-falsy-kept",
    file: "core/session/analysis.ts",
    from: "    if (p.falsy) {\n",
    to: "    if (false) {\n",
    tests: ["test/diagnostics/fixtures.test.ts", "test/core/piIndexAgreement.test.ts"],
  },
  // The context: Pi's selection and messages.
  {
    id: "context-first-compaction",
    file: "core/pi/buildContext.ts",
    from: "let ci = -1;\n  for (let i = path.length - 1; i >= 0; i--) {",
    to: "let ci = -1;\n  for (let i = 0; i < path.length; i++) {",
    tests: ["test/core/buildContext.test.ts", "test/core/olderCompactionKept.test.ts"],
  },
  {
    id: "context-system-kept",
    file: "core/pi/buildContext.ts",
    from: 'if (flavor !== "0.74" && isSystemMessage(entry)) continue;',
    to: "",
    tests: ["test/features/codeLens.test.ts"],
  },
  {
    id: "context-cycle-guard",
    file: "core/pi/buildContext.ts",
    from: 'if (a.reachesCycle[leaf.index]) return { ok: false, failure: { kind: "cycle", entry: leaf } };\n  return contextOfPath(',
    to: "return contextOfPath(",
    tests: ["test/core/buildContext.test.ts", "test/parity/context.test.ts"],
  },
  {
    id: "context-every-compaction-summary",
    file: "core/pi/buildContext.ts",
    from: 'if (entry.type === "compaction" && i > 0) continue;',
    to: "",
    tests: ["test/core/olderCompactionKept.test.ts", "test/core/buildContext.test.ts"],
  },
  // Guards for a compaction inside a parent cycle.
  {
    id: "lens-compaction-cycle-guard",
    file: "features/codeLens.ts",
    from: 'if (a.reachesCycle[compaction.index]) return "compaction: Pi cannot build it (parent cycle)";',
    to: "",
    tests: ["test/features/codeLens.test.ts"],
  },
  {
    id: "diagnostics-first-kept-cycle-guard",
    file: "features/diagnostics/linkChecks.ts",
    from: "if (a.reachesCycle[entry.index]) return; // The path is undefined",
    to: "// The path is undefined",
    tests: ["test/diagnostics/fixtures.test.ts"],
  },
  {
    id: "hover-first-kept-cycle-guard",
    file: "features/hover/references.ts",
    from: 'field === "firstKeptEntryId" && !a.reachesCycle[entry.index] &&',
    to: 'field === "firstKeptEntryId" &&',
    tests: ["test/features/snapshots.test.ts"],
  },
  {
    id: "tool-call-search-in-cycle",
    file: "core/session/semantics/toolPairs.ts",
    from: "far = steps >= NEAR && !a.reachesCycle[entry.index];",
    to: "far = steps >= NEAR;",
    tests: ["test/features/snapshots.test.ts"],
  },
  // Fixes.
  {
    id: "fix-header-when-no-line-parses",
    file: "features/fixes/perCode.ts",
    from: 'a.headerState === "missing" || a.headerState === "no-entries"',
    to: 'a.headerState === "missing"',
    tests: ["test/features/codeActions.test.ts"],
  },
  {
    id: "fix-header-whitespace-file",
    file: "features/fixes/perCode.ts",
    from: 'a.headerState === "empty-file" || doc.parsed.every((q) => q.kind === "blank")',
    to: 'a.headerState === "empty-file"',
    tests: ["test/features/codeActions.test.ts"],
  },
  // Diagnostics.
  {
    id: "diagnostics-equal-times-backwards",
    file: "features/diagnostics/lineChecks.ts",
    from: "time >= parentTime) return;",
    to: "time > parentTime) return;",
    tests: ["test/diagnostics/fixtures.test.ts"],
  },
  {
    // A large open's first answer reads every line's findings again, and so searches every line for credentials.
    id: "diagnostics-structural-reads-findings",
    file: "features/diagnostics/lineChecks.ts",
    from: "lines: () => (r.lineFindings ? doc.lineCount : linesNotObjects(doc.parsed)),",
    to: "lines: () => doc.lineCount,",
    tests: ["test/diagnostics/deferredSecrets.test.ts"],
  },
  {
    // A deferred line forgets its credentials.
    id: "deferred-secrets-dropped",
    file: "core/line/deferredSecrets.ts",
    from: "addSecretFindings(this.text, secrets);",
    to: "",
    tests: ["test/diagnostics/deferredSecrets.test.ts"],
  },
  {
    id: "diagnostics-final-newline-cr",
    file: "features/diagnostics/fileChecks.ts",
    from: 'const length = text.endsWith("\\r") ? text.length - 1 : text.length;',
    to: "const length = text.length;",
    tests: ["test/diagnostics/fixtures.test.ts"],
  },
  {
    id: "diagnostics-bom-on-blank",
    file: "features/diagnostics/fileChecks.ts",
    from: 'if (!r.doc.hasBom || r.doc.parsed[0]!.kind !== "value") return;',
    to: "if (!r.doc.hasBom) return;",
    tests: ["test/diagnostics/fixtures.test.ts"],
  },
  {
    id: "diagnostics-duplicate-winner-first",
    file: "features/diagnostics/treeChecks.ts",
    from: "const winner = holders[holders.length - 1]!;",
    to: "const winner = holders[0]!;",
    tests: ["test/diagnostics/fixtures.test.ts"],
  },
  // Sibling order, as Pi's getTree sorts children (the outline, the hierarchy and the tree share it).
  {
    id: "siblings-tie-reversed",
    file: "core/session/rules.ts",
    from: "if (children.length > 1) children.sort(",
    to: "if (children.length > 1) children.reverse().sort(",
    tests: ["test/features/symbols.test.ts"],
  },
  {
    id: "siblings-unreadable-time-zero",
    file: "core/session/semantics/siblings.ts",
    from: "return dateTime(entry.parsed.object?.timestamp);",
    to: "return dateTime(entry.parsed.object?.timestamp) || 0;",
    tests: ["test/features/snapshots.test.ts"],
  },
  {
    id: "context-kept-system-as-compacted",
    file: "core/pi/activeContext.ts",
    from: "state[e.index] = kept ? ContextState.DroppedSystem : ContextState.Compacted;",
    to: "state[e.index] = ContextState.Compacted;",
    tests: ["test/features/hover.test.ts"],
  },
  {
    id: "diagnostics-tool-results-cycle-guard",
    file: "features/diagnostics/toolResultCalls.ts",
    from: "if (calls[k] === undefined && !a.reachesCycle[results[k]!.index]) unmatched.push(results[k]!);",
    to: "if (calls[k] === undefined) unmatched.push(results[k]!);",
    tests: ["test/diagnostics/fixtures.test.ts"],
  },
  {
    id: "parse-whitespace-not-blank",
    file: "core/line/parse.ts",
    from: "return text.charCodeAt(0) !== 123 && text.trim().length === 0;",
    to: "return text.length === 0;",
    tests: ["test/diagnostics/fixtures.test.ts"],
  },
  // Pi's index rules (core/session/rules.ts), which the open document and the files on disk share.
  {
    id: "rules-id-prefix-includes",
    file: "core/session/rules.ts",
    from: "return (s.id as string).startsWith(arg);",
    to: "return (s.id as string).includes(arg);",
    tests: ["test/core/findPrefilter.test.ts", "test/io/sessionFind.test.ts"],
  },
  {
    id: "rules-relabel-moves-to-end",
    file: "core/session/rules.ts",
    from: "if (label) labels.set(target, value());",
    to: "if (label) labels.delete(target), labels.set(target, value());",
    tests: ["test/core/piIndexAgreement.test.ts"],
  },
  // find reads in full only the files whose header id starts with the argument.
  {
    id: "find-prefilter-includes",
    file: "io/scanFile.ts",
    from: "if (probe.header) return idMatches(probe.header, arg);",
    to: "if (probe.header) return probe.header.id.includes(arg);",
    tests: ["test/core/findPrefilter.test.ts", "test/io/sessionFind.test.ts"],
  },
  // find TEXT lists without a stat: listAll's order by time is made from the scan's times.
  {
    id: "find-text-unordered",
    file: "io/sessionStore.ts",
    from: 'return version === "1.x" && location.all.kind !== "flat" ? byMtimeThenName(files) : files;',
    to: "return files;",
    tests: ["test/io/findTextOrder.test.ts"],
  },
  // The prefilter's chunks: a session_info line's type across a chunk's end is searched in the next.
  {
    id: "prefilter-session-info-in-carry",
    file: "io/searchPrefilter.ts",
    from: "if (at + SESSION_INFO.length <= carry) continue;",
    to: "if (at < carry) continue;",
    tests: ["test/io/prefilterChunks.test.ts"],
  },
  // The document model.
  {
    id: "document-cr-before-lf",
    file: "core/session/document.ts",
    from: 'if (endEol === "\\n" && newLines[lastNew]!.endsWith("\\r")) {',
    to: "if (false) {",
    tests: ["test/core/bufferDifferential.test.ts"],
  },
  {
    id: "document-bom-line-reused",
    file: "core/session/document.ts",
    from: "for (let i = this.hasBom ? 1 : 0; i < this.lines.length; i++)",
    to: "for (let i = 0; i < this.lines.length; i++)",
    tests: ["test/core/bufferDifferential.test.ts"],
  },
  // Issue 28's survivors: a false sentence added to a message (killed now that fixtures match
  // messages whole), both summaries sent (context-every-compaction-summary above), `""` tool ids.
  {
    id: "message-false-tree-hangs",
    file: "features/diagnostics/treeChecks.ts",
    from: "const loop = a.treeLoops ?",
    to: "const loop = a.duplicates.size > 0 ?",
    tests: ["test/diagnostics/fixtures.test.ts"],
  },
  {
    id: "tool-index-falsy-result-id",
    file: "core/session/semantics/toolPairs.ts",
    from: "if (id !== undefined) add(results, id, entry);",
    to: "if (id) add(results, id, entry);",
    tests: ["test/core/emptyToolIds.test.ts"],
  },
  {
    id: "tool-call-index-farthest",
    file: "core/session/semantics/toolPairs.ts",
    from: "(!best || a.depth[c.index]! > a.depth[best.index]!)",
    to: "(!best || a.depth[c.index]! < a.depth[best.index]!)",
    tests: ["test/core/emptyToolIds.test.ts"],
  },
  {
    id: "tool-results-falsy-id",
    file: "features/diagnostics/toolResultCalls.ts",
    from: "const holdsResult = (e: Entry): boolean => e.parsed.toolResultId !== undefined;",
    to: "const holdsResult = (e: Entry): boolean => !!e.parsed.toolResultId;",
    tests: ["test/core/emptyToolIds.test.ts"],
  },
  {
    id: "tool-parse-falsy-call-id",
    file: "core/line/parse.ts",
    from: 'if (b.type === "toolCall" && typeof b.id === "string")',
    to: 'if (b.type === "toolCall" && typeof b.id === "string" && b.id)',
    tests: ["test/core/emptyToolIds.test.ts"],
  },
  {
    id: "tool-parse-falsy-result-id",
    file: "core/line/parse.ts",
    from: 'if (m.role === "toolResult" && typeof m.toolCallId === "string") toolResultId',
    to: 'if (m.role === "toolResult" && typeof m.toolCallId === "string" && m.toolCallId) toolResultId',
    tests: ["test/core/emptyToolIds.test.ts"],
  },
  {
    id: "tool-transform-falsy-answer",
    file: "core/pi/provider/transformMessages.ts",
    from: "answered.add(msg.toolCallId);",
    to: "if (msg.toolCallId) answered.add(msg.toolCallId);",
    tests: ["test/core/emptyToolIds.test.ts"],
  },
  // Id prefixes, as Pi's `resolveSessionPath`/`findById` match them (from the start).
  // The parent walk.
  {
    id: "walk-path-bound-off-by-one",
    file: "core/session/rules.ts",
    from: "if (path.length >= limit) return undefined;",
    to: "if (path.length >= limit - 1) return undefined;",
    tests: ["test/core/walk.test.ts", "test/core/deep.test.ts"],
  },
  {
    id: "walk-ancestors-self-in-cycle",
    file: "core/session/semantics/walk.ts",
    from: "if (current === cycleStart || current === entry) return;",
    to: "if (current === cycleStart) return;",
    tests: ["test/core/walk.test.ts"],
  },
  // The leaf: the last entry, none when its id is null.
  {
    id: "leaf-null-id-ignored",
    file: "core/session/piIndex.ts",
    from: "this.size > 0 && !this.keying.isNull(this.lastKey as K) ? this.last",
    to: "this.size > 0 ? this.last",
    tests: ["test/core/oddIds.test.ts"],
  },
  {
    id: "leaf-missing-id-as-null",
    file: "core/session/piIndex.ts",
    from: "isNull: (key) => key === null }",
    to: "isNull: (key) => key == null }",
    tests: ["test/core/oddIds.test.ts"],
  },
  // Labels: file order, the last change per target wins, a falsy label clears.
  {
    id: "labels-cleared-label-kept",
    file: "core/session/rules.ts",
    from: "  else labels.delete(target);",
    to: "",
    tests: ["test/core/labels.test.ts"],
  },
  {
    id: "labels-first-wins",
    file: "core/session/rules.ts",
    from: "if (label) labels.set(target, value());",
    to: "if (label && !labels.has(target)) labels.set(target, value());",
    tests: ["test/core/labels.test.ts", "test/core/piIndexAgreement.test.ts"],
  },
  // The session name: the last session_info in file order, trimmed.
  {
    id: "session-name-untrimmed",
    file: "core/session/rules.ts",
    from: "return { name: raw.trim() || undefined, throws: false };",
    to: "return { name: raw || undefined, throws: false };",
    tests: ["test/features/contextMarkdown.test.ts", "test/features/snapshots.test.ts"],
  },
  {
    id: "session-name-first-entry",
    file: "core/session/semantics/sessionName.ts",
    from: 'for (let i = a.entries.length - 1; i >= 0; i--) if (a.entries[i]!.type === "session_info") return a.entries[i];',
    to: 'for (let i = 0; i < a.entries.length; i++) if (a.entries[i]!.type === "session_info") return a.entries[i];',
    tests: ["test/core/piIndexAgreement.test.ts"],
  },
  {
    id: "session-info-name-untrimmed",
    file: "core/session/rules.ts",
    from: "return entry.name?.trim() || undefined;",
    to: "return (entry.name as unknown as string) || undefined;",
    tests: ["test/io/sessionFind.test.ts"],
  },
  // Sibling order: oldest first.
  {
    id: "siblings-newest-first",
    file: "core/session/rules.ts",
    from: "children.sort((x, y) => time(x) - time(y));",
    to: "children.sort((x, y) => time(y) - time(x));",
    tests: ["test/features/symbols.test.ts"],
  },
  // Settings and selection of the context.
  {
    id: "settings-first-thinking-level",
    file: "core/pi/buildContext.ts",
    from: 'let thinkingLevel: unknown = "off";\n  for (let i = path.length - 1; i >= 0; i--) {',
    to: 'let thinkingLevel: unknown = "off";\n  for (let i = 0; i < path.length; i++) {',
    tests: ["test/core/buildContext.test.ts", "test/parity/context.test.ts"],
  },
  {
    id: "settings-model-ignores-assistant",
    file: "core/pi/buildContext.ts",
    from: 'if (entry.type === "message" && entry.parsed.role === "assistant") {\n      const p = entry.parsed;\n      model =',
    to: "if (false) {\n      const p = entry.parsed;\n      model =",
    tests: ["test/parity/context.test.ts"],
  },
  {
    id: "context-after-compaction-off-by-one",
    file: "core/pi/buildContext.ts",
    from: "for (let i = at + 1; i < path.length; i++) selected.push(path[i]!);",
    to: "for (let i = at + 2; i < path.length; i++) selected.push(path[i]!);",
    tests: ["test/core/olderCompactionKept.test.ts", "test/core/buildContext.test.ts"],
  },
  {
    id: "context-missing-first-kept-keeps-all",
    file: "core/pi/buildContext.ts",
    from: "    if (keptFrom === undefined) continue;\n",
    to: "",
    tests: ["test/core/olderCompactionKept.test.ts", "test/core/buildContext.test.ts"],
  },
  // The request findings kept across an edit: the replaced messages' empty-user findings are redone.
  {
    id: "empty-user-kept-not-redone",
    file: "features/requestFindingsUpdate.ts",
    from: "    empty.push(...emptyUsers(doc, b1.build, request, q1, changed));\n",
    to: "",
    tests: ["test/diagnostics/lineMemo.test.ts"],
  },
  // export: session text in the page, the images it shows, the file --out names.
  {
    id: "export-html-lt-unescaped",
    file: "features/export/htmlText.ts",
    from: '"<": "&lt;"',
    to: '"<": "<"',
    tests: ["test/cli/export.test.ts"],
  },
  {
    id: "export-image-data-not-checked",
    file: "features/export/htmlText.ts",
    from: "if (data.length === 0 || data.length % 4 !== 0 || !BASE64.test(data))",
    to: "if (data.length === 0)",
    tests: ["test/cli/export.test.ts"],
  },
  {
    id: "export-out-overwrites",
    file: "cli/exportOutput.ts",
    from: 'return force ? undefined : "it exists (give --force to replace it)";',
    to: "return undefined;",
    tests: ["test/cli/export.test.ts"],
  },
];
