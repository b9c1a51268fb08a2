/**
 * pi-ai's built-in model catalogue, as Pi looks a model up when it resumes a session
 * (`ModelRegistry.find(provider, id)` in Pi 0.74, `ModelRuntime.getModel(provider, id)` in Pi 1.6):
 * an exact match on the provider and the model id, in the catalogue of the pi-ai version that Pi
 * version ships with.
 *
 * The table itself is generated from the packages (`catalog.generated.ts`, by
 * test/parity/catalog.mjs) and parsed here once, on first use. A model a user defines in
 * `models.json` is not in it; nothing in a session file says whether one exists.
 */

import { CATALOG_APIS, CATALOG_ROWS } from "./catalog.generated";

/** Whose catalogue: pi-ai 0.74.2 (Pi 0.73/0.74) or pi-ai 1.6.0 (Pi 1.x). */
export type CatalogVersion = "0.74" | "1.6";

/** What the message pipeline and the request checks read of a catalogue model, with pi-ai's names. */
export interface ModelInfo {
  provider: string;
  id: string;
  api: string;
  /** `["text", "image"]` or `["text"]`: a model without "image" gets Pi's text placeholder for every image. */
  input: string[];
  contextWindow: number;
  maxTokens: number;
  reasoning: boolean;
  /** pi-ai 1.6's `inputLimits.maxRequestBytes`: the largest request body the provider accepts. */
  maxRequestBytes?: number;
  /** pi-ai 1.6's `inputLimits.images.maxPerRequest`. */
  maxImagesPerRequest?: number;
  /** pi-ai 1.6's `inputLimits.images.maxPerMessage`. */
  maxImagesPerMessage?: number;
}

type ModelsByVersion = Record<CatalogVersion, Map<string, ModelInfo>>;

/**
 * Each provider's models, parsed the first time one of them is looked up: a session names one or
 * two providers, and parsing all 2,400 rows cost every `check` run and every open 27 ms.
 */
const byProvider = new Map<string, ModelsByVersion | null>();
/**
 * Providers that are not in the catalogue are remembered up to this many, and only names this
 * short (the names come from the file: a 4 MB name would be kept for the life of the process).
 */
const MAX_UNKNOWN_PROVIDERS = 256;
const MAX_UNKNOWN_NAME_CHARS = 64;
let unknownProviders = 0;

/** The catalogue model Pi finds for `provider` and `id`, or undefined (including for values that are not strings). */
export function findModel(version: CatalogVersion, provider: unknown, id: unknown): ModelInfo | undefined {
  if (typeof provider !== "string" || typeof id !== "string") return undefined;
  return modelsOf(provider)?.[version].get(id);
}

/** How many models each catalogue holds. */
export function catalogSize(version: CatalogVersion): number {
  let size = 0;
  for (const provider of providers()) size += modelsOf(provider)![version].size;
  return size;
}

/** The providers of the catalogue, in its order. */
function providers(): string[] {
  const names: string[] = [];
  for (let at = nextProviderLine(0); at >= 0; at = nextProviderLine(at + 1))
    names.push(CATALOG_ROWS.slice(at + PROVIDER_MARK.length, CATALOG_ROWS.indexOf("\n", at + 1)));
  return names;
}

/** A provider line is "@" and the provider's name on a line of its own; model ids may start with "@" too, but a row always holds a tab. */
const PROVIDER_MARK = "\n@";

/** Where the first provider line at or after `from` starts (its "\n"), or -1. */
function nextProviderLine(from: number): number {
  for (let at = CATALOG_ROWS.indexOf(PROVIDER_MARK, from); at >= 0; at = CATALOG_ROWS.indexOf(PROVIDER_MARK, at + 1)) {
    const end = CATALOG_ROWS.indexOf("\n", at + 1);
    const tab = CATALOG_ROWS.indexOf("\t", at + 1);
    if (tab < 0 || (end >= 0 && end < tab)) return at;
  }
  return -1;
}

function modelsOf(provider: string): ModelsByVersion | undefined {
  const known = byProvider.get(provider);
  if (known !== undefined) return known ?? undefined;
  const models = parseProvider(provider);
  if (models) byProvider.set(provider, models);
  else if (provider.length <= MAX_UNKNOWN_NAME_CHARS && unknownProviders < MAX_UNKNOWN_PROVIDERS) {
    unknownProviders++;
    byProvider.set(provider, null);
  }
  return models;
}

/** The rows of `provider`'s section, or undefined when the catalogue has none. */
function parseProvider(provider: string): ModelsByVersion | undefined {
  // A name with a line break or a tab could only match across rows.
  if (provider.includes("\n") || provider.includes("\t")) return undefined;
  const heading = `${PROVIDER_MARK}${provider}\n`;
  const at = CATALOG_ROWS.indexOf(heading);
  if (at < 0) return undefined;
  const start = at + heading.length;
  const end = nextProviderLine(start - 1);
  const out: ModelsByVersion = { "0.74": new Map(), "1.6": new Map() };
  for (const line of CATALOG_ROWS.slice(start, end < 0 ? undefined : end).split("\n")) {
    if (line === "") continue;
    const [id, api, image, contextWindow, maxTokens, reasoning, requestBytes, perRequest, perMessage, versions] = line.split("\t");
    const info: ModelInfo = {
      provider,
      id: id!,
      api: CATALOG_APIS[Number(api)]!,
      input: image === "i" ? ["text", "image"] : ["text"],
      contextWindow: Number(contextWindow),
      maxTokens: Number(maxTokens),
      reasoning: reasoning === "r",
    };
    if (requestBytes !== "-") info.maxRequestBytes = Number(requestBytes);
    if (perRequest !== "-") info.maxImagesPerRequest = Number(perRequest);
    if (perMessage !== "-") info.maxImagesPerMessage = Number(perMessage);
    if (versions === "0.74" || versions === "both") out["0.74"].set(info.id, info);
    if (versions === "1.6" || versions === "both") out["1.6"].set(info.id, info);
  }
  return out;
}
