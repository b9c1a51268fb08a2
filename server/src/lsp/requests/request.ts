/**
 * What a request the server answers is: its method, the part of the server's capabilities that
 * announces it, the shape of its params, and its handler. `server.ts` loops over the list in
 * `index.ts` to announce, register and check them all the same way, so that a request is written
 * in one file.
 */

import type { CancellationToken, ClientCapabilities, RequestType, ServerCapabilities } from "vscode-languageserver";
import type { SessionDocument } from "../../core/session/document";
import type { Shape } from "../params";
import type { ServerState } from "../state";

export interface Request<P = never, R = unknown> {
  /**
   * The protocol's request type, or the method of one of the server's own requests. The type, not
   * its method, is registered: with it the connection itself refuses a request that has no params.
   */
  readonly type: RequestType<P, R, unknown> | string;
  readonly method: string;
  /** What `initialize` announces for this request, which may depend on what the client supports. */
  readonly capabilities?: (client: ClientCapabilities) => ServerCapabilities;
  /** The members its params must have; params that do not fit are answered with InvalidParams. */
  readonly params?: Shape;
  /** Runs once the request was admitted (lifecycle, cancellation and params checked, `guard.ts`). */
  readonly handler: (params: P, state: ServerState, token: CancellationToken) => R | Promise<R>;
}

/** A request of any params and result, as the list holds them. */
// biome-ignore lint/suspicious/noExplicitAny: the list holds requests of every params type, each checked where it is written.
export type AnyRequest = Request<any, unknown>;

type RequestSpec<P, R> = Omit<Request<P, R>, "method">;

/** A request, its method taken from its type. */
export function request<P, R>(spec: RequestSpec<P, R>): Request<P, R> {
  return { ...spec, method: typeof spec.type === "string" ? spec.type : spec.type.method };
}

/**
 * A request on an open document, answering `fallback` for an unknown document and, after logging
 * it, on failure.
 */
export function documentRequest<P extends { textDocument: { uri: string } }, R>(
  spec: Omit<RequestSpec<P, R>, "handler"> & { fallback: R; answer: (document: SessionDocument, params: P, state: ServerState) => R },
): Request<P, R> {
  const { fallback, answer, ...rest } = spec;
  const made: Request<P, R> = request({
    ...rest,
    handler: (params, state) =>
      state.guard.safe(made.method, fallback, () => {
        const document = state.documents.get(params.textDocument.uri);
        return document ? answer(document, params, state) : fallback;
      }),
  });
  return made;
}

/** A request on a hierarchy item, whose document is named by the item's `uri`; answers `[]` when it is not open. */
export function itemRequest<P extends { item: { uri: string } }, R>(
  spec: Omit<RequestSpec<P, R[] | null>, "handler"> & { answer: (document: SessionDocument, params: P) => R[] },
): Request<P, R[] | null> {
  const { answer, ...rest } = spec;
  const made: Request<P, R[] | null> = request({
    ...rest,
    handler: (params, state) =>
      state.guard.safe(made.method, [], () => {
        const document = state.documents.get(params.item.uri);
        return document ? answer(document, params) : [];
      }),
  });
  return made;
}
