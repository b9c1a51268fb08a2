// The table of cases for "where does Pi keep its sessions": each is a Pi process (home, cwd,
// environment, --session-dir) with its two settings files. test/sessions/oracle.mjs runs the real
// Pi's own functions on every case and records the answers in expected/where.json;
// test/sessions/where.test.ts checks server/src/core/sessionLocation.ts against them.
//
// "<R>" stands for a temporary folder (the oracle creates it; the test uses any absolute path).
// Settings are file texts (undefined: no file).

export const WHERE_CASES = [
  { name: "default", cwd: "<R>/p" },
  { name: "cwd with a space and a colon", cwd: "<R>/my proj:v2" },
  { name: "cwd is the root folder", cwd: "/" },
  { name: "unicode cwd", cwd: "<R>/проект/ünï" },
  { name: "agent dir ~/custom-agent", cwd: "<R>/p", env: { PI_CODING_AGENT_DIR: "~/custom-agent" } },
  { name: "agent dir ~", cwd: "<R>/p", env: { PI_CODING_AGENT_DIR: "~" } },
  { name: "agent dir relative", cwd: "<R>/p", env: { PI_CODING_AGENT_DIR: "rel-agent" } },
  { name: "agent dir with a trailing slash", cwd: "<R>/p", env: { PI_CODING_AGENT_DIR: "<R>/agent/" } },
  { name: "agent dir ~//double", cwd: "<R>/p", env: { PI_CODING_AGENT_DIR: "~//double" } },
  { name: "agent dir file URL", cwd: "<R>/p", env: { PI_CODING_AGENT_DIR: "file://<R>/url%20agent" } },
  { name: "session dir from the environment", cwd: "<R>/p", env: { PI_CODING_AGENT_SESSION_DIR: "~/env-sessions" } },
  { name: "empty session dir in the environment", cwd: "<R>/p", env: { PI_CODING_AGENT_SESSION_DIR: "" } },
  { name: "relative session dir in the environment", cwd: "<R>/p", env: { PI_CODING_AGENT_SESSION_DIR: "env-rel" } },
  { name: "--session-dir", cwd: "<R>/p", flag: "<R>/flag-sessions" },
  { name: "empty --session-dir", cwd: "<R>/p", flag: "", env: { PI_CODING_AGENT_SESSION_DIR: "<R>/env-sessions" } },
  { name: "--session-dir beats the environment", cwd: "<R>/p", flag: "<R>/flag-sessions", env: { PI_CODING_AGENT_SESSION_DIR: "<R>/env-sessions" } },
  { name: "--session-dir ~/x", cwd: "<R>/p", flag: "~/tilde-flag" },
  { name: "global settings", cwd: "<R>/p", settings: { global: '{"sessionDir":"~/from-global"}' } },
  { name: "project settings beat global", cwd: "<R>/p", settings: { global: '{"sessionDir":"~/from-global"}', project: '{"sessionDir":"<R>/from-project"}' } },
  { name: "project null clears global", cwd: "<R>/p", settings: { global: '{"sessionDir":"~/from-global"}', project: '{"sessionDir":null}' } },
  { name: "project empty string", cwd: "<R>/p", settings: { global: '{"sessionDir":"~/from-global"}', project: '{"sessionDir":""}' } },
  { name: "invalid global, valid project", cwd: "<R>/p", settings: { global: "{not json", project: '{"sessionDir":"<R>/from-project"}' } },
  { name: "settings with a byte order mark", cwd: "<R>/p", settings: { global: '\uFEFF{"sessionDir":"<R>/bom-sessions"}' } },
  { name: "relative sessionDir", cwd: "<R>/p", settings: { project: '{"sessionDir":"sessions-here"}' } },
  { name: "sessionDir ~", cwd: "<R>/p", settings: { global: '{"sessionDir":"~"}' } },
  { name: "sessionDir file URL", cwd: "<R>/p", settings: { global: '{"sessionDir":"file://<R>/furl"}' } },
  { name: "sessionDir is a number", cwd: "<R>/p", settings: { global: '{"sessionDir":42}' } },
  { name: "settings file is an array", cwd: "<R>/p", settings: { project: "[1]" } },
  { name: "settings file is null", cwd: "<R>/p", settings: { global: "null", project: '{"sessionDir":"<R>/from-project"}' } },
  { name: "empty settings file", cwd: "<R>/p", settings: { global: "" } },
  {
    name: "environment beats settings",
    cwd: "<R>/p",
    env: { PI_CODING_AGENT_SESSION_DIR: "<R>/env-sessions" },
    settings: { global: '{"sessionDir":"~/from-global"}' },
  },
  { name: "custom folder that is the default folder", cwd: "<R>/p", settings: { global: '{"sessionDir":"<R>/h/.pi/agent/sessions/--<RENC>-p--"}' } },
  {
    name: "settings under a custom agent dir",
    cwd: "<R>/p",
    env: { PI_CODING_AGENT_DIR: "<R>/agent2" },
    settings: { global: '{"sessionDir":"<R>/agent2-sessions"}' },
  },
];

/** Replaces "<R>" (and "<RENC>", the root as Pi encodes it in a folder name) in a case's strings. */
export function instantiate(value, root) {
  const enc = root.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-");
  if (typeof value === "string") return value.replaceAll("<RENC>", enc).replaceAll("<R>", root);
  if (Array.isArray(value)) return value.map((v) => instantiate(v, root));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, instantiate(v, root)]));
  return value;
}
