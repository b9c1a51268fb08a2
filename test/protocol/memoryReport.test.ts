// The debugging log of the server's memory (lsp/memoryReport.ts): written only when asked for.
import { afterEach, describe, expect, it, vi } from "vitest";
import { logMemory, memoryReport } from "../../server/src/lsp/memoryReport";

describe("logMemory", () => {
  afterEach(() => vi.restoreAllMocks());

  it("writes nothing unless PI_SESSION_LSP_MEMORY_LOG is set", () => {
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    logMemory("the idle collections", {});
    expect(write).not.toHaveBeenCalled();
  });

  it("writes the RSS, V8's heap and its old space on one line when asked", () => {
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    logMemory("the idle collections", { PI_SESSION_LSP_MEMORY_LOG: "1" });
    expect(write).toHaveBeenCalledTimes(1);
    const line = String(write.mock.calls[0]?.[0]);
    expect(line).toMatch(/^pi-session-lsp memory the idle collections: rss \d+\.\d heap \d+\.\d\/\d+\.\d external /);
    expect(line).toContain("old_space ");
    expect(line.endsWith("\n")).toBe(true);
    expect(memoryReport()).not.toContain("\n");
  });
});
