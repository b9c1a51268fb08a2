// The request bodies Pi 1.6 sends for a resumed session, captured without HTTP: Pi's own code, in
// this process (run it on Node >= 22.19), from the session file to the body an API's client posts.
//
//   SessionManager.open(copy) ─► buildSessionContext() ─► + the user's next prompt ─► convertToLlm
//   (pi-coding-agent) ─► streamSimple of the API's module (pi-ai, which runs transformMessages and
//   the API's own conversion) ─► onPayload(body): captured, then a throw, so nothing is sent.
//
// The same approach as test/parity/generate.mjs's `realPayload` (Gemini), for the three APIs the
// wire table covers. The wire harness (test/pi/wire/, branch `wire`) records the same bodies over
// real HTTP from a fake provider; test/pi/wire/verdicts.mjs reads those when they exist, and these
// otherwise.
//
// Usage (verdicts.mjs runs it): NODE22 capture.mjs PI16_PACKAGE_DIR MODELS_JSON FIXTURE... prints one
// JSON line per fixture and API: {fixture, pi, api, model, outcome, error?, requests: [{path, body}]}.
// `outcome` is "sent" (a body was built), or "threw" (Pi's pipeline threw before a body existed).
// Files Pi refuses to open, or whose context it cannot build, are not run here: verdicts.mjs takes
// their outcome from test/parity/expected (a parent cycle costs Pi 1.6 ~2.4 GB before it throws).

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";

/** The prompt the user types on resuming: Pi appends it to the context before converting it. */
export const NEXT_PROMPT = "Continue.";
/** A fixed time for the prompt and Pi's synthetic "No result provided" results, so that two runs write the same bytes. */
const FIXED_NOW = Date.UTC(2026, 3, 1, 12, 0, 0);

/** Pi's four built-in tools as its agent declares them (names and the parameters the model must give). */
const TOOLS = [
  ["read", "Read a file.", { path: { type: "string" } }, ["path"]],
  ["bash", "Run a shell command.", { command: { type: "string" } }, ["command"]],
  ["edit", "Replace text in a file.", { path: { type: "string" }, oldText: { type: "string" }, newText: { type: "string" } }, ["path", "oldText", "newText"]],
  ["write", "Write a file.", { path: { type: "string" }, content: { type: "string" } }, ["path", "content"]],
].map(([name, description, properties, required]) => ({ name, description, parameters: { type: "object", properties, required } }));

/** The endpoint each API's client posts to, as the fake provider records it. */
const ENDPOINT = { "anthropic-messages": "/v1/messages", "openai-completions": "/chat/completions", "openai-responses": "/responses" };

/** pi-ai as Pi 1.6 loads it: nested in the package (an npm alias install) or hoisted next to it (test/pi/get-pi.sh). */
function piAiDist(pkg) {
  for (const dir of [path.join(pkg, "node_modules"), path.dirname(pkg)]) {
    const dist = path.join(dir, "@earendil-works", "pi-ai", "dist");
    if (fs.existsSync(dist)) return dist;
  }
  throw new Error(`pi-ai not found next to ${pkg}`);
}

async function load(pkg) {
  const imp = (p) => import(pathToFileURL(p).href);
  const ai = piAiDist(pkg);
  const { SessionManager } = await imp(path.join(pkg, "dist", "core", "session-manager.js"));
  const { convertToLlm } = await imp(path.join(pkg, "dist", "core", "messages.js"));
  const { getModel } = await imp(path.join(ai, "compat.js"));
  const { createInitialSystemMessage } = await imp(path.join(ai, "utils", "transcript.js"));
  const streams = {};
  for (const api of Object.keys(ENDPOINT)) streams[api] = (await imp(path.join(ai, "api", `${api}.js`))).streamSimple;
  return { SessionManager, convertToLlm, getModel, createInitialSystemMessage, streams };
}

/**
 * The messages Pi 1.6's agent sends: the session's own system messages carry its prompt and tools;
 * a session without any (written before 1.x, or by hand) gets the leading system message pi-ai
 * builds from the agent's prompt and tools (`createInitialSystemMessage`), so that the body
 * declares the tools its tool calls name, as Pi's always does.
 */
function withSystem(pi, messages) {
  if (messages.some((m) => m?.role === "system")) return messages;
  return [pi.createInitialSystemMessage("You are Pi, a coding agent.", TOOLS), ...messages];
}

/** The body `streamSimple` hands to `onPayload` for `messages`, or the error Pi's pipeline threw first. */
async function capture(pi, api, model, messages) {
  let body;
  const events = pi.streams[api](
    model,
    { messages },
    {
      apiKey: "not-a-key",
      onPayload: (params) => {
        body = params;
        throw new Error("payload captured; not sent");
      },
    },
  );
  const result = await events.result();
  if (body !== undefined) return { outcome: "sent", requests: [{ path: ENDPOINT[api], body }] };
  return { outcome: "threw", error: String(result?.errorMessage ?? "no body was built"), requests: [] };
}

async function main() {
  const [pkg, modelsJson, ...fixtures] = process.argv.slice(2);
  const models = JSON.parse(modelsJson);
  const pi = await load(pkg);
  const realNow = Date.now;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "wire-capture-"));
  try {
    for (const fixture of fixtures) {
      const copy = path.join(work, path.basename(fixture));
      fs.copyFileSync(fixture, copy);
      let context;
      try {
        context = pi.SessionManager.open(copy, work).buildSessionContext();
      } catch (e) {
        // Only a wire case gets here: verdicts.mjs runs no corpus session Pi is recorded to refuse.
        for (const [api, [provider, id]] of Object.entries(models)) {
          const row = {
            fixture: path.basename(fixture),
            pi: "1.6.0",
            api,
            model: `${provider}/${id}`,
            outcome: "open-failed",
            error: String(e?.message ?? e),
            requests: [],
          };
          fs.writeSync(1, `${JSON.stringify(row)}\n`);
        }
        continue;
      }
      const prompt = { role: "user", content: [{ type: "text", text: NEXT_PROMPT }], timestamp: FIXED_NOW };
      for (const [api, [provider, id]] of Object.entries(models)) {
        const model = pi.getModel(provider, id);
        const row = { fixture: path.basename(fixture), pi: "1.6.0", api, model: `${provider}/${id}` };
        Date.now = () => FIXED_NOW;
        try {
          Object.assign(row, await capture(pi, api, model, withSystem(pi, pi.convertToLlm([...context.messages, prompt]))));
        } catch (e) {
          Object.assign(row, { outcome: "threw", error: `${e?.constructor?.name ?? typeof e}: ${e?.message ?? String(e)}`, requests: [] });
        } finally {
          Date.now = realNow;
        }
        fs.writeSync(1, `${JSON.stringify(row)}\n`);
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

await main();
