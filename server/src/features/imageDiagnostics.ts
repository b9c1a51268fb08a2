/**
 * Images and request size in what the provider receives (`requestDiagnostics.ts` calls this):
 *
 * - `too-many-images` (error): more images in the request, or in one message, than pi-ai's
 *   catalogue allows for the model (`inputLimits.images`, from the providers' documentation:
 *   Anthropic takes 100 per request for models with a 200k-token window, 600 otherwise);
 * - `image-too-large` (error): for Anthropic's Messages API, an image over 8000x8000 px, or over
 *   2000x2000 px in a request with more than 20 images ("Images and vision"), read from the image's
 *   own header (PNG, GIF, WebP, JPEG; only the first bytes are decoded);
 * - `request-too-large` (error): a request body over the model's `inputLimits.maxRequestBytes`
 *   (20 MiB for the Gemini API, 32 MB for Anthropic), on the message that crosses it, counted as
 *   the UTF-8 JSON of the provider messages (an API's own body differs by a few hundred bytes per
 *   message: test/parity's generated fixture compares both with the real pi-ai's);
 * - `image-not-sent` (information): a model that takes no images gets Pi's text placeholder.
 *
 * Pi resizes images when a tool reads them or the user attaches them, never when it resumes a
 * session: a stored image goes out as it is.
 */

import type { Diagnostic } from "vscode-languageserver";
import type { Entry } from "../core/session/entry";
import type { SessionDocument } from "../core/session/document";
import { findModel, type ModelInfo } from "../core/pi/provider/catalog";
import type { ProviderRequest } from "../core/pi/provider/types";
import { groupDigits } from "../core/base/text";
import { diagnostic } from "./diagnostics/report";
import { imageBlocks } from "./diagnostics/requestScans";
import { type ProviderRule, ruleFor } from "./providerRules";
import { modelName } from "./providerView";

type Message = Record<string, unknown>;

/** At most this many diagnostics per rule, so a session of a thousand screenshots stays readable. */
const MAX_PER_RULE = 20;
/** Base64 characters of an image decoded to find its size: enough for a JPEG's EXIF block. */
const HEADER_CHARS = 256 * 1024;

interface Image {
  entry: Entry;
  /** Index of the block in the entry's stored content. */
  block: number;
  data: unknown;
}

export function imageDiagnostics(doc: SessionDocument, request: ProviderRequest): Diagnostic[] {
  return [...imageFindings(doc, request), ...requestSizeFindings(doc, request).diagnostics];
}

/** The model the request goes to, when pi-ai's catalogue has it, and its limits (pi-ai 1.6's catalogue carries them; a model only 0.74's lists has none). */
function limitsOf(request: ProviderRequest): { model: ModelInfo | undefined; limits: ModelInfo | undefined } {
  const model = request.model && request.model.inCatalog !== false ? request.model : undefined;
  return { model, limits: model ? (findModel("1.6", model.provider, model.id) ?? model) : undefined };
}

/** Every finding but the request's size: they read only the image blocks of the messages. */
export function imageFindings(doc: SessionDocument, request: ProviderRequest): Diagnostic[] {
  const out: Diagnostic[] = [];
  const { model, limits } = limitsOf(request);
  if (model && !model.input.includes("image")) return notSent(doc, request, model);
  const images: Image[] = [];
  const perMessage: Image[][] = [];
  // The messages' image blocks are found once per message list (`requestScans.ts`).
  for (const { at: k, blocks } of imageBlocks(request.messages)) {
    const entry = request.sources[k];
    if (!entry || request.contextIndex[k]! < 0) continue;
    const content = (request.messages[k] as Message).content as Message[];
    const mine = blocks.map((block): Image => ({ entry, block, data: content[block]!.data }));
    images.push(...mine);
    perMessage.push(mine);
  }
  const name = modelName(request.model) ?? "the model";
  const provider = ruleFor(model?.api).provider;
  if (limits?.maxImagesPerRequest !== undefined && images.length > limits.maxImagesPerRequest) {
    const first = images[limits.maxImagesPerRequest]!;
    out.push(
      diagnostic(
        "too-many-images",
        `Pi sends ${groupDigits(images.length)} images in one request to ${name}, and this is image ${groupDigits(limits.maxImagesPerRequest + 1)}: pi-ai's catalogue allows ${groupDigits(limits.maxImagesPerRequest)} per request for this model, and ${provider} refuses more. Every request fails until images are removed from the context (or a compaction summarises them away).`,
        doc.valueRange(first.entry.line, blockPath(first)),
      ),
    );
  }
  if (limits?.maxImagesPerMessage !== undefined) {
    for (const mine of perMessage.filter((x) => x.length > limits.maxImagesPerMessage!).slice(0, MAX_PER_RULE)) {
      const first = mine[limits.maxImagesPerMessage]!;
      out.push(
        diagnostic(
          "too-many-images",
          `This message holds ${groupDigits(mine.length)} images; pi-ai's catalogue allows ${groupDigits(limits.maxImagesPerMessage)} per message for ${name}, and ${provider} refuses more.`,
          doc.valueRange(first.entry.line, blockPath(first)),
        ),
      );
    }
  }
  if (model && ruleFor(model.api).anthropicImages) {
    const max = images.length > 20 ? 2000 : 8000;
    let reported = 0;
    for (const image of images) {
      if (reported >= MAX_PER_RULE) break;
      const size = typeof image.data === "string" ? imageSize(image.data) : undefined;
      if (!size || (size.width <= max && size.height <= max)) continue;
      reported++;
      const why =
        max === 2000
          ? `the request has ${groupDigits(images.length)} images, and with more than 20 Anthropic refuses any over 2000x2000 px`
          : "Anthropic refuses images over 8000x8000 px";
      out.push(
        diagnostic(
          "image-too-large",
          `This image is ${size.width}x${size.height} px and Pi sends it as stored: ${why} ("Images and vision"), so every request fails until it is removed or a compaction summarises it away.`,
          doc.valueRange(image.entry.line, blockPath(image)),
        ),
      );
    }
  }
  return out;
}

/**
 * The request's size finding, with what an update needs to tell it again after messages are
 * replaced (`updatedSize`): the request's bytes when they were counted and stay under the limit,
 * or the margin by which the file is too small to reach it, or neither when there is no limit.
 */
export interface SizeFindings {
  diagnostics: Diagnostic[];
  bytes?: number;
  margin?: number;
  max?: number;
}

export function requestSizeFindings(doc: SessionDocument, request: ProviderRequest): SizeFindings {
  const { model, limits } = limitsOf(request);
  if ((model && !model.input.includes("image")) || limits?.maxRequestBytes === undefined) return { diagnostics: [] };
  return requestSize(doc, request, limits.maxRequestBytes, modelName(request.model) ?? "the model", ruleFor(model?.api));
}

/**
 * The size finding of `request`, made from `last` by replacing messages whose UTF-8 JSON grew by
 * `delta` bytes in all (the same model, so the same limit), when it is still no finding; undefined
 * when it must be counted again. A file too small to reach the limit is measured again (it is small).
 */
export function updatedSize(doc: SessionDocument, request: ProviderRequest, last: SizeFindings, delta: () => number): SizeFindings | undefined {
  if (last.diagnostics.length > 0) return undefined;
  if (last.max === undefined) return last;
  if (last.margin !== undefined) {
    const bound = requestBytesBound(doc, request);
    return bound < last.max ? { diagnostics: [], margin: last.max - bound, max: last.max } : undefined;
  }
  const bytes = last.bytes === undefined ? undefined : last.bytes + delta();
  return bytes !== undefined && bytes <= last.max ? { diagnostics: [], bytes, max: last.max } : undefined;
}

/**
 * The UTF-8 bytes of each provider message's JSON, per message object: a message is never changed
 * once built (`lsp/keptJson.ts` relies on it too), and a provider request made again after an edit
 * of the tree keeps the messages it shares with the last one, so that counting the request again
 * serialises only the new ones (every message, 108 ms, for a line inserted in the 172 MB session).
 */
const bytesOfMessage = new WeakMap<object, number>();

/** The UTF-8 bytes of a provider message's JSON, as the size check counts them. */
export function messageBytes(message: unknown): number {
  if (typeof message !== "object" || message === null) return Buffer.byteLength(JSON.stringify(message) ?? "", "utf8");
  let bytes = bytesOfMessage.get(message);
  if (bytes === undefined) {
    bytes = Buffer.byteLength(JSON.stringify(message) ?? "", "utf8");
    bytesOfMessage.set(message, bytes);
  }
  return bytes;
}

/** The image block's `type` value: a short token, where the block itself may be megabytes. */
function blockPath(image: Image): (string | number)[] {
  return image.entry.type === "custom_message" ? ["content", image.block, "type"] : ["message", "content", image.block, "type"];
}

/**
 * More UTF-8 bytes than the request's JSON can hold: its messages come from the file's lines, plus
 * a few hundred characters per converted message. The limit is in bytes and the document's length
 * in UTF-16 code units, of which one takes up to three bytes in UTF-8 (a pair, four): counting
 * characters alone let a file of non-ASCII text past the limit unflagged (two bytes for an "é").
 */
function requestBytesBound(doc: SessionDocument, request: ProviderRequest): number {
  return 3 * doc.textLength() + 1024 * request.messages.length;
}

function requestSize(doc: SessionDocument, request: ProviderRequest, max: number, name: string, rule: ProviderRule): SizeFindings {
  // A file well below the limit cannot exceed it, and nothing is serialised.
  const bound = requestBytesBound(doc, request);
  if (bound < max) return { diagnostics: [], margin: max - bound, max };
  let bytes = 0;
  for (let k = 0; k < request.messages.length; k++) {
    bytes += messageBytes(request.messages[k]);
    if (bytes <= max) continue;
    const entry = request.sources[k];
    if (!entry) return { diagnostics: [], max };
    return {
      diagnostics: [
        diagnostic(
          "request-too-large",
          `The request Pi builds passes ${groupDigits(max)} bytes, the largest body pi-ai's catalogue gives for ${name}, at this message: ${rule.requestSize ?? `${rule.provider} refuses larger requests`}. Pi sends the whole context every time, so every request fails until the context shrinks (a compaction, or fewer images).`,
          doc.lineRange(entry.line),
        ),
      ],
      max,
    };
  }
  return { diagnostics: [], bytes, max };
}

function notSent(doc: SessionDocument, request: ProviderRequest, model: ModelInfo): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Set<Entry>();
  for (const source of request.sources) {
    if (!source || seen.has(source) || out.length >= MAX_PER_RULE) continue;
    seen.add(source);
    const o = source.parsed.object;
    const content = source.type === "custom_message" ? o?.content : (o?.message as Message | undefined)?.content;
    if (!Array.isArray(content)) continue;
    const block = content.findIndex((b) => b !== null && typeof b === "object" && (b as Message).type === "image");
    if (block < 0) continue;
    const count = content.filter((b) => b !== null && typeof b === "object" && (b as Message).type === "image").length;
    out.push(
      diagnostic(
        "image-not-sent",
        `${modelName(model)} takes no images (pi-ai's catalogue): Pi replaces ${count === 1 ? "this image" : `these ${groupDigits(count)} images`} with the text "(image omitted: model does not support images)", so the model never sees ${count === 1 ? "it" : "them"}.`,
        doc.valueRange(source.line, source.type === "custom_message" ? ["content", block, "type"] : ["message", "content", block, "type"]),
      ),
    );
  }
  return out;
}

/** Width and height from the first bytes of a base64 PNG, GIF, WebP or JPEG, or undefined. */
export function imageSize(base64: string): { width: number; height: number } | undefined {
  const prefix = base64.slice(0, HEADER_CHARS - (HEADER_CHARS % 4));
  const b = Buffer.from(prefix, "base64");
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47 && b.toString("latin1", 12, 16) === "IHDR")
    return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  if (b.length >= 10 && b.toString("latin1", 0, 4) === "GIF8") return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  if (b.length >= 30 && b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP") {
    const chunk = b.toString("latin1", 12, 16);
    if (chunk === "VP8X") return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
    if (chunk === "VP8 ") return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
    if (chunk === "VP8L" && b.length >= 25) {
      const bits = b.readUInt32LE(21);
      return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
    }
    return undefined;
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) return jpegSize(b);
  return undefined;
}

function jpegSize(b: Buffer): { width: number; height: number } | undefined {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i++;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    const length = b.readUInt16BE(i + 2);
    // Start of frame markers (not DHT, JPG or DAC) carry height and width.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { width: b.readUInt16BE(i + 7), height: b.readUInt16BE(i + 5) };
    if (length < 2) return undefined;
    i += 2 + length;
  }
  return undefined;
}
