/**
 * `$/cancelRequest` inside long loops (issue 10, item 7): a request written as steps is stopped
 * between two steps once the client cancels it (RequestCancelled) or the document changes
 * (ContentModified), instead of running to the end. Before, formatting ran as one synchronous
 * loop, so a cancel that arrived after it started was never seen. No clock is involved: the
 * token is a fake that says "cancelled" after a given number of reads.
 */

import { describe, expect, it } from "vitest";
import { type CancellationToken, type Connection, ResponseError } from "vscode-languageserver";
import { SessionDocument } from "../../server/src/core/session/document";
import type { Steps } from "../../server/src/core/base/steps";
import { computeFormatting, formattingSteps } from "../../server/src/features/formatting";
import { Guard } from "../../server/src/lsp/guard";

const H = '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}';
const spaced = (i: number) => `{ "type": "custom", "id": "c${i}", "parentId": null, "timestamp": "2026-01-01T00:00:01.000Z", "customType": "x" }`;
const big = () => new SessionDocument("file:///big.jsonl", "jsonl", 1, `${[H, ...Array.from({ length: 20_000 }, (_, i) => spaced(i))].join("\n")}\n`);

/** A token that reads as cancelled from its `after`-th read on, and counts the reads. */
function tokenCancelledAfter(after: number): CancellationToken & { reads: number } {
  const token = {
    reads: 0,
    get isCancellationRequested() {
      return ++token.reads > after;
    },
    onCancellationRequested: () => ({ dispose: () => undefined }),
  };
  return token;
}

function guard(sliceMs?: number): Guard {
  const g = new Guard({ console: { error: () => undefined } } as unknown as Connection, sliceMs);
  g.state = "running";
  return g;
}

async function codeOf(work: Promise<unknown>): Promise<number | undefined> {
  try {
    await work;
    return undefined;
  } catch (error) {
    return error instanceof ResponseError ? error.code : -1;
  }
}

describe("requests written as steps", () => {
  it("formatting yields every thousand lines and gives the same edits run to the end", () => {
    const doc = big();
    const steps = formattingSteps(doc);
    let yields = 0;
    let next = steps.next();
    for (; !next.done; next = steps.next()) yields++;
    expect(yields).toBe(20);
    expect(next.value).toEqual(computeFormatting(doc));
    expect(next.value).toHaveLength(20_000);
  });

  it("stops a formatting cancelled after it started, at the next step", async () => {
    const doc = big();
    let ran = 0;
    function* counted(): Steps<unknown> {
      const inner = formattingSteps(doc);
      for (let next = inner.next(); ; next = inner.next()) {
        if (next.done) return next.value;
        ran++;
        yield;
      }
    }
    const token = tokenCancelledAfter(3);
    expect(await codeOf(guard().drive(counted(), token))).toBe(-32800);
    expect(ran).toBe(3);
  });

  it("answers ContentModified when the document changed between two slices", async () => {
    function* endless(): Steps<number> {
      for (;;) yield;
    }
    let valid = true;
    const work = guard().drive(endless(), tokenCancelledAfter(Number.POSITIVE_INFINITY), () => valid);
    valid = false;
    expect(await codeOf(work)).toBe(-32801);
  });

  it("with a slice budget of 0, lets other work in after every step", async () => {
    // What a test relies on to know where a long request pauses, whatever the machine's speed.
    function* three(): Steps<string> {
      yield;
      yield;
      yield;
      return "done";
    }
    let pauses = 0;
    const counted = () => {
      pauses++;
      return true;
    };
    expect(await guard(0).drive(three(), tokenCancelledAfter(Number.POSITIVE_INFINITY), counted)).toBe("done");
    expect(pauses).toBe(3);
  });

  it("work written as steps costs one answer on failure, and the lifecycle is checked before it runs", async () => {
    const g = guard();
    const failing = () =>
      g.steps("x", "fallback", tokenCancelledAfter(Number.POSITIVE_INFINITY), () => {
        throw new Error("boom");
      });
    expect(await failing()).toBe("fallback");
    g.state = "shut-down";
    // The server admits every request (lifecycle, cancellation, params) before its handler runs.
    expect(await codeOf((async () => g.admit(tokenCancelledAfter(Number.POSITIVE_INFINITY)))())).toBe(-32600);
  });
});
