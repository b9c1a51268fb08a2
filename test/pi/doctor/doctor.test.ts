/**
 * The doctor inside the real Pi 1.6, in RPC mode, loaded with `-e` the repository: `/doctor` on a
 * healthy, a broken and a bricked session (sessions from test/parity/fixtures), the notice on
 * resuming a session with faults, the remedies applied through Pi's own session API (the repaired
 * copy forked and switched to, leaving the file Pi held byte for byte as it was; the leaf moved to
 * the newest message), and the warning before a request the provider refuses, once per fault,
 * with the request sent unchanged to a fake Anthropic endpoint on 127.0.0.1.
 */

import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { pi16 } from "../pi16";
import { fakeAnthropic, type FakeProvider, PiRpc, piFolders, REPO, type RpcRecord, sessionFrom } from "./harness";

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Pi on a copy of `fixture`, with the fake provider when one is given. */
function piOn(fixture: string, provider?: FakeProvider) {
  const folders = piFolders(provider);
  const file = sessionFrom(fixture, folders.project);
  const pi = new PiRpc(["--session", file], folders);
  cleanup.push(() => rmSync(folders.root, { recursive: true, force: true }));
  cleanup.push(() => pi.close());
  return { pi, file, folders };
}

const isSelect = (r: RpcRecord) => r.type === "extension_ui_request" && r.method === "select";

/** Runs /doctor and returns its report (the notification that starts "Doctor: "). */
async function doctor(pi: PiRpc, id: string): Promise<string> {
  const from = pi.records.length;
  const notice = pi.next((r) => r.type === "extension_ui_request" && r.method === "notify" && String(r.message).startsWith("Doctor: "), from);
  pi.send({ id, type: "prompt", message: "/doctor" });
  return String((await notice).message);
}

describe("/doctor in Pi 1.6 (RPC mode)", () => {
  it("calls a healthy session healthy, with no notice at start and no remedy to choose", async () => {
    const { pi, file } = piOn("written-16-branches");
    const response = await pi.prompt("/doctor", "d1");
    expect(response).toMatchObject({ success: true, data: { disposition: "handled" } });
    const notices = pi.notices();
    expect(notices).toHaveLength(1);
    expect(notices[0]![0]).toBe("info");
    expect(notices[0]![1]).toContain(`Doctor: ${file}`);
    expect(notices[0]![1]).toContain("Healthy: Pi reads every line of this session as written");
    expect(pi.records.some(isSelect)).toBe(false);
  });

  it("names a broken session's skipped line and dangling parent, after one notice at start", async () => {
    const { pi } = piOn("fault-malformed-middle");
    const report = await doctor(pi, "d1");
    const start = pi.notices().filter(([, text]) => text.startsWith("pi-session-lsp: "));
    expect(start).toEqual([["warning", "pi-session-lsp: Pi reads this session, but not as written (2 findings). /doctor explains what and what to do."]]);
    expect(report).toContain("Lines Pi skipped (1):\n  line 5: error malformed-json: This line is not valid JSON");
    expect(report).toContain("The tree Pi built (1):\n  line 6: error dangling-parent:");
    expect(report).toContain("What to do: Pi reads around these lines");
  });

  it("names a bricked session's refused tool result, forks a repaired copy and switches to it, leaving the file as it was", async () => {
    const { pi, file } = piOn("fault-tool-result-after-aborted-call");
    const start = await pi.next((r) => r.type === "extension_ui_request" && r.method === "notify");
    expect(String(start.message)).toContain("Pi's next request from this session will fail");
    const from = pi.records.length;
    const report = await doctor(pi, "d1");
    expect(report).toContain('line 4: error orphaned-tool-result: Pi sends this tool result for "toolu_01"');
    expect(report).toContain("/compact");
    const select = await pi.next(isSelect, from);
    const options = select.options as string[];
    expect(options).toEqual(["1. Fork a repaired copy and switch to it", "Close: leave the session as it is"]);
    const before = readFileSync(file);
    pi.send({ type: "extension_ui_response", id: select.id, value: options[0] });
    await pi.next((r) => r.type === "response" && r.id === "d1");
    pi.send({ id: "s1", type: "get_state" });
    const state = (await pi.next((r) => r.type === "response" && r.id === "s1")).data as { sessionFile: string };
    expect(state.sessionFile).not.toBe(file);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(pi.notices(from).map(([, text]) => text)).toContain(
      `pi-session-lsp /doctor: switched to the repaired copy ${state.sessionFile}; ${file} is unchanged.`,
    );
    const copy = readFileSync(state.sessionFile, "utf8").split("\n");
    expect(JSON.parse(copy[0]!)).toMatchObject({ type: "session", version: 3, parentSession: file });
    // The copy is what Pi now holds, and the doctor finds no request fault in it.
    const again = await doctor(pi, "d2");
    expect(again).toContain(`Doctor: ${state.sessionFile}`);
    expect(again).not.toContain("orphaned-tool-result");
    await pi.close();
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it("moves Pi to the newest message a metadata leaf hid, through navigateTree, and marks it", async () => {
    const { pi, file } = piOn("fault-metadata-leaf");
    const from = pi.records.length;
    const report = await doctor(pi, "d1");
    expect(report).toContain("leaf-hides-messages");
    const select = await pi.next(isSelect, from);
    const options = select.options as string[];
    expect(options[0]).toMatch(/^1\. Resume from the newest message \(line \d+, a0000007\)$/);
    pi.send({ type: "extension_ui_response", id: select.id, value: options[0] });
    await pi.next((r) => r.type === "response" && r.id === "d1");
    pi.send({ id: "t1", type: "get_state" });
    await pi.next((r) => r.type === "response" && r.id === "t1");
    const last = JSON.parse(readFileSync(file, "utf8").trimEnd().split("\n").at(-1)!) as Record<string, unknown>;
    expect(last).toMatchObject({ type: "custom", customType: "pi-session-lsp.resume-from", parentId: "a0000007" });
    expect((await doctor(pi, "d2")).includes("leaf-hides-messages")).toBe(false);
  });
});

describe("before a request (RPC mode, a fake Anthropic endpoint)", () => {
  it("warns once per fault before a request the provider refuses, and sends the request unchanged", async () => {
    const provider = await fakeAnthropic();
    cleanup.push(() => provider.close());
    const { pi } = piOn("fault-tool-result-after-aborted-call", provider);
    await pi.next((r) => r.type === "extension_ui_request" && r.method === "notify");
    for (const id of ["p1", "p2"]) {
      const from = pi.records.length;
      pi.send({ id, type: "prompt", message: "go on" });
      await pi.next((r) => r.type === "agent_settled", from);
    }
    const warnings = pi.notices().filter(([, text]) => text.includes("carries what the provider refuses"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]![0]).toBe("warning");
    expect(warnings[0]![1]).toContain("orphaned-tool-result");
    expect(warnings[0]![1]).toContain("Remedy: ");
    expect(provider.bodies).toHaveLength(2);
    // Sent as Pi built it: the tool result without its call is still in the body.
    const sent = JSON.stringify(provider.bodies[0]);
    expect(sent).toContain('"tool_use_id":"toolu_01"');
  });
});

/** Runs Pi 1.6 once (not in RPC mode) in `folders`, as a user would. */
function piOnce(folders: { home: string; agent: string; project: string }, args: string[]) {
  const pi = pi16();
  // PI_OFFLINE=1 is --offline, which would also end a subcommand's place as the first word.
  return spawnSync(pi.node, [pi.cli, ...args], {
    cwd: folders.project,
    env: { PATH: process.env.PATH ?? "", HOME: folders.home, PI_CODING_AGENT_DIR: folders.agent, PI_OFFLINE: "1" },
    encoding: "utf8",
  });
}

describe("/doctor without a UI (print and JSON mode)", () => {
  it("writes the report as text on stderr, where Pi sends an extension's output outside RPC and the terminal", () => {
    const folders = piFolders();
    cleanup.push(() => rmSync(folders.root, { recursive: true, force: true }));
    const file = sessionFrom("fault-tool-result-after-aborted-call", folders.project);
    const json = piOnce(folders, ["-e", REPO, "--session", file, "--mode", "json", "-p", "/doctor"]);
    expect(json.status).toBe(0);
    expect(json.stderr).toContain(`Doctor: ${file}\n`);
    // stdout is Pi's event stream, nothing else.
    for (const line of json.stdout.split("\n").filter((l) => l !== "")) expect(() => JSON.parse(line)).not.toThrow();
    const run = piOnce(folders, ["-e", REPO, "--session", file, "-p", "/doctor"]);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe("");
    // The report in the same words as in RPC mode and the CLI; no resume notice (nobody at a UI to
    // read it, and a print run is not held up by the check).
    expect(run.stderr).not.toContain("/doctor explains");
    expect(run.stderr).not.toContain("stale");
    expect(run.stderr).toContain(`Doctor: ${file}\n`);
    expect(run.stderr).toContain("line 4: error orphaned-tool-result:");
    expect(run.stderr).toContain("Remedies that are safe while Pi holds the file:\n  1. Fork a repaired copy and switch to it:");
  });
});

describe("pi install of the package", () => {
  it("adds the package to Pi's settings, and Pi loads /doctor from it without -e", async () => {
    const folders = piFolders();
    cleanup.push(() => rmSync(folders.root, { recursive: true, force: true }));
    const installed = piOnce(folders, ["install", REPO]);
    expect(installed.status, installed.stderr + installed.stdout).toBe(0);
    expect(installed.stdout).toContain(`Installed ${REPO}`);
    const file = sessionFrom("fault-malformed-middle", folders.project);
    const pi = new PiRpc(["--session", file], folders, false);
    cleanup.push(() => pi.close());
    expect(await doctor(pi, "d1")).toContain("line 5: error malformed-json:");
  });
});
