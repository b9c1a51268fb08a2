/**
 * The VS Code extension when its server cannot start, as when `piSession.server.path` names a
 * command whose Node.js is missing or too old, or a server that crashes at start: the user is told
 * once, in one notification, the server is not restarted in a loop, and VS Code goes on working.
 *
 * The workspace's `piSession.server.path` names a script that counts its starts in a file, says on
 * stderr what an old Node.js says, and exits; code-server (codeServer.ts) opens a session there,
 * and the probe waits long enough for the language client's own policy (four restarts in three
 * minutes, each announced) to have shown itself.
 */

import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSIONS } from "../harness";
import { keepScreenshot, openWorkbench, SETUP_TIMEOUT_MS, until, type Workbench } from "./codeServer";

/** Long enough for the client's default handler to restart a crashed server several times. */
const WAIT_MS = 12_000;

const work = mkdtempSync(join(tmpdir(), "pi-session-vscode-failure-"));
const workspace = join(work, "workspace");
const session = join(workspace, ".pi", "agent", "sessions", "--home-dev-project--", "broken.jsonl");
const starts = join(work, "starts.log");
const server = join(work, "old-node-server.sh");

let workbench: Workbench | undefined;
let setupError: Error | undefined;
let report: { steps: { extension?: { active: boolean }; diagnostics?: number }; errors: string[] } | undefined;
let notifications: string[] = [];

beforeAll(async () => {
  try {
    mkdirSync(join(session, ".."), { recursive: true });
    copyFileSync(join(SESSIONS, "broken.jsonl"), session);
    writeFileSync(
      server,
      `#!/bin/sh\necho "started $*" >> '${starts}'\necho "pi-session-lsp needs Node.js 20 or later; this is Node.js 18.19.0 (/usr/bin/node)." >&2\nexit 1\n`,
    );
    chmodSync(server, 0o755);
    mkdirSync(join(workspace, ".vscode"));
    writeFileSync(join(workspace, ".vscode", "settings.json"), JSON.stringify({ "piSession.server.path": server }));
    workbench = await openWorkbench(work, workspace, { mode: "failure", broken: session, waitMs: WAIT_MS });
    report = workbench.report as typeof report;
    const toasts = workbench.page.locator(".notifications-toasts .notification-list-item-message");
    notifications = await until(
      () => "a notification in the workbench",
      20_000,
      async () => {
        const texts = await toasts.allTextContents();
        return texts.length > 0 && texts;
      },
    );
    // Anything later would be a second notification: look again after a moment.
    await new Promise((r) => setTimeout(r, 2000));
    notifications = await toasts.allTextContents();
    await keepScreenshot(workbench.page, "vscode-server-failure.png");
  } catch (error) {
    setupError = error as Error;
  }
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await workbench?.close();
  if (!process.env.PI_KEEP_WORK) rmSync(work, { recursive: true, force: true });
});

function ready(): void {
  if (setupError) throw setupError;
  expect(report?.errors, "the probe's failed steps").toEqual([]);
}

describe("VS Code: a server that cannot start", () => {
  it("is started once and not restarted in a loop", () => {
    ready();
    expect(existsSync(starts), "the server was started").toBe(true);
    const lines = readFileSync(starts, "utf8").trim().split("\n");
    expect(lines, "each start of the server").toEqual(["started --stdio"]);
  });

  it("is reported in one notification that says what happened and where to look", () => {
    ready();
    const ours = notifications.filter((n) => n.includes("Pi Session"));
    expect(ours, `the notifications shown: ${JSON.stringify(notifications)}`).toHaveLength(1);
    expect(ours[0]).toMatch(/server stopped right after it started and was not restarted/);
    expect(ours[0]).toContain("piSession.server.path");
    expect(notifications, "no other notification about the server").toHaveLength(1);
  });

  it("leaves VS Code working: the extension stays active, with no diagnostics from a server that is not running", () => {
    ready();
    expect(report!.steps.extension?.active).toBe(true);
    expect(report!.steps.diagnostics).toBe(0);
  });
});
