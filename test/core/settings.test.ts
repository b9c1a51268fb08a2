import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, readSettings } from "../../server/src/lsp/settings";

describe("settings", () => {
  it("reads the piSession section or the settings object itself", () => {
    expect(readSettings({ piSession: { maxSymbols: 10 } }).maxSymbols).toBe(10);
    expect(readSettings({ maxSymbols: 20 }).maxSymbols).toBe(20);
  });

  it("keeps defaults for missing, mistyped and negative values", () => {
    for (const raw of [undefined, null, [], "x", { maxSymbols: "10" }, { maxSymbols: -1 }, { maxSymbols: Infinity }, { piSession: null }]) {
      expect(readSettings(raw)).toEqual(DEFAULT_SETTINGS);
    }
  });

  it("layers on a base", () => {
    expect(readSettings({}, { maxSymbols: 7, fadeInactive: false })).toEqual({ maxSymbols: 7, fadeInactive: false });
    expect(readSettings({ fadeInactive: false }).fadeInactive).toBe(false);
    expect(readSettings({ fadeInactive: "no" }).fadeInactive).toBe(true);
  });
});
