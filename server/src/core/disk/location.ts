/**
 * Where Pi keeps its sessions, decided exactly as Pi decides it, for Pi 1.x and Pi 0.73/0.74.
 *
 * Pi's startup (`main.ts`) picks the session folder from, in order: `--session-dir`,
 * `$PI_CODING_AGENT_SESSION_DIR`, `sessionDir` in the merged settings (global
 * `<agentDir>/settings.json` under project `<cwd>/.pi/settings.json`), and otherwise
 * `<agentDir>/sessions/--<encoded cwd>--/`, with `agentDir` from `$PI_CODING_AGENT_DIR` or
 * `~/.pi/agent`. The versions differ in the details, each reproduced here:
 *
 * - 1.x passes every path through `normalizePath` (`~` and `~/…` expanded with `path.join`,
 *   `file://` URLs converted) and resolves the cwd and the agent folder before encoding; an empty
 *   value anywhere falls through to the next source. Its `list(cwd, dir)` keeps only the sessions
 *   whose header `cwd` is this project when the folder is not the project's default one, and its
 *   `listAll(dir)` lists that one folder instead of every project.
 * - 0.74 expands `~` in the environment variable by string concatenation and in settings with
 *   `path.join`, takes `--session-dir` as typed, encodes the cwd unresolved, and keeps an empty
 *   `--session-dir` or `sessionDir` (so it lists nothing, and new files land in the process cwd);
 *   `listAll()` always lists every project under `<agentDir>/sessions`.
 *
 * The functions are pure: the node layer (`server/src/io/sessionStore.ts`) supplies the home
 * folder, the process cwd, the environment and the settings files' text, and reads the folders
 * this module names.
 */

import { documentPath, fileUrlToPath, isAbsolute, join, resolveFrom } from "../base/posixPath";

export type PiVersion = "1.x" | "0.74";

/** What Pi's process would see. */
export interface PiProcess {
  /** `os.homedir()`: `$HOME` on POSIX. */
  home: string;
  /** `process.cwd()`: an absolute physical path (the shell's `cd` resolves symbolic links for it). */
  cwd: string;
  /** `$PI_CODING_AGENT_DIR`, undefined when unset. */
  agentDirEnv?: string | undefined;
  /** `$PI_CODING_AGENT_SESSION_DIR`, undefined when unset. */
  sessionDirEnv?: string | undefined;
  /** The value of `--session-dir` on Pi's command line, undefined when not given. */
  sessionDirFlag?: string | undefined;
}

/** One settings file as read: its text, or why there is none. */
export interface SettingsText {
  path: string;
  /** The file's text; undefined when the file does not exist. */
  text: string | undefined;
  /** Why the file could not be read (a folder, no permission); Pi then uses no settings from it. */
  readError?: string | undefined;
}

export interface SettingsReport {
  scope: "global" | "project";
  path: string;
  state: "absent" | "read" | "unreadable" | "invalid";
  /** The error Pi met reading or parsing it (it then ignores the file). */
  error?: string;
  /** The file's `sessionDir`, raw, when it has one. */
  sessionDir?: unknown;
}

export type SessionDirSource = "--session-dir" | "PI_CODING_AGENT_SESSION_DIR" | "settings" | "default";

export interface SessionLocation {
  version: PiVersion;
  /** `getAgentDir()`, absolute. */
  agentDir: string;
  /** `getSessionsDir()`: `<agentDir>/sessions`, absolute; every project's folder is inside it. */
  sessionsRoot: string;
  /** The project's default folder, `<agentDir>/sessions/--<encoded cwd>--`, absolute. */
  projectDir: string;
  /** Where Pi's session folder setting came from. */
  source: SessionDirSource;
  /** For `settings`: which file supplied the value that won. */
  settingsScope?: "global" | "project";
  /** The folder `list(cwd)` reads and new sessions go to, absolute; "" when Pi 0.74 was given an empty folder (it lists nothing). */
  currentDir: string;
  /** Where Pi writes a new session: `currentDir`, or Pi 0.74's process cwd when its folder is "" (`join("", file)`). */
  newSessionDir: string;
  /** Pi 1.x only: `list` keeps just the sessions whose header `cwd` is this project (the folder is shared). */
  filterByCwd: boolean;
  /** Where `listAll` looks: every project folder under a root, or one flat folder (1.x with a custom folder). */
  all: { kind: "projects"; root: string } | { kind: "flat"; dir: string };
  settings: SettingsReport[];
  /** Set when Pi would stop at startup instead of listing sessions (a `sessionDir` that is not a string). */
  problem?: string;
}

/** Pi 1.x `normalizePath(input)` with its defaults (tilde expansion on, no trimming), on POSIX. */
export function normalizePath16(input: string, home: string): string {
  if (input === "~") return home;
  if (input.startsWith("~/")) return join(home, input.slice(2));
  if (/^file:\/\//.test(input)) return fileUrlToPath(input);
  return input;
}

/** Pi 1.x `resolvePath(input, cwd)`. */
export function resolvePath16(input: string, cwd: string, home: string): string {
  const normalized = normalizePath16(input, home);
  return isAbsolute(normalized) ? resolveFrom("/", normalized) : resolveFrom(normalizePath16(cwd, home), normalized);
}

/** Pi 0.74 `expandTildePath`, used on `$PI_CODING_AGENT_DIR` and `$PI_CODING_AGENT_SESSION_DIR`. */
function expandTilde074(path: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return home + path.slice(1);
  return path;
}

/** `getAgentDir()`, as Pi returns it (possibly relative: Pi reads it against its cwd). */
export function piAgentDir(version: PiVersion, p: PiProcess): string {
  if (p.agentDirEnv) return version === "1.x" ? normalizePath16(p.agentDirEnv, p.home) : expandTilde074(p.agentDirEnv, p.home);
  return join(p.home, ".pi", "agent");
}

/** The folder name Pi gives a working directory: `--<cwd without its first slash, "/", "\" and ":" as "-">--`. */
export function encodeCwd(version: PiVersion, cwd: string, p: Pick<PiProcess, "cwd" | "home">): string {
  const resolved = version === "1.x" ? resolvePath16(cwd, p.cwd, p.home) : cwd;
  return `--${resolved.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

/**
 * The cwd a session in this document's folder belongs to: `encodeCwd` backwards, `--home-dev-p--`
 * → `/home/dev/p` (every `-` inside becomes `/`; a dash in a real folder name cannot be told apart,
 * and the header can be edited after). Otherwise the document's own folder, or "/" for a document
 * that is not a file. A new header's cwd is made from it.
 */
export function cwdForDocument(uri: string): string {
  const path = documentPath(uri);
  if (path === undefined) return "/";
  const parts = path.split(/[\\/]/);
  parts.pop();
  const folder = parts[parts.length - 1] ?? "";
  if (folder.length > 4 && folder.startsWith("--") && folder.endsWith("--")) return `/${folder.slice(2, -2).replace(/-/g, "/")}`;
  const dir = parts.join("/");
  return dir === "" ? "/" : dir;
}

/** `getDefaultSessionDirPath(cwd, agentDir)` (1.x) / `getDefaultSessionDir` without its `mkdir` (0.74), as Pi returns it. */
export function defaultSessionDir(version: PiVersion, cwd: string, agentDir: string, p: Pick<PiProcess, "cwd" | "home">): string {
  const agent = version === "1.x" ? resolvePath16(agentDir, p.cwd, p.home) : agentDir;
  return join(agent, "sessions", encodeCwd(version, cwd, p));
}

/** The two settings files Pi reads at startup, absolute. */
export function settingsPaths(version: PiVersion, p: PiProcess): { global: string; project: string } {
  let agentDir: string;
  try {
    agentDir = piAgentDir(version, p);
  } catch {
    // A `$PI_CODING_AGENT_DIR` that `fileURLToPath` refuses: Pi stops at startup, which `locateSessions` reports.
    agentDir = join(p.home, ".pi", "agent");
  }
  if (version === "1.x") {
    return {
      global: join(resolvePath16(agentDir, p.cwd, p.home), "settings.json"),
      project: join(resolvePath16(p.cwd, p.cwd, p.home), ".pi", "settings.json"),
    };
  }
  // 0.74 joins without resolving; a relative agent folder is read against the process cwd.
  return { global: resolveFrom(p.cwd, join(agentDir, "settings.json")), project: join(p.cwd, ".pi", "settings.json") };
}

interface ParsedSettings {
  report: SettingsReport;
  /** The parsed settings object Pi merges; {} when the file is absent or invalid. */
  value: Record<string, unknown>;
}

/** `SettingsManager.loadFromStorage` + `migrateSettings` for one file, keeping only what the session folder needs. */
function parseSettings(version: PiVersion, scope: "global" | "project", file: SettingsText): ParsedSettings {
  if (file.readError !== undefined) return { report: { scope, path: file.path, state: "unreadable", error: file.readError }, value: {} };
  if (file.text === undefined) return { report: { scope, path: file.path, state: "absent" }, value: {} };
  if (!file.text) return { report: { scope, path: file.path, state: "read" }, value: {} };
  let parsed: unknown;
  try {
    // 1.x strips a byte order mark first (`stripBom`); 0.74 hands the text to JSON.parse as it is.
    parsed = JSON.parse(version === "1.x" && file.text.charCodeAt(0) === 0xfeff ? file.text.slice(1) : file.text);
    // `migrateSettings` starts with `"queueMode" in settings`, which throws for anything but an object.
    if (parsed === null || typeof parsed !== "object") throw new TypeError(`Cannot use 'in' operator to search for 'queueMode' in ${String(parsed)}`);
  } catch (error) {
    return { report: { scope, path: file.path, state: "invalid", error: error instanceof Error ? error.message : String(error) }, value: {} };
  }
  const value = parsed as Record<string, unknown>;
  const report: SettingsReport = { scope, path: file.path, state: "read" };
  if (Object.hasOwn(value, "sessionDir")) report.sessionDir = value.sessionDir;
  return { report, value };
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * Where Pi looks for and writes sessions, given its process and its two settings files. Paths are
 * made absolute against the process cwd (Pi would read a relative one against its cwd, too).
 */
export function locateSessions(version: PiVersion, p: PiProcess, files: { global: SettingsText; project: SettingsText }): SessionLocation {
  try {
    return locate(version, p, files);
  } catch (error) {
    // Only a `file:` URL that `fileURLToPath` refuses gets here; Pi throws the same error at startup.
    const fallback = locate(
      version,
      { home: p.home, cwd: p.cwd },
      { global: { path: files.global.path, text: undefined }, project: { path: files.project.path, text: undefined } },
    );
    return { ...fallback, problem: `Pi stops at startup: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function locate(version: PiVersion, p: PiProcess, files: { global: SettingsText; project: SettingsText }): SessionLocation {
  const global = parseSettings(version, "global", files.global);
  const project = parseSettings(version, "project", files.project);
  // Both versions let a project key replace the global one whenever it is present (JSON has no `undefined`).
  const settingsScope: "global" | "project" | undefined = Object.hasOwn(project.value, "sessionDir")
    ? "project"
    : Object.hasOwn(global.value, "sessionDir")
      ? "global"
      : undefined;
  const settingsValue = settingsScope === "project" ? project.value.sessionDir : settingsScope === "global" ? global.value.sessionDir : undefined;
  const agentDir = piAgentDir(version, p);
  const absolute = (path: string) => (path === "" ? "" : resolveFrom(p.cwd, path));
  const location: SessionLocation = {
    version,
    agentDir: absolute(agentDir),
    sessionsRoot: absolute(join(agentDir, "sessions")),
    projectDir: absolute(defaultSessionDir(version, p.cwd, agentDir, p)),
    source: "default",
    currentDir: "",
    newSessionDir: "",
    filterByCwd: false,
    all: { kind: "projects", root: absolute(join(agentDir, "sessions")) },
    settings: [global.report, project.report],
  };
  if (settingsScope !== undefined && settingsValue && typeof settingsValue !== "string") {
    location.problem = `Pi stops at startup: sessionDir in ${settingsScope === "project" ? files.project.path : files.global.path} is ${describeValue(settingsValue)}, not a string (TypeError: sessionDir.startsWith is not a function)`;
  }

  let chosen: string | undefined;
  if (version === "1.x") {
    const fromSettings = settingsValue && typeof settingsValue === "string" ? normalizePath16(settingsValue, p.home) : undefined;
    if (p.sessionDirFlag) {
      chosen = normalizePath16(p.sessionDirFlag, p.home);
      location.source = "--session-dir";
    } else if (p.sessionDirEnv) {
      chosen = normalizePath16(p.sessionDirEnv, p.home);
      location.source = "PI_CODING_AGENT_SESSION_DIR";
    } else if (fromSettings) {
      chosen = fromSettings;
      location.source = "settings";
      location.settingsScope = settingsScope;
    }
    // `list` and `listAll` normalize the folder once more; a second pass changes nothing that matters.
    const dir = chosen ? normalizePath16(chosen, p.home) : undefined;
    location.currentDir = dir ? absolute(dir) : location.projectDir;
    location.filterByCwd = dir !== undefined && location.currentDir !== location.projectDir;
    if (dir) location.all = { kind: "flat", dir: location.currentDir };
    location.newSessionDir = location.currentDir;
    return location;
  }

  let dir: string | undefined;
  if (p.sessionDirFlag !== undefined) {
    dir = p.sessionDirFlag;
    location.source = "--session-dir";
  } else if (p.sessionDirEnv) {
    dir = expandTilde074(p.sessionDirEnv, p.home);
    location.source = "PI_CODING_AGENT_SESSION_DIR";
  } else if (settingsScope !== undefined && settingsValue !== null) {
    // `getSessionDir()` returns a falsy value unchanged, and `??` keeps everything but null.
    location.source = "settings";
    location.settingsScope = settingsScope;
    if (typeof settingsValue === "string")
      dir = settingsValue === "~" ? p.home : settingsValue.startsWith("~/") ? join(p.home, settingsValue.slice(2)) : settingsValue;
    else dir = "";
  }
  location.currentDir = dir === undefined ? location.projectDir : absolute(dir);
  location.newSessionDir = location.currentDir || p.cwd;
  return location;
}

/**
 * Whether Pi 1.x's `list` keeps a session of this header `cwd` when it filters by project
 * (`sessionCwdMatches`): a non-empty string that resolves to the project's cwd.
 */
export function cwdMatches(headerCwd: unknown, p: Pick<PiProcess, "cwd" | "home">): boolean {
  if (typeof headerCwd !== "string" || headerCwd === "") return false;
  try {
    return resolvePath16(headerCwd, p.cwd, p.home) === resolvePath16(p.cwd, p.cwd, p.home);
  } catch {
    return false;
  }
}
