/**
 * Runs a real VS Code for the tests in this folder: code-server (the VS Code that runs in a
 * browser) with the extension's `.vsix` and the test-only probe installed as a user installs
 * extensions, opened in Debian's Chromium on a workspace, until the probe has written its report.
 *
 * What it needs (`.ci/run` installs all of it): code-server, Node.js 24 and playwright-core from
 * test/clients/vscode/get-code-server.sh (PI_CODE_SERVER names its folder; default
 * $TMPDIR/pi-session-code-server), Debian's `chromium`, and the extension's own dependencies
 * (`npm ci --prefix client-samples/vscode`). A missing piece is an error that names the command
 * that installs it.
 *
 * code-server listens on 127.0.0.1 only, on a free port, with no authentication, in a HOME of its
 * own; it and everything it started are killed when the workbench is closed.
 *
 * To look into a failure: PI_CODE_SERVER_LOG=trace makes code-server log at that level (the
 * extension's output, with the protocol when `piSession.trace.server` is set, lands in
 * user-data/logs/…/Pi Session.log), and PI_KEEP_WORK=1 keeps the tests' temporary folder.
 */

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { REPO, requireEditor, SAMPLES } from "../harness";

export const EXTENSION = join(SAMPLES, "vscode");
const PROBE = join(__dirname, "probe");
const TOOLS = process.env.PI_CODE_SERVER ?? join(tmpdir(), "pi-session-code-server");
const INSTALL_TOOLS =
  "test/clients/vscode/get-code-server.sh (and apt-get install -y chromium build-essential python3 pkg-config libsecret-1-dev libkrb5-dev first)";
/** Where the screenshots are kept: .ci/run's log folder, or .ci/logs/. */
export const LOGS = process.env.PI_CI_LOGS ?? join(REPO, ".ci", "logs");

/**
 * Hard limits: each command, code-server's start, the page's load and the probe's run. Packaging,
 * the install and these stay under the tests' setup limit (SETUP_TIMEOUT_MS), so that a workbench
 * that never answers fails with its own message and is always killed.
 */
const COMMAND_TIMEOUT_MS = 60_000;
const START_TIMEOUT_MS = 45_000;
const LOAD_TIMEOUT_MS = 30_000;
const REPORT_TIMEOUT_MS = 90_000;
export const SETUP_TIMEOUT_MS = 4 * COMMAND_TIMEOUT_MS + START_TIMEOUT_MS + LOAD_TIMEOUT_MS + REPORT_TIMEOUT_MS + 30_000;

/** Every code-server started here, killed with its process group when the tests' process exits, whatever happened. */
const running = new Set<number>();
function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
  running.delete(pid);
}
process.once("exit", () => {
  for (const pid of running) killGroup(pid);
});

/** Runs a command to completion with a hard limit, and throws with its output when it fails. */
function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
  const result = spawnSync(command, args, { cwd: options.cwd ?? REPO, env: options.env ?? process.env, encoding: "utf8", timeout: COMMAND_TIMEOUT_MS });
  if (result.status !== 0) {
    const why = result.error ? result.error.message : result.signal ? `killed (${result.signal})` : `exit ${String(result.status)}`;
    throw new Error(`${command} ${args.join(" ")}: ${why}\n${result.stdout}${result.stderr}`.slice(0, 4000));
  }
  return result.stdout;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

function healthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const request = get({ host: "127.0.0.1", port, path: "/healthz", timeout: 2000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on("error", () => resolve(false));
    request.on("timeout", () => {
      request.destroy();
      resolve(false);
    });
  });
}

/** The first value of `test` that is neither undefined nor false, asked every 250 ms until `limitMs`. */
export async function until<T>(what: () => string, limitMs: number, test: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await test();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what()}: nothing after ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The part of Playwright's page this folder uses. */
export interface Page {
  goto(url: string, options: object): Promise<unknown>;
  screenshot(options: object): Promise<unknown>;
  locator(selector: string): { allTextContents(): Promise<string[]> };
}

export interface Workbench {
  /** The probe's report, parsed. */
  report: unknown;
  page: Page;
  /** The end of what code-server printed. */
  log(): string;
  close(): Promise<void>;
}

let packaged: { vsix: string; probe: string } | undefined;

/** The extension's `.vsix` by its own script, and the probe's by vsce: once per test file. */
function packages(work: string): { vsix: string; probe: string } {
  if (packaged) return packaged;
  if (!existsSync(join(EXTENSION, "node_modules", ".bin", "vsce"))) {
    throw new Error("the extension's dependencies are not installed: run `npm ci --prefix client-samples/vscode` (.ci/run does this on CI).");
  }
  run("npm", ["run", "-s", "package"], { cwd: EXTENSION });
  const { name, version } = JSON.parse(readFileSync(join(EXTENSION, "package.json"), "utf8")) as { name: string; version: string };
  const probe = join(work, "probe.vsix");
  run(join(EXTENSION, "node_modules", ".bin", "vsce"), ["package", "--no-dependencies", "--allow-missing-repository", "--out", probe], { cwd: PROBE });
  packaged = { vsix: join(EXTENSION, `${name}-${version}.vsix`), probe };
  return packaged;
}

/**
 * Opens `workspace` in code-server with both extensions installed and the probe following `plan`
 * (read by the probe from PI_PROBE_PLAN), and waits for the probe's report. `work` holds
 * code-server's HOME, user data and extensions.
 */
export async function openWorkbench(work: string, workspace: string, plan: object): Promise<Workbench> {
  const codeServer = join(TOOLS, "code-server", "node_modules", ".bin", "code-server");
  const playwrightPath = join(TOOLS, "playwright", "node_modules", "playwright-core");
  const node24 = existsSync(join(TOOLS, "node24", "node_modules"))
    ? readdirSync(join(TOOLS, "node24", "node_modules")).find((name) => name.startsWith("node-linux-"))
    : undefined;
  // get-code-server.sh writes its stamp last: without it the install was cut short.
  const complete = existsSync(TOOLS) && readdirSync(TOOLS).some((name) => name.startsWith("complete-"));
  if (!complete || !existsSync(codeServer) || !existsSync(playwrightPath) || !node24) {
    throw new Error(`code-server, Node.js 24 or playwright-core is not installed in ${TOOLS}: run ${INSTALL_TOOLS}.`);
  }
  requireEditor("chromium", "chromium");
  const { vsix, probe } = packages(work);

  const home = join(work, "home");
  const userData = join(work, "user-data");
  mkdirSync(join(userData, "User"), { recursive: true });
  writeFileSync(
    join(userData, "User", "settings.json"),
    JSON.stringify({
      "chat.disableAIFeatures": true,
      "security.workspace.trust.enabled": false,
      "workbench.startupEditor": "none",
      "workbench.tips.enabled": false,
      "telemetry.telemetryLevel": "off",
      "extensions.autoUpdate": false,
      "extensions.autoCheckUpdates": false,
      "update.mode": "none",
      // The browser build saves after a second by default (desktop VS Code does not): off, as on
      // the desktop, so that the test sees what the extension itself writes, which is nothing.
      "files.autoSave": "off",
      "files.refactoring.autoSave": false,
    }),
  );
  const port = await freePort();
  const config = join(work, "code-server.yaml");
  writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const reportPath = join(work, "report.json");
  const planPath = join(work, "plan.json");
  writeFileSync(planPath, JSON.stringify(plan));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${join(TOOLS, "node24", "node_modules", node24, "bin")}${delimiter}${process.env.PATH ?? ""}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    PI_PROBE_PLAN: planPath,
    PI_PROBE_REPORT: reportPath,
  };
  const common = ["--config", config, "--user-data-dir", userData, "--extensions-dir", join(work, "extensions")];
  run(codeServer, [...common, "--install-extension", vsix, "--install-extension", probe], { env });

  const server: ChildProcess = spawn(
    codeServer,
    [
      ...common,
      ...(process.env.PI_CODE_SERVER_LOG ? ["--log", process.env.PI_CODE_SERVER_LOG] : []),
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--disable-getting-started-override",
      workspace,
    ],
    { env, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  let serverLog = "";
  const keep = (chunk: Buffer) => {
    serverLog = (serverLog + chunk.toString("utf8")).slice(-20_000);
  };
  server.stdout!.on("data", keep);
  server.stderr!.on("data", keep);
  const log = () => serverLog.slice(-3000);
  // code-server starts its own processes (the extension host, the language server): end the
  // group, even when code-server itself has already exited.
  if (server.pid !== undefined) running.add(server.pid);
  const kill = () => {
    if (server.pid !== undefined) killGroup(server.pid);
  };

  type Browser = { newPage(options: object): Promise<Page>; close(): Promise<void> };
  let browser: Browser | undefined;
  try {
    await until(
      () => `code-server on 127.0.0.1:${port} (its log: ${log()})`,
      START_TIMEOUT_MS,
      () => healthy(port),
    );
    const { chromium } = require(playwrightPath) as { chromium: { launch(options: object): Promise<Browser> } };
    browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`, { waitUntil: "domcontentloaded", timeout: LOAD_TIMEOUT_MS });
    const text = await until(
      () => `the probe's report (code-server's log: ${log()})`,
      REPORT_TIMEOUT_MS,
      () => existsSync(reportPath) && readFileSync(reportPath, "utf8"),
    );
    const opened = browser;
    return {
      report: JSON.parse(text) as unknown,
      page,
      log,
      close: async () => {
        try {
          await opened.close();
        } finally {
          kill();
        }
      },
    };
  } catch (error) {
    try {
      await browser?.close();
    } finally {
      kill();
    }
    throw error;
  }
}

/** Keeps a screenshot of the page in LOGS, and returns its path. */
export async function keepScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(LOGS, { recursive: true });
  const path = join(LOGS, name);
  await page.screenshot({ path });
  return path;
}
