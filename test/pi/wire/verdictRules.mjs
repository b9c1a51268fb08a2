// The two verdicts of a row of the wire table, and whether they agree: the provider's (validate.mjs
// on the body Pi sends) and ours (pi-session-lsp's diagnostics of the session, for the model the
// request goes to). verdicts.mjs writes the table with them; test/parity/wireVerdicts.test.ts replays
// it. The core is passed in (`core`), so that the script runs the built out/ and the test the sources.

import * as fs from "node:fs";
import * as path from "node:path";
import { GENERATED_FAULTS } from "../../parity/request-faults.mjs";
import { validateRequest } from "./validate.mjs";

/**
 * The model capture.mjs sends a session to for each API (the wire cases, which the wire harness does
 * not run; its recordings name their own model): a model of pi-ai 1.6's catalogue that takes images.
 */
export const MODELS = {
  "anthropic-messages": ["anthropic", "claude-sonnet-4-5"],
  "openai-completions": ["openrouter", "openai/gpt-4o"],
  "openai-responses": ["openai", "gpt-5.1"],
};

export const APIS = Object.keys(MODELS);

/** A fixture's name without `.jsonl`, as the expectation files name it. */
export const stem = (fixture) => fixture.replace(/\.jsonl$/, "");

/**
 * The sessions of the table: the parity corpus (test/parity/fixtures and the faults request-faults.mjs
 * generates, too large to commit), then the known bricking cases the corpus lacks, for the rules of
 * the three APIs (test/parity/wire-cases, README "Wire verdicts").
 */
export function corpus(parity) {
  const list = (dir) =>
    fs
      .readdirSync(path.join(parity, dir))
      .filter((f) => f.endsWith(".jsonl"))
      .sort();
  const generated = GENERATED_FAULTS.map(([name]) => `${name}.jsonl`);
  return [...[...list("fixtures"), ...generated].sort(), ...list("wire-cases")];
}

/** Where a committed session of the table lies. */
export function sessionFile(parity, fixture) {
  return path.join(parity, fixture.startsWith("case-") ? "wire-cases" : "fixtures", fixture);
}

/** A session's text: its file, or a generated fault built again (the same bytes every time). */
export function sessionText(parity, fixture) {
  const make = GENERATED_FAULTS.find(([name]) => `${name}.jsonl` === fixture)?.[2];
  return make ? make() : fs.readFileSync(sessionFile(parity, fixture), "utf8");
}

/**
 * The model a row's request goes to, as our diagnostics read it: the catalogue's, or for a model
 * the catalogue lacks (the wire harness's stand-ins, custom providers of `models.json`) what the
 * harness's `models.json` gives them (harness.mjs `standInModel`: images, reasoning, a 200,000-token
 * window), with the API of the recording.
 */
export function modelFor(core, api, name) {
  const at = name.indexOf("/");
  const [provider, id] = [name.slice(0, at), name.slice(at + 1)];
  return core.findModel("1.6", provider, id) ?? { provider, id, api, input: ["text", "image"], contextWindow: 200000, maxTokens: 16384, reasoning: true };
}

/**
 * Pi 1.6.0's recorded outcome of opening the fixture and building its context
 * (test/parity/expected/STEM.1.6.0.json) when Pi sends nothing: it refuses the file, or its
 * context build throws or hangs. Undefined when Pi builds a context.
 */
export function recordedFailure(parity, fixture) {
  const file = path.join(parity, "expected", `${stem(fixture)}.1.6.0.json`);
  if (!fs.existsSync(file)) return undefined; // A wire case: capture.mjs records what Pi does with it.
  const e = JSON.parse(fs.readFileSync(file, "utf8"));
  if (e.open !== "ok" && e.open !== "rewrote") return { outcome: "open-failed", error: e.error ?? e.open };
  if (e.contextError || e.contextHung) return { outcome: "context-failed", error: e.contextError ?? "buildSessionContext() did not return" };
  return undefined;
}

/**
 * The record of what Pi did with `fixture` for `api`, as the table was made from it: the wire
 * harness's recording over HTTP (expected/wire/STEM.API.json), Pi's recorded failure to open or
 * build the context, or the body captured without HTTP (expected/wire-captured/STEM.API.json).
 * `source` says which; undefined when none exists.
 */
export function storedRecord(parity, fixture, api) {
  const read = (dir) => {
    const file = path.join(parity, "expected", dir, `${stem(fixture)}.${api}.json`);
    return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : undefined;
  };
  const failed = recordedFailure(parity, fixture);
  const wire = read("wire");
  // The harness says "not-sent"; which step failed is the parity record's (else Pi threw building the body).
  if (wire) return { ...wire, outcome: wire.outcome === "not-sent" ? (failed?.outcome ?? "threw") : wire.outcome, source: "wire" };
  if (failed) return { fixture, pi: "1.6.0", api, model: MODELS[api].join("/"), ...failed, requests: [], source: "recorded" };
  const captured = read("wire-captured");
  return captured ? { ...captured, source: "capture" } : undefined;
}

/**
 * The provider's rule and the code of ours that says the same fault: a row whose two verdicts both
 * refuse agrees only when our code is the one for the provider's rule.
 */
export const RULE_CODES = {
  "anthropic-tool-result-without-tool-use": ["orphaned-tool-result"],
  "anthropic-tool-use-without-tool-result": ["orphaned-tool-result"],
  "anthropic-image-count": ["too-many-images"],
  "anthropic-image-dimensions": ["image-too-large"],
  "anthropic-image-dimensions-many": ["image-too-large"],
  "anthropic-image-bytes": ["image-too-large"],
  "anthropic-request-size": ["request-too-large"],
  "openai-tool-without-tool-calls": ["orphaned-tool-result"],
  "openai-tool-calls-without-tool": ["orphaned-tool-result"],
  "openai-image-count": ["too-many-images"],
  "openai-image-bytes": ["image-too-large"],
  "openai-image-bytes-per-request": ["request-too-large"],
  "responses-output-without-call": ["orphaned-tool-result"],
  "responses-call-without-output": ["orphaned-tool-result"],
  "responses-reasoning-without-following": ["invalid-reasoning-item"],
  "responses-reasoning-not-stored": ["invalid-reasoning-item"],
};

/**
 * The provider's verdict on what Pi did with the session for one API: `refused RULE` (the provider
 * answers an error), `accepted`, or `not sent (WHY)` when Pi sends nothing: it refuses to open the
 * file, cannot build its context, or its pipeline throws before a body exists.
 */
export function providerVerdict(record) {
  if (record.outcome === "sent") {
    // A body recorded cut (the 22 MB fault) is validated as recorded, its size as sent.
    const request = record.requests[0];
    const v = validateRequest(record.api, request.body, { bytes: request.bodyBytes });
    return v.ok ? { verdict: "accepted", rule: "" } : { verdict: "refused", rule: v.rule, message: v.message };
  }
  return { verdict: "not sent", rule: record.outcome };
}

/** The codes of the provider request's diagnostics (features/requestDiagnostics.ts), which `ourVerdict` makes for the row's model. */
export const REQUEST_FAMILY = new Set([
  "orphaned-tool-result",
  "request-throws",
  "invalid-reasoning-item",
  "too-many-images",
  "image-too-large",
  "request-too-large",
  "tool-call-without-result",
  "empty-user-message",
  "context-over-window",
  "image-not-sent",
  "compaction-keeps-tool-result",
]);

/**
 * Our verdict for the session sent to `model` (a catalogue model): every diagnostic `check` gives,
 * with the provider request's diagnostics made for that model instead of the one Pi resumes with.
 * `refuses file CODE` (an error that says Pi 1.x does not open it), `context fails CODE` (the error
 * on the entry where the core's context build fails, as Pi's does), `fails CODE` (an error that
 * says its next request fails: the provider refuses it or Pi throws first), or `ok`.
 */
export function ourVerdict(core, text, model) {
  const doc = new core.SessionDocument("file:///wire.jsonl", "jsonl", 1, text);
  const structural = core.computeDiagnostics(doc).filter((d) => !REQUEST_FAMILY.has(String(d.code)));
  const all = [...structural, ...core.requestDiagnosticsFor(doc, model)];
  const errors = all.filter((d) => (d.severity ?? 1) === 1);
  // `empty-file` is Pi 1.x's refusal for a file of whitespace, and a fresh header for a 0-byte one (codes.ts).
  const refused = errors.find((d) => core.REFUSED_CODES.has(String(d.code)) || (d.code === "empty-file" && text !== ""));
  if (refused) return { verdict: "refuses file", code: String(refused.code) };
  const built = doc.analysis.headerState === "ok" ? core.activeContext(doc.analysis) : { ok: true };
  if (!built.ok) {
    const line = built.failure.entry?.line;
    const blamed = errors.find((d) => d.range.start.line === line) ?? errors[0];
    return { verdict: "context fails", code: String(blamed?.code ?? "") };
  }
  // Pi throws before a request exists: whatever else the request holds, nothing reaches the provider.
  const fails = errors.find((d) => d.code === "request-throws") ?? errors.find((d) => core.REQUEST_FAILS_CODES.has(String(d.code)));
  if (fails) return { verdict: "fails", code: String(fails.code) };
  return { verdict: "ok", code: "" };
}

/**
 * Rows whose verdicts differ for a reason that is not a fault of our rules, each with the reason
 * (key: fixture stem and API). Every other row must agree.
 */
export const ALLOWED = {};

/** Whether the two verdicts say the same: the request fails (for the same reason) or goes through. */
export function agree(provider, ours) {
  switch (provider.verdict) {
    case "accepted":
      return ours.verdict === "ok";
    case "refused":
      return ours.verdict === "fails" && (RULE_CODES[provider.rule] ?? []).includes(ours.code);
    default:
      if (provider.rule === "open-failed") return ours.verdict === "refuses file";
      if (provider.rule === "context-failed") return ours.verdict === "context fails";
      return ours.verdict === "fails" && ours.code === "request-throws";
  }
}
