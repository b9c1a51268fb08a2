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

let parsed: Record<CatalogVersion, Map<string, ModelInfo>> | undefined;

/** The catalogue model Pi finds for `provider` and `id`, or undefined (including for values that are not strings). */
export function findModel(version: CatalogVersion, provider: unknown, id: unknown): ModelInfo | undefined {
  if (typeof provider !== "string" || typeof id !== "string") return undefined;
  parsed ??= parseCatalog();
  return parsed[version].get(key(provider, id));
}

/** How many models each catalogue holds. */
export function catalogSize(version: CatalogVersion): number {
  parsed ??= parseCatalog();
  return parsed[version].size;
}

function key(provider: string, id: string): string {
  return `${provider}\u0000${id}`;
}

function parseCatalog(): Record<CatalogVersion, Map<string, ModelInfo>> {
  const out: Record<CatalogVersion, Map<string, ModelInfo>> = { "0.74": new Map(), "1.6": new Map() };
  let provider = "";
  for (const line of CATALOG_ROWS.split("\n")) {
    if (line === "") continue;
    // A provider line has no tab (model ids may start with "@" too, as Cloudflare's "@cf/…" do).
    if (!line.includes("\t")) {
      provider = line.slice(1);
      continue;
    }
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
    if (versions === "0.74" || versions === "both") out["0.74"].set(key(provider, info.id), info);
    if (versions === "1.6" || versions === "both") out["1.6"].set(key(provider, info.id), info);
  }
  return out;
}
