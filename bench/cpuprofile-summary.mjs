#!/usr/bin/env node
// bench/cpuprofile-summary.mjs: the top functions of a V8 .cpuprofile, by self time.
//
// Reads a profile written by `node --cpu-prof` or by bench/profile.mjs and prints, per function
// (name + location), its self time (samples in the function itself) and total time (samples with
// the function anywhere on the stack, counted once per sample), both in ms and as a share of the
// profile; then the self time per source file. Locations in the compiled server (out/**/*.js) are
// mapped back to server/src/**/*.ts through the .js.map files next to them (node:module SourceMap).
// Sample durations are the gaps between sample timestamps, as Chrome DevTools computes them.
// For the top server functions it also lists their hottest source lines (from the profile's
// per-line `positionTicks`, each line's share of its function's self time), with the TS source.
//
// Usage: node bench/cpuprofile-summary.mjs FILE.cpuprofile [--top N] [--json]

import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

const maps = new Map();
function sourceMapFor(url) {
  if (!maps.has(url)) {
    let map;
    try {
      const file = url.startsWith("file://") ? fileURLToPath(url) : url;
      if (file.endsWith(".js") && existsSync(`${file}.map`)) map = { dir: dirname(file), map: new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8"))) };
    } catch {
      map = undefined;
    }
    maps.set(url, map);
  }
  return maps.get(url);
}

/** "server/src/core/line/parse.ts:87" for compiled server code, a short url:line otherwise. */
function locationOf(frame) {
  const { url, lineNumber, columnNumber } = frame;
  if (!url) return "";
  const sm = sourceMapFor(url);
  if (sm) {
    const entry = sm.map.findEntry(lineNumber, columnNumber);
    if (entry?.originalSource) {
      const source = entry.originalSource.startsWith("file://") ? fileURLToPath(entry.originalSource) : resolve(sm.dir, entry.originalSource);
      return `${relative(ROOT, source)}:${entry.originalLine + 1}`;
    }
  }
  const path = url.startsWith("file://") ? relative(ROOT, fileURLToPath(url)) : url;
  return `${path}:${lineNumber + 1}`;
}

const sources = new Map();
function sourceLines(file) {
  if (!sources.has(file)) {
    try {
      sources.set(file, readFileSync(file, "utf8").split("\n"));
    } catch {
      sources.set(file, undefined);
    }
  }
  return sources.get(file);
}

/** The original location and source text of a 1-based line of a compiled file. */
function lineOf(url, line) {
  const sm = sourceMapFor(url);
  const file = url.startsWith("file://") ? fileURLToPath(url) : url;
  if (sm) {
    const generated = sourceLines(file)?.[line - 1] ?? "";
    const column = Math.max(0, generated.search(/\S/));
    const entry = sm.map.findEntry(line - 1, column);
    if (entry?.originalSource) {
      const source = entry.originalSource.startsWith("file://") ? fileURLToPath(entry.originalSource) : resolve(sm.dir, entry.originalSource);
      return { location: `${relative(ROOT, source)}:${entry.originalLine + 1}`, text: sourceLines(source)?.[entry.originalLine]?.trim() ?? "" };
    }
  }
  return { location: `${url.startsWith("file://") ? relative(ROOT, file) : url}:${line}`, text: sourceLines(file)?.[line - 1]?.trim() ?? "" };
}

export function summarize(profile) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  // Self time per node from sample timestamps.
  const selfByNode = new Map();
  let t = profile.startTime;
  const stamps = profile.timeDeltas.map((d) => (t += d));
  for (let i = 0; i < profile.samples.length; i++) {
    const duration = (i + 1 < stamps.length ? stamps[i + 1] : profile.endTime) - stamps[i];
    selfByNode.set(profile.samples[i], (selfByNode.get(profile.samples[i]) ?? 0) + Math.max(0, duration));
  }
  const keyOf = (node) => {
    const f = node.callFrame;
    return `${f.functionName || "(anonymous)"}\u0000${locationOf(f)}`;
  };
  const self = new Map();
  const total = new Map();
  const byFile = new Map();
  const lines = new Map(); // function key -> Map(line -> us)
  let all = 0;
  for (const [id, us] of selfByNode) {
    const node = nodes.get(id);
    all += us;
    const key = keyOf(node);
    self.set(key, (self.get(key) ?? 0) + us);
    const ticks = node.positionTicks ?? [];
    const tickSum = ticks.reduce((sum, t) => sum + t.ticks, 0);
    if (node.callFrame.url && tickSum > 0) {
      const perLine = lines.get(key) ?? new Map();
      lines.set(key, perLine);
      for (const t of ticks) perLine.set(t.line, (perLine.get(t.line) ?? 0) + (us * t.ticks) / tickSum);
    }
    const file = locationOf(node.callFrame).replace(/:\d+$/, "") || node.callFrame.functionName;
    byFile.set(file, (byFile.get(file) ?? 0) + us);
    const seen = new Set();
    for (let n = id; n !== undefined; n = parentOf.get(n)) {
      const k = keyOf(nodes.get(n));
      if (seen.has(k)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + us);
    }
  }
  const urlOf = new Map(profile.nodes.map((n) => [keyOf(n), n.callFrame.url]));
  const functions = [...self.keys()].map((key) => {
    const [name, location] = key.split("\u0000");
    const hotLines = [...(lines.get(key) ?? [])]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([line, us]) => ({ ...lineOf(urlOf.get(key), line), selfMs: us / 1000 }));
    return { name, location, selfMs: self.get(key) / 1000, totalMs: (total.get(key) ?? 0) / 1000, hotLines };
  });
  functions.sort((a, b) => b.selfMs - a.selfMs);
  const files = [...byFile].map(([file, us]) => ({ file, selfMs: us / 1000 })).sort((a, b) => b.selfMs - a.selfMs);
  return { totalMs: all / 1000, functions, files };
}

export function formatSummary(summary, top = 25, hot = 6) {
  const pct = (x) => `${((100 * x) / summary.totalMs).toFixed(1).padStart(5)}%`;
  const out = [`profile: ${summary.totalMs.toFixed(0)} ms sampled`, "", "   self ms   self    total ms  total   function (location)"];
  for (const f of summary.functions.slice(0, top)) {
    out.push(
      `${f.selfMs.toFixed(1).padStart(10)} ${pct(f.selfMs)} ${f.totalMs.toFixed(1).padStart(10)} ${pct(f.totalMs)}   ${f.name}${f.location ? ` (${f.location})` : ""}`,
    );
  }
  out.push("", "   self ms   self    file");
  for (const f of summary.files.slice(0, 12)) out.push(`${f.selfMs.toFixed(1).padStart(10)} ${pct(f.selfMs)}   ${f.file}`);
  const server = summary.functions.filter((f) => f.location.startsWith("server/") && f.hotLines.length > 0).slice(0, hot);
  if (server.length > 0)
    out.push(
      "",
      "hottest lines of the top server functions (share of the function's self time; where V8 inlined a callee, its lines count for the caller and may map to the wrong file: profile with --no-inlining for exact lines):",
    );
  for (const f of server) {
    out.push(`  ${f.name} (${f.location}), self ${f.selfMs.toFixed(1)} ms:`);
    for (const l of f.hotLines) {
      const text = l.text.length > 100 ? `${l.text.slice(0, 99)}…` : l.text;
      out.push(`    ${l.selfMs.toFixed(1).padStart(8)} ms  ${l.location.padEnd(36)} ${text}`);
    }
  }
  return out.join("\n");
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const file = args.find((a) => !a.startsWith("--") && !/^\d+$/.test(a));
  if (!file) {
    console.error("usage: node bench/cpuprofile-summary.mjs FILE.cpuprofile [--top N] [--json]");
    process.exit(2);
  }
  const topIndex = args.indexOf("--top");
  const top = topIndex >= 0 ? Number(args[topIndex + 1]) : 25;
  const summary = summarize(JSON.parse(readFileSync(file, "utf8")));
  if (args.includes("--json")) console.log(JSON.stringify({ ...summary, functions: summary.functions.slice(0, top) }));
  else console.log(formatSummary(summary, top));
}
