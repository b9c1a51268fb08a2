/**
 * The second half of `slim`'s proof, for files small enough to hold: the file read whole into the
 * `SessionDocument` that `context`, `check` and the editor use, its context built by
 * `buildContext` from the leaf the analysis finds and its provider request by
 * `buildProviderRequest`, for Pi 1.x and Pi 0.73/0.74. It shares nothing with the streamed proof
 * (`slimProof.ts`) but the context builder itself, so a mistake in how the streamed proof finds the
 * path Pi resumes along cannot prove a wrong file twice.
 */

import { createHash } from "node:crypto";
import { pathToFileURL } from "node:url";
import { buildContext, type PiFlavor } from "../core/pi/buildContext";
import { buildProviderRequest, providerViewJson } from "../core/pi/provider/request";
import { SessionDocument } from "../core/session/document";
import { closeFile, openSessionFile } from "./files";
import { decodeSession } from "../io/checkRead";
import { PROVED_FLAVORS } from "./slimProof";

/** Files up to this size are also proved the full way; a larger one only streamed. */
export const FULL_PROOF_MAX_BYTES = 64 * 1024 * 1024;

function sha(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Per Pi: what its context and request are (hashed), or how building them fails; of the first `size` bytes when given. */
export function fullDigests(file: string, size?: number): string[] {
  const opened = openSessionFile(file);
  closeFile(opened);
  const text = decodeSession(size === undefined ? opened.bytes : opened.bytes.subarray(0, size)).text;
  const doc = new SessionDocument(pathToFileURL(file).href, "jsonl", 0, text);
  return PROVED_FLAVORS.map((flavor: PiFlavor) => {
    try {
      const built = buildContext(doc.analysis, { flavor });
      if (!built.ok) return `fails: ${built.failure.kind} at line ${built.failure.entry.line + 1}`;
      const request = buildProviderRequest(built.build, { flavor, now: () => 0 });
      const requestText = request.ok ? sha(providerViewJson(request.request)) : `fails: ${request.reason}`;
      return `${sha(JSON.stringify(built.build.context))} ${requestText}`;
    } catch (error) {
      return `throws: ${error instanceof Error ? error.message : "unknown"}`;
    }
  });
}

/**
 * Why the full proof fails for the first `size` bytes of `original` and the file `slimmed`, or
 * undefined when both Pis build the same from each.
 */
export function fullProofFailure(original: string, size: number, slimmed: string): string | undefined {
  const before = fullDigests(original, size);
  const after = fullDigests(slimmed);
  for (let k = 0; k < before.length; k++) {
    const pi = PROVED_FLAVORS[k] === "0.74" ? "Pi 0.74" : "Pi 1.x";
    if (before[k]!.startsWith("throws:")) return `${pi}'s context of the original could not be built (${before[k]})`;
    if (before[k] !== after[k]) return `${pi}'s context or provider request, built from the whole file, differs in the slimmed file`;
  }
  return undefined;
}
