/**
 * The doctor in Pi 1.6's terminal UI, on a pseudo-terminal (`script`, from util-linux / bsdutils):
 * the resume notice on screen, then `/doctor` typed, its report drawn, and the remedies offered
 * as Pi's own selection dialog; Pi ended without a choice, nothing is written. Each step waits for
 * the screen to show what it expects (the test's own limit stops a hang).
 */

import { spawn } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { afterAll, expect, it } from "vitest";
import { pi16 } from "../pi16";
import { piFolders, REPO, sessionFrom } from "./harness";

const folders = piFolders();
afterAll(() => rmSync(folders.root, { recursive: true, force: true }));

/** The screen's text so far, without escape sequences (colours, cursor moves, hyperlinks). */
const plain = (raw: string) => raw.replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, "").replace(/\x1b\[[0-9;?]*[a-zA-Z]/g, "");

it("shows the notice, the report and the remedies in Pi's terminal UI", async () => {
  const pi = pi16();
  const file = sessionFrom("fault-tool-result-after-aborted-call", folders.project);
  const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
  const command = `stty cols 120 rows 40; exec ${[pi.node, pi.cli, "--offline", "-e", REPO, "--session", file].map(quote).join(" ")}`;
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd: folders.project,
    env: { PATH: process.env.PATH ?? "", HOME: folders.home, PI_CODING_AGENT_DIR: folders.agent, PI_OFFLINE: "1", TERM: "xterm-256color" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let raw = "";
  let shownFrom = 0;
  child.stdout.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")));
  const exited = new Promise<number | null>((done) => child.on("exit", done));
  /** Resolves once the screen shows `text` after the last thing waited for. */
  const shows = (text: string) =>
    new Promise<void>((done) => {
      const look = () => {
        const at = plain(raw).indexOf(text, shownFrom);
        if (at < 0) return;
        shownFrom = at + text.length;
        child.stdout.off("data", look);
        done();
      };
      child.stdout.on("data", look);
      look();
    });
  await shows("pi-session-lsp: Pi's next request from this session will fail");
  child.stdin.write("/doctor");
  // Typed: Pi's completion lists the command with its description.
  await shows("What Pi silently did with this session file");
  child.stdin.write("\r");
  await shows(`Doctor: ${file}`);
  await shows("orphaned-tool-result");
  await shows("pi-session-lsp doctor: apply a remedy?");
  await shows("1. Fork a repaired copy and switch to it");
  const before = readdirSync(folders.project).sort();
  // No choice made: Pi is ended as a closed terminal ends it (SIGHUP when script goes), in order.
  child.kill("SIGTERM");
  await exited;
  expect(readdirSync(folders.project).sort()).toEqual(before);
});
