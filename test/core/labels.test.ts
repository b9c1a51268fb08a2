/**
 * Labels as Pi's `labelsById` holds them: `label` entries in file order (on any branch), the last
 * change per target wins, a falsy label clears it, and a target labelled again moves to the end of
 * the map (Pi deletes before it sets).
 */

import { describe, expect, it } from "vitest";
import { SessionDocument } from "../../server/src/core/session/document";
import { labelOf, labels } from "../../server/src/core/session/semantics/labels";
import { HEADER, assistant, label, session, user } from "../helpers/piLines";

const analysis = (...lines: string[]) => new SessionDocument("file:///labels.jsonl", "jsonl", 1, session(...lines)).analysis;

describe("labels", () => {
  const a = analysis(
    HEADER,
    user("u1", null, "Hi.", 1),
    assistant("a1", "u1", "Hello.", 2),
    label("l1", "a1", "u1", "start", 3),
    label("l2", "l1", "a1", "first", 4),
    label("l3", "l2", "u1", "", 5),
    label("l4", "l3", "a1", "second", 6),
    label("l5", "l4", "u1", "again", 7),
  );

  it("takes the last change per target, a cleared label included", () => {
    expect(labelOf(a, a.byId.get("a1")!)?.value).toBe("second");
    expect(labelOf(a, a.byId.get("u1")!)?.value).toBe("again");
    expect(labelOf(a, a.byId.get("u1")!)?.entry.id).toBe("l5");
  });

  it("clears a label with an empty one, and keeps Pi's order (relabelled last)", () => {
    const cleared = analysis(HEADER, user("u1", null, "Hi.", 1), label("l1", "u1", "u1", "start", 2), label("l2", "l1", "u1", "", 3));
    expect(labelOf(cleared, cleared.byId.get("u1")!)).toBeUndefined();
    expect([...labels(a).byTarget.values()].map((l) => l.value)).toEqual(["second", "again"]);
  });
});
