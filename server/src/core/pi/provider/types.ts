/**
 * The provider request as data (`request.ts` builds it, `requestUpdate.ts` brings it up to date
 * after an edit). The types stand apart so that the update can name the request without importing
 * its builder back.
 */

import type { Entry } from "../../session/entry";
import type { LeftOut } from "./convertToLlm";
import type { ResumedModel } from "./resumedModel";

export interface ProviderPlaceholder {
  /** Index of the synthetic result among the provider messages. */
  at: number;
  /** The entry of the assistant message whose tool call it answers. */
  call: Entry | undefined;
  toolCallId: unknown;
  toolName: unknown;
}

export interface ProviderRequest {
  /** The model the messages are prepared for, or null when Pi restores none (an empty context, or no model named). */
  model: ResumedModel | null;
  /** What the session names as its model (Pi's selection), even when the catalogue lacks it. */
  selected: { provider: unknown; modelId: unknown } | null;
  /** The messages `transformMessages` returns. */
  messages: unknown[];
  /** For each message, the entry it comes from; a synthetic result names its tool call's entry. */
  sources: (Entry | undefined)[];
  /** For each message, the index of the context message it comes from, or -1 for a synthetic result. */
  contextIndex: number[];
  /** Context messages `convertToLlm` leaves out. */
  leftOut: { entry: Entry | undefined; contextIndex: number; why: LeftOut }[];
  /** Assistant messages dropped for their stop reason (`error` or `aborted`). */
  dropped: { entry: Entry | undefined; contextIndex: number; stopReason: "error" | "aborted" }[];
  placeholders: ProviderPlaceholder[];
  /** System messages held back behind open tool calls (Pi 1.x). */
  held: { entry: Entry | undefined; contextIndex: number }[];
  imagesOmitted: number;
}

export type ProviderResult =
  | { ok: true; request: ProviderRequest }
  /** Pi's pipeline throws on the message from `entry`. */
  | { ok: false; entry: Entry | undefined; contextIndex: number; reason: string; model: ResumedModel | null };
