// Checks server/src's import graph: no cycles (type-only imports count, since a cycle of types is
// still a knot a reader has to untie) and no import against the layering; and reports the functions
// over 100 lines and the files over 400 (generated data aside). The size report fails the run only
// with --strict-size, while the big files are being split.
//
//   node scripts/imports.mjs [--strict-size] [ROOT]
//
// The functions are exported for test/imports.test.ts, which runs them on a synthetic tree too, so
// that the checker is shown to fail when it should.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ts = createRequire(import.meta.url)("typescript");

/**
 * What each layer may import besides itself, by path under server/src (a file's layer is the
 * longest key its path starts with). lsp/ and cli/ stand beside each other over features/, io/ and
 * the core, and reach features/ only through its facade, features/api/; features/ uses the core
 * alone; io/ (files, threads) serves lsp/ and cli/ with the core's parsers; inside the core,
 * base < line < session < pi < {edits, disk}.
 */
export const MAY_IMPORT = {
  "core/base/": [],
  "core/line/": ["core/base/"],
  "core/session/": ["core/base/", "core/line/"],
  "core/pi/": ["core/base/", "core/line/", "core/session/"],
  "core/edits/": ["core/base/", "core/line/", "core/session/", "core/pi/"],
  "core/disk/": ["core/base/", "core/line/", "core/session/", "core/pi/"],
  "io/": ["core/"],
  "features/": ["core/"],
  "lsp/": ["features/api/", "core/", "io/", "version.ts"],
  "cli/": ["features/api/", "core/", "io/", "version.ts"],
  "piExtension/": ["features/api/", "core/", "io/", "version.ts"],
  "version.ts": [],
  "main.ts": ["lsp/", "cli/", "version.ts"],
};

/**
 * The facades: the only files that re-export what another module declares. Anywhere else a
 * re-export is a shim left by a move, and an importer should name the declaring module instead.
 */
export const FACADES = ["features/api/"];

export const MAX_FUNCTION_LINES = 100;
export const MAX_FILE_LINES = 400;
const GENERATED = /\.generated\.ts$/;

/** Every .ts file under root, as a path relative to it with forward slashes, sorted. */
export function sourceFiles(root) {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) files.push(relative(root, path).split(sep).join("/"));
    }
  };
  walk(root);
  return files.sort();
}

/**
 * The graph of relative imports between root's files: file → the files it imports. TypeScript's
 * preProcessFile finds `import`, `import type`, `export … from`, `import x = require(…)`,
 * `require("…")`, `import("…")` and `typeof import("…")`; package imports are left out.
 */
export function importGraph(root) {
  const graph = new Map();
  for (const file of sourceFiles(root)) {
    const targets = new Set();
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), "utf8"), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith(".")) continue;
      const target = resolveImport(root, file, fileName);
      if (target !== undefined) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

function resolveImport(root, file, specifier) {
  const base = resolve(root, dirname(file), specifier);
  for (const candidate of [`${base}.ts`, base.replace(/\.js$/, ".ts"), join(base, "index.ts")]) {
    if (candidate.endsWith(".ts") && existsSync(candidate)) return relative(root, candidate).split(sep).join("/");
  }
  return undefined;
}

/**
 * The import cycles: each strongly connected component of more than one file (or a file that
 * imports itself), by Tarjan's algorithm, as its files and one shortest closed path through them
 * from the first, so that the message names a loop a reader can follow.
 */
export function findCycles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  const visit = (file) => {
    index.set(file, index.size);
    low.set(file, index.get(file));
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file), low.get(next)));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file), index.get(next)));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.includes(file)) components.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return components.map((files) => ({ files, loop: shortestLoop(graph, files) }));
}

/** A shortest path from the component's first file back to it, through the component only. */
function shortestLoop(graph, component) {
  const start = component[0];
  const inside = new Set(component);
  const cameFrom = new Map();
  const queue = [start];
  for (const file of queue) {
    for (const next of graph.get(file) ?? []) {
      if (!inside.has(next) || cameFrom.has(next)) continue;
      cameFrom.set(next, file);
      if (next === start) {
        const loop = [start];
        for (let at = file; at !== start; at = cameFrom.get(at)) loop.splice(1, 0, at);
        return [...loop, start];
      }
      queue.push(next);
    }
  }
  return [...component, start];
}

/** The layer a file belongs to: the longest key of MAY_IMPORT its path starts with. */
export function layerOf(file) {
  let found;
  for (const layer of Object.keys(MAY_IMPORT)) {
    if (file.startsWith(layer) && (found === undefined || layer.length > found.length)) found = layer;
  }
  return found;
}

/** Each import that crosses layers in a direction MAY_IMPORT does not allow, and each file outside every layer. */
export function layerViolations(graph) {
  const violations = [];
  for (const [file, targets] of graph) {
    const from = layerOf(file);
    if (from === undefined) {
      violations.push({ file, message: "is in no layer of scripts/imports.mjs's MAY_IMPORT" });
      continue;
    }
    for (const target of targets) {
      const to = layerOf(target);
      if (to === from || MAY_IMPORT[from].some((allowed) => target.startsWith(allowed))) continue;
      // A layer allowed only a part of the target's layer (its facade) is told which part.
      const through = MAY_IMPORT[from].find((allowed) => to !== undefined && allowed.startsWith(to));
      const message = through ? `${from} may import ${to} only through ${through}` : `${from} may not import ${to ?? target}`;
      violations.push({ file, target, message });
    }
  }
  return violations;
}

/**
 * Each re-export outside FACADES: an `export … from "…"`, or an `export { x }` of a name the file
 * imports. A module exports what it declares, so that its importers name where a thing lives.
 */
export function reexportViolations(root) {
  const violations = [];
  for (const file of sourceFiles(root)) {
    if (FACADES.some((facade) => file.startsWith(facade))) continue;
    const source = ts.createSourceFile(file, readFileSync(join(root, file), "utf8"), ts.ScriptTarget.Latest, true);
    const imported = new Set();
    for (const statement of source.statements) {
      const clause = ts.isImportDeclaration(statement) ? statement.importClause : undefined;
      if (clause?.name) imported.add(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) imported.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) imported.add(element.name.text);
    }
    for (const statement of source.statements) {
      if (!ts.isExportDeclaration(statement)) continue;
      const line = source.getLineAndCharacterOfPosition(statement.getStart()).line + 1;
      const names = statement.exportClause && ts.isNamedExports(statement.exportClause) ? statement.exportClause.elements : [];
      const local = names.filter((element) => imported.has((element.propertyName ?? element.name).text));
      if (statement.moduleSpecifier || local.length > 0) violations.push({ file, line, message: "re-exports what another module declares" });
    }
  }
  return violations;
}

/** The files over MAX_FILE_LINES lines and the functions over MAX_FUNCTION_LINES, longest first. */
export function sizeReport(root) {
  const files = [];
  const functions = [];
  for (const file of sourceFiles(root)) {
    if (GENERATED.test(file)) continue;
    const text = readFileSync(join(root, file), "utf8");
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const lineOf = (position) => source.getLineAndCharacterOfPosition(position).line + 1;
    const lines = lineOf(text.trimEnd().length);
    if (lines > MAX_FILE_LINES) files.push({ file, lines });
    const visit = (node) => {
      if (ts.isFunctionLike(node) && node.body) {
        const line = lineOf(node.getStart());
        const length = lineOf(node.end) - line + 1;
        if (length > MAX_FUNCTION_LINES) functions.push({ file, line, name: functionName(node), lines: length });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  const longestFirst = (a, b) => b.lines - a.lines;
  return { files: files.sort(longestFirst), functions: functions.sort(longestFirst) };
}

function functionName(node) {
  const named = node.name ?? (ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent) ? node.parent.name : undefined);
  return named?.getText() ?? "(anonymous)";
}

function main(args) {
  const strictSize = args.includes("--strict-size");
  const root = args.find((arg) => !arg.startsWith("--")) ?? fileURLToPath(new URL("../server/src", import.meta.url));
  const graph = importGraph(root);
  const cycles = findCycles(graph);
  const violations = layerViolations(graph);
  const reexports = reexportViolations(root);
  const sizes = sizeReport(root);
  for (const { files, loop } of cycles) console.log(`import cycle among ${files.length} files, one loop: ${loop.join(" -> ")}`);
  for (const { file, target, message } of violations) console.log(`layering: ${file}${target ? ` imports ${target}` : ""}: ${message}`);
  for (const { file, line, message } of reexports) console.log(`re-export: ${file}:${line} ${message} (import it from there)`);
  for (const { file, lines } of sizes.files) console.log(`size: ${file} has ${lines} lines (over ${MAX_FILE_LINES})`);
  for (const { file, line, name, lines } of sizes.functions) {
    console.log(`size: ${file}:${line} ${name} has ${lines} lines (over ${MAX_FUNCTION_LINES})`);
  }
  const oversized = sizes.files.length + sizes.functions.length;
  console.log(
    `${graph.size} files: ${cycles.length} import cycles, ${violations.length} layering faults, ${reexports.length} re-exports, ` +
      `${oversized} over the size limits${strictSize ? "" : " (reported only; --strict-size fails on them)"}`,
  );
  return cycles.length > 0 || violations.length > 0 || reexports.length > 0 || (strictSize && oversized > 0) ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
