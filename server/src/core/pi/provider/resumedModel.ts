/**
 * The model Pi sends a resumed session to (`createAgentSession` in Pi's `core/sdk.ts`), and its
 * pi-ai catalogue entry.
 *
 * Pi restores the session's model only when the built context has messages
 * (`hasExistingSession`). Which model:
 * - Pi 0.73/0.74: `buildSessionContext().model`, the last `model_change` or assistant message on
 *   the path;
 * - Pi 1.x: `getBranchSelection(getBranch())` (`core/virtual-models.ts`): walking back from the
 *   leaf, the first `model_change`, or the first assistant message not answered by a virtual model
 *   (`api: "pi-virtual"`, skipped). A virtual `model_change` before that message would win, but
 *   virtual models come from extensions and none is in the built-in catalogue.
 * Pi then looks the model up in its catalogue; a model it does not find (not built in, and not in
 * the user's models.json) is not restored, and Pi falls back to its default model.
 */

import type { Entry } from "../../session/entry";
import type { ValueLine } from "../../line/facts";
import type { SessionContext } from "../buildContext";
import { type CatalogVersion, findModel, type ModelInfo } from "./catalog";
import type { PipelineVersion } from "./convertToLlm";
import type { TransformModel } from "./transformMessages";

/** The model as the provider view names it: the catalogue entry, or what the session names when Pi's catalogue lacks it. */
export type ResumedModel = (ModelInfo & { inCatalog?: undefined }) | { provider: unknown; id: unknown; inCatalog: false };

/**
 * The stand-in for the default model Pi falls back to, for the transform: another model than any
 * that answered in the session, which takes images.
 */
export const FALLBACK_MODEL: TransformModel = { provider: "(default)", id: "(default)", api: "(default)", input: ["text", "image"] };

export interface ModelChoice {
  /** What Pi's selection names (null: nothing on the path names a model, or the context is empty). */
  selected: { provider: unknown; modelId: unknown } | null;
  /** The model the view shows. */
  model: ResumedModel | null;
  /** The model the transform runs for. */
  transformModel: TransformModel;
}

export function catalogVersion(version: PipelineVersion): CatalogVersion {
  return version === "0.74" ? "0.74" : "1.6";
}

export function chooseModel(path: readonly Entry[], context: SessionContext, version: PipelineVersion): ModelChoice {
  const selected = context.messages.length === 0 ? null : version === "0.74" ? context.model : branchSelection(path);
  if (!selected) return { selected: null, model: null, transformModel: FALLBACK_MODEL };
  const info = findModel(catalogVersion(version), selected.provider, selected.modelId);
  if (!info) return { selected, model: { provider: selected.provider, id: selected.modelId, inCatalog: false }, transformModel: FALLBACK_MODEL };
  return { selected, model: info, transformModel: info };
}

/**
 * The choice when the model is given rather than restored: `pi --model` on a resumed session, or an
 * extension that sees the request Pi is about to send to another model. Pi's selection still names
 * what the session names; the messages are prepared for `model`.
 */
export function givenModel(path: readonly Entry[], context: SessionContext, version: PipelineVersion, model: ModelInfo): ModelChoice {
  const selected = context.messages.length === 0 ? null : version === "0.74" ? context.model : branchSelection(path);
  return { selected, model, transformModel: model };
}

/**
 * Pi 1.x's `getBranchSelection(getBranch())` over the path (root first), without virtual model
 * changes. `getBranch()` starts from the leaf's id, not from the leaf: when the last entry has no
 * id (or a falsy one) it is empty, and Pi restores no model even though the context has messages.
 *
 * It reads the parse facts (type, role, the model a line names) and a line's value only to tell
 * a virtual model's answer (`api`), once per parse: a line's value may have been let go
 * (`values.ts`), and this runs on every request for the provider view.
 */
function branchSelection(path: readonly Entry[]): { provider: unknown; modelId: unknown } | null {
  const last = path[path.length - 1];
  if (!last || !(last.parsed.id || last.parsed.object?.id)) return null;
  for (let i = path.length - 1; i >= 0; i--) {
    const p = path[i]!.parsed;
    if (!p.isObject) continue;
    if (p.type === "model_change" && p.model) return p.model;
    if (p.type === "message" && p.role === "assistant" && p.model && !answeredByVirtualModel(p)) return p.model;
  }
  return null;
}

const virtual = new WeakMap<ValueLine, boolean>();

/** Whether an assistant message's `api` is Pi's virtual one, remembered per parse (a new text is a new parse). */
function answeredByVirtualModel(p: ValueLine): boolean {
  let known = virtual.get(p);
  if (known === undefined) {
    const m = p.object?.message as Record<string, unknown> | null | undefined;
    known = m !== null && typeof m === "object" && m.api === "pi-virtual";
    virtual.set(p, known);
  }
  return known;
}
