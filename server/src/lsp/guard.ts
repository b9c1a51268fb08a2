/**
 * Every request handler runs behind one guard, which keeps the protocol's rules and the server's
 * promise that a failure costs one answer:
 *
 * - before `initialize` a request is refused with `ServerNotInitialized`, after `shutdown` with
 *   `InvalidRequest`, as the LSP specification asks, and params that do not have the shape the
 *   specification gives them (each request's shape, `requests/`) with `InvalidParams`, before the
 *   handler runs;
 * - a request the client has cancelled is answered `RequestCancelled` without running (requests
 *   still queued behind a running one are answered the moment their `$/cancelRequest` arrives, by
 *   the connection strategy in `stdio.ts`); a long one written as steps (`core/base/steps.ts`) is run
 *   a slice of time at a time, and answered `RequestCancelled` between two slices once cancelled,
 *   or `ContentModified` once its document changed;
 * - an exception inside a handler is logged and answered with the handler's empty result, never
 *   allowed to take the server down; a `ResponseError` a handler throws on purpose (a refused
 *   rename, an unknown document) reaches the client as it is.
 */

import { type CancellationToken, type Connection, ErrorCodes, LSPErrorCodes, ResponseError } from "vscode-languageserver";
import type { Steps } from "../core/base/steps";
import { invalidParams, type Shape } from "./params";

/** What the guard needs of a request to check its params. */
export interface RequestShape {
  readonly method: string;
  readonly params?: Shape;
}

/** How long a request written as steps runs before it lets other messages in. */
export const SLICE_MS = 15;

export type Lifecycle = "new" | "running" | "shut-down";

export class Guard {
  state: Lifecycle = "new";

  /**
   * `sliceMs` is how long a slice runs (`SLICE_MS` unless the server was started with another);
   * at 0 every step is a slice, so that a test knows where the work lets messages in whatever the
   * machine's speed.
   */
  constructor(
    private readonly connection: Connection,
    private readonly sliceMs = SLICE_MS,
  ) {}

  /** Logs `what failed` with the error's stack. */
  logFailure(what: string, error: unknown): void {
    this.connection.console.error(`${what} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }

  /** Runs `work` now; on an exception logs it and returns `fallback`. */
  safe<R>(what: string, fallback: R, work: () => R): R {
    try {
      return work();
    } catch (error) {
      if (error instanceof ResponseError) throw error;
      this.logFailure(what, error);
      return fallback;
    }
  }

  /**
   * Runs the steps `start` returns a slice at a time, checking the token at every step and
   * yielding to the event loop (where `$/cancelRequest` and edits arrive) after each slice.
   * `stillValid` says whether the document is still the version the work started on; no steps
   * answer `fallback`, and so does a failure, which is logged.
   */
  async steps<R>(what: string, fallback: R, token: CancellationToken, start: () => { steps: Steps<R>; stillValid: () => boolean } | undefined): Promise<R> {
    try {
      const started = start();
      return started ? await this.drive(started.steps, token, started.stillValid) : fallback;
    } catch (error) {
      if (error instanceof ResponseError) throw error;
      this.logFailure(what, error);
      return fallback;
    }
  }

  /** Runs `steps` to the end, a slice at a time; throws `RequestCancelled` or `ContentModified`. */
  async drive<R>(steps: Steps<R>, token: CancellationToken, stillValid: () => boolean = () => true): Promise<R> {
    let sliceStart = performance.now();
    for (;;) {
      if (token.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, "the request was cancelled");
      const next = steps.next();
      if (next.done) return next.value;
      if (performance.now() - sliceStart < this.sliceMs) continue;
      await new Promise((resolve) => setImmediate(resolve));
      if (!stillValid()) throw new ResponseError(LSPErrorCodes.ContentModified, "the document changed while the request ran");
      sliceStart = performance.now();
    }
  }

  /**
   * Throws the protocol's error for a request that must not run now, or, given the request and
   * its params, for params that do not have the shape the specification gives them.
   */
  admit(token?: CancellationToken, request?: RequestShape, params?: unknown): void {
    if (this.state === "new") throw new ResponseError(ErrorCodes.ServerNotInitialized, "the server has not been initialized");
    if (this.state === "shut-down") throw new ResponseError(ErrorCodes.InvalidRequest, "the server is shutting down");
    if (token?.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, "the request was cancelled");
    const invalid = request === undefined ? undefined : invalidParams(request, params);
    if (invalid !== undefined) throw new ResponseError(ErrorCodes.InvalidParams, invalid);
  }
}
