/**
 * The wire harness: runs the real Pi 1.6 on a copy of a parity session against the fake provider of
 * `fakeProvider.mjs` and returns what Pi sent. Pi gets a private HOME and agent dir
 * (`PI_CODING_AGENT_DIR`) in a temporary folder, no tools, extensions, skills, templates or context
 * files, and a proxy on a closed local port for every host but 127.0.0.1, so it never reaches the
 * network and reads nothing of the machine's own configuration.
 */

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeProvider } from "./fakeProvider.mjs";

export const APIS = ["anthropic-messages", "openai-completions", "openai-responses"];

/** The prompt Pi appends as the new user message; `context --stage request` defaults to it too. */
export const WIRE_PROMPT = "Say ok.";

/**
 * The model Pi is given for an API the session's own model does not speak: a custom provider of
 * `models.json` with one model, Pi's defaults otherwise. `context --stage request --api` builds its
 * body for the same stand-in (`STAND_IN_MODELS` in server/src/core/pi/provider/wire/).
 */
export const STAND_IN = {
  "anthropic-messages": { provider: "stand-in-anthropic", id: "stand-in", path: "" },
  "openai-completions": { provider: "stand-in-completions", id: "stand-in", path: "/v1" },
  "openai-responses": { provider: "stand-in-responses", id: "stand-in", path: "/v1" },
};

/** Built-in providers whose base URL is moved to the fake server, so a session resumes its own model. */
const BUILT_IN = { anthropic: "", openai: "/v1", deepseek: "" };

/** A run longer than this is killed (Pi 1.6 takes 5–15 s to throw on a parent cycle). */
const TIMEOUT_MS = 90_000;

/** Bodies larger than this are recorded as a digest plus the body with long strings cut. */
const LARGE_BODY = 64 * 1024;
const CUT_STRING = 256;

function standInModel(id) {
  return {
    id,
    name: id,
    reasoning: true,
    input: ["text", "image"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 200000,
    maxTokens: 16384,
  };
}

function modelsJson(url) {
  const providers = {};
  for (const [api, m] of Object.entries(STAND_IN)) providers[m.provider] = { baseUrl: url + m.path, api, apiKey: "wire-key", models: [standInModel(m.id)] };
  for (const [name, path] of Object.entries(BUILT_IN)) providers[name] = { baseUrl: url + path, apiKey: "wire-key" };
  return { providers };
}

/**
 * The copy Pi resumes: the fixture's bytes, except that the header's `cwd` names the run's own
 * folder, because Pi's print mode refuses a session whose folder does not exist (the corpus was
 * written in /home/dev/project). Only the first occurrence in the first header line is replaced.
 */
function copyWithCwd(fixtureText, cwd) {
  const lines = fixtureText.split("\n");
  for (let i = 0; i < lines.length; i++) {
    let value;
    try {
      value = JSON.parse(lines[i]);
    } catch {
      continue;
    }
    if (value === null || typeof value !== "object" || value.type !== "session") continue;
    if (typeof value.cwd === "string") lines[i] = lines[i].replace(`"cwd":${JSON.stringify(value.cwd)}`, `"cwd":${JSON.stringify(cwd)}`);
    break;
  }
  return lines.join("\n");
}

/** Replaces the run's folders in every string, so that two runs record the same bytes. */
function normalise(value, folders) {
  if (typeof value === "string") {
    let text = value;
    for (const [from, to] of folders) text = text.split(from).join(to);
    return text;
  }
  if (Array.isArray(value)) return value.map((item) => normalise(item, folders));
  if (value !== null && typeof value === "object") {
    const out = {};
    for (const [key, item] of Object.entries(value)) out[key] = normalise(item, folders);
    return out;
  }
  return value;
}

function cutStrings(value) {
  if (typeof value === "string") return value.length > CUT_STRING ? `${value.slice(0, CUT_STRING)}…[cut: ${value.length} chars]` : value;
  if (Array.isArray(value)) return value.map(cutStrings);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutStrings(v)]));
  return value;
}

const sha256 = (text) => createHash("sha256").update(text).digest("hex");

/**
 * The part of a body that `context --stage request` prints: `model` and the conversation, without
 * the system and developer messages of its list (the rule of `withoutVolatile` in
 * server/src/core/pi/provider/wire/volatile.ts), in the body's own key order.
 */
function conversationOf(body) {
  const out = {};
  for (const [key, value] of Object.entries(body ?? {})) {
    if (key === "model" || key === "messages" || key === "input") out[key] = value;
  }
  for (const key of ["messages", "input"]) {
    if (Array.isArray(out[key])) out[key] = out[key].filter((item) => item?.role !== "system" && item?.role !== "developer");
  }
  return out;
}

/**
 * One recorded request: its path and body. A large body is recorded as its size and digest, the
 * digest and size of its conversation part (which the replay test compares), and the body with
 * long strings cut.
 */
function recordRequest(request, folders) {
  const body = normalise(request.body, folders);
  const text = JSON.stringify(body);
  const bytes = Buffer.byteLength(text);
  if (bytes <= LARGE_BODY) return { path: request.path, body };
  const conversation = JSON.stringify(conversationOf(body));
  return {
    path: request.path,
    bodyBytes: bytes,
    bodySha256: sha256(text),
    conversationBytes: Buffer.byteLength(conversation),
    conversationSha256: sha256(conversation),
    bodyCut: true,
    body: cutStrings(body),
  };
}

function runProcess(command, args, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      if (stdout.length < 1e6) stdout += d;
    });
    child.stderr.on("data", (d) => {
      if (stderr.length < 1e6) stderr += d;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      process.kill(-child.pid, "SIGKILL");
    }, TIMEOUT_MS);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

/** The first lines of what Pi printed on failure, without the run's folders. */
function errorText(result, folders) {
  if (result.timedOut) return `no answer within ${TIMEOUT_MS / 1000} s (killed)`;
  const text = normalise(result.stderr.trim() || result.stdout.trim() || `exit ${result.code ?? result.signal}`, folders);
  // A crash prints the source line and a caret before the error itself: keep from the error on.
  const lines = text.split("\n").filter((line) => !/^\s+at /.test(line));
  const first = lines.findIndex((line) => /^([A-Z][A-Za-z]*)?Error\b/.test(line));
  return lines
    .slice(Math.max(first, 0), Math.max(first, 0) + 4)
    .join("\n")
    .slice(0, 800);
}

/** The id of the header Pi left in the copy, when the fixture does not hold it (Pi wrote a fresh header). */
function inventedSessionId(copy, fixtureText) {
  let first;
  try {
    first = JSON.parse(readFileSync(copy, "utf8").split("\n", 1)[0]);
  } catch {
    return undefined;
  }
  const id = first?.type === "session" ? first.id : undefined;
  return typeof id === "string" && id.length >= 8 && !fixtureText.includes(id) ? id : undefined;
}

/**
 * Runs Pi on one fixture for one API. `ownModel` is the session's own model (`provider/id`) when
 * it speaks `api` and is in Pi's catalogue: Pi then resumes with it; otherwise Pi is given the
 * stand-in model with `--model`. With `validate`, the fake provider refuses what the API documents
 * it refuses (validate.mjs); `stdout` and `stderr` then say what Pi made of the answer.
 */
export async function runWire({ pi, fixturePath, fixture, api, ownModel, validate = false }) {
  const server = await startFakeProvider({ validate });
  const tmp = mkdtempSync(join(tmpdir(), "pi-wire-"));
  try {
    const home = join(tmp, "home");
    const agent = join(tmp, "agent");
    const cwd = join(tmp, "cwd");
    for (const dir of [home, agent, cwd]) mkdirSync(dir, { recursive: true });
    writeFileSync(join(agent, "models.json"), JSON.stringify(modelsJson(server.url), null, 2));
    const copy = join(tmp, "session.jsonl");
    writeFileSync(copy, copyWithCwd(readFileSync(fixturePath, "utf8"), cwd));
    const standIn = STAND_IN[api];
    const model = ownModel ?? `${standIn.provider}/${standIn.id}`;
    const modelArgs = ownModel === undefined ? ["--model", model] : [];
    const args = [
      pi.cli,
      "--session",
      copy,
      "-p",
      "--no-tools",
      "--no-extensions",
      "--no-skills",
      "--no-prompt-templates",
      "--no-context-files",
      "--no-themes",
      "--offline",
      ...modelArgs,
      WIRE_PROMPT,
    ];
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      PI_CODING_AGENT_DIR: agent,
      PI_OFFLINE: "1",
      PI_SKIP_VERSION_CHECK: "1",
      PI_TELEMETRY: "0",
      TZ: "UTC",
      LANG: "C",
      HTTP_PROXY: "http://127.0.0.1:9",
      HTTPS_PROXY: "http://127.0.0.1:9",
      NO_PROXY: "127.0.0.1",
    };
    const result = await runProcess(pi.node, args, { cwd, env });
    const folders = [
      [tmp, "<TMP>"],
      [pi.packageDir, "<PI>"],
    ];
    // A session id Pi made up (a fresh header for an empty file) is random: it is written as a name.
    const invented = inventedSessionId(copy, readFileSync(fixturePath, "utf8"));
    if (invented !== undefined) folders.push([invented, "<NEW-SESSION-ID>"]);
    const requests = server.requests.map((request) => {
      const recorded = recordRequest(request, folders);
      return request.refused ? { ...recorded, refused: request.refused } : recorded;
    });
    const record = { fixture, pi: "1.6.0", api, model, outcome: requests.length > 0 ? "sent" : "not-sent" };
    if (requests.length === 0 || result.code !== 0) record.error = errorText(result, folders);
    record.requests = requests;
    return record;
  } finally {
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}
