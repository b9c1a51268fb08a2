/**
 * The system prompt replay (Pi 1.x `getCurrentSystemMessage`). The replay was also compared with
 * the real Pi 1.6.0 function on every context of the parity corpus that has system messages.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { currentSystem } from "../../server/src/core/pi/systemPrompt";

const tool = (name: string) => ({ name, description: `${name} tool`, parameters: { type: "object" } });

describe("system prompt replay", () => {
  it("appends content, patches sections by name and adds and removes tools in order", () => {
    const state = currentSystem([
      {
        role: "system",
        content: "You are Pi.",
        sections: { tools: "<tools>\nread\n</tools>", cwd: "<cwd>/a</cwd>" },
        toolsAdded: [tool("read"), tool("bash")],
        timestamp: 5,
      },
      { role: "user", content: "hi", timestamp: 6 },
      {
        role: "system",
        content: [
          { type: "text", text: "Be brief." },
          { type: "text", text: "Really." },
        ],
        sections: { cwd: null, rules: "<rules>x</rules>" },
        toolsRemoved: [{ name: "bash" }],
        toolsAdded: [tool("edit")],
        timestamp: 7,
      },
    ]);
    expect(state?.message).toEqual({
      role: "system",
      content: "You are Pi.\n\nBe brief.\nReally.",
      sections: { tools: "<tools>\nread\n</tools>", rules: "<rules>x</rules>" },
      toolsAdded: [tool("read"), tool("edit")],
      timestamp: 5,
    });
    expect(state?.sectionNames).toEqual(["tools", "rules"]);
    expect(state?.toolNames).toEqual(["read", "edit"]);
    expect(state?.text).toBe("You are Pi.\n\nBe brief.\nReally.\n\n<tools>\nread\n</tools>\n\n<rules>x</rules>");
  });

  it("is absent without system messages, and skips malformed fields", () => {
    expect(currentSystem([{ role: "user", content: "hi" }])).toBeUndefined();
    const state = currentSystem([{ role: "system", content: 7, sections: [1], toolsAdded: [null, { name: 3 }], toolsRemoved: "x" }]);
    expect(state?.message).toEqual({ role: "system", content: "", timestamp: 0 });
  });

  it("replays the system messages of a session Pi 1.6 wrote", () => {
    const expected = JSON.parse(readFileSync(join(__dirname, "../parity/expected/written-16-system.1.6.0.json"), "utf8")) as {
      context: { messages: unknown[] };
    };
    const state = currentSystem(expected.context.messages);
    expect(state?.sectionNames.length).toBeGreaterThan(0);
    expect(state?.toolNames.length).toBeGreaterThan(0);
    // Every section whose last patch in the session is a deletion is gone; every other one is there.
    const last = new Map<string, unknown>();
    for (const m of expected.context.messages) {
      const r = m as { role?: string; sections?: Record<string, unknown> };
      if (r.role === "system") for (const [name, value] of Object.entries(r.sections ?? {})) last.set(name, value);
    }
    expect(last.size).toBeGreaterThan(0);
    expect(state?.sectionNames.sort()).toEqual(
      [...last]
        .filter(([, v]) => v !== null)
        .map(([k]) => k)
        .sort(),
    );
  });
});
