import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { pi16 } from "./pi16";

test("PI16_DIR holds Pi 1.6.0 and a Node.js that can run it", () => {
  const pi = pi16();
  const manifest = JSON.parse(readFileSync(join(pi.packageDir, "package.json"), "utf8")) as { name: string; version: string };
  expect(manifest).toMatchObject({ name: "@earendil-works/pi-coding-agent", version: "1.6.0" });
  const nodeVersion = execFileSync(pi.node, ["--version"], { encoding: "utf8" }).trim();
  const [major = 0, minor = 0] = nodeVersion.slice(1).split(".").map(Number);
  expect(major > 22 || (major === 22 && minor >= 19)).toBe(true);
  expect(execFileSync(pi.node, [pi.cli, "--version"], { encoding: "utf8", env: { ...process.env, HOME: "/nonexistent-home" } }).trim()).toBe("1.6.0");
});
