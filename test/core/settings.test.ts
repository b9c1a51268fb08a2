import { describe, expect, it } from "vitest";
import { SessionDocument } from "../../server/src/core/session/document";
import { computeDiagnostics } from "../../server/src/features/diagnostics";
import { applySeverityOverrides } from "../../server/src/features/diagnostics/report";
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
    const base = { ...DEFAULT_SETTINGS, maxSymbols: 7, fadeInactive: false };
    expect(readSettings({}, base)).toEqual(base);
    expect(readSettings({ fadeInactive: false }).fadeInactive).toBe(false);
    expect(readSettings({ fadeInactive: "no" }).fadeInactive).toBe(true);
  });

  it("reads the workspace diagnostics' switch and caps, ignoring values of the wrong type", () => {
    const read = readSettings({ workspaceDiagnostics: false, workspaceDiagnosticsMaxFiles: 10.5, workspaceDiagnosticsMaxMiB: 3 });
    expect(read).toMatchObject({ workspaceDiagnostics: false, workspaceDiagnosticsMaxFiles: 10, workspaceDiagnosticsMaxMiB: 3 });
    const wrong = readSettings({ workspaceDiagnostics: "no", workspaceDiagnosticsMaxFiles: -1, workspaceDiagnosticsMaxMiB: "9" });
    expect(wrong).toEqual(DEFAULT_SETTINGS);
  });
});

describe("severity overrides", () => {
  it("keeps valid levels only", () => {
    expect(readSettings({ severity: { "blank-line": "off", "dangling-parent": "warning", x: "loud", y: 3 } }).severity).toEqual({
      "blank-line": "off",
      "dangling-parent": "warning",
    });
  });

  it("changes severities and hides codes set to off", () => {
    const text = `{"type":"session","version":3,"id":"s","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/"}\n\n{"type":"message","id":"a1","parentId":"zz","timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}\n`;
    const diagnostics = computeDiagnostics(new SessionDocument("file:///s.jsonl", "jsonl", 1, text));
    expect(diagnostics.map((d) => `${String(d.code)}:${d.severity}`)).toEqual(["blank-line:4", "dangling-parent:1"]);
    const overridden = applySeverityOverrides(diagnostics, readSettings({ severity: { "blank-line": "off", "dangling-parent": "warning" } }).severity);
    expect(overridden.map((d) => `${String(d.code)}:${d.severity}`)).toEqual(["dangling-parent:2"]);
    expect(diagnostics[1]!.severity).toBe(1);
  });
});
