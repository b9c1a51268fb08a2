/**
 * The server's settings, the same in every editor: read from `workspace/configuration` (section
 * `piSession`) when the client supports it, else from `initializationOptions` (either the settings
 * object itself or `{ "piSession": { … } }`). Unknown keys and values of the wrong type are
 * ignored, so a typo never breaks the server.
 */

import { asObject } from "../core/line/schema";
import { DEFAULT_MAX_SYMBOLS, type SeverityOverrides } from "../features/api";

export interface Settings {
  /** The most document symbols (outline entries) computed for one document. */
  maxSymbols: number;
  /** Whether entries outside the context Pi builds get a faded (`Unnecessary`) hint. */
  fadeInactive: boolean;
  /** Severity per diagnostic code, overriding the built-in table ("off" hides the code). */
  severity: SeverityOverrides;
  /** Whether the server answers `workspace/diagnostic` with the problems of the sessions that are not open. */
  workspaceDiagnostics: boolean;
  /** The most session files one workspace pull lists. */
  workspaceDiagnosticsMaxFiles: number;
  /** The most MiB of session files one workspace pull reads; the rest wait for the next pull, and a larger file is not read. */
  workspaceDiagnosticsMaxMiB: number;
}

export const DEFAULT_SETTINGS: Settings = {
  maxSymbols: DEFAULT_MAX_SYMBOLS,
  fadeInactive: true,
  severity: {},
  workspaceDiagnostics: true,
  workspaceDiagnosticsMaxFiles: 5000,
  workspaceDiagnosticsMaxMiB: 256,
};

const SEVERITY_LEVELS = new Set(["error", "warning", "information", "hint", "off"]);

export const SETTINGS_SECTION = "piSession";

export function readSettings(raw: unknown, base: Settings = DEFAULT_SETTINGS): Settings {
  const source = isObject(raw) && isObject(raw[SETTINGS_SECTION]) ? raw[SETTINGS_SECTION] : raw;
  const settings = { ...base };
  if (!isObject(source)) return settings;
  const maxSymbols = source.maxSymbols;
  if (typeof maxSymbols === "number" && Number.isFinite(maxSymbols) && maxSymbols >= 0) settings.maxSymbols = Math.floor(maxSymbols);
  if (typeof source.fadeInactive === "boolean") settings.fadeInactive = source.fadeInactive;
  if (typeof source.workspaceDiagnostics === "boolean") settings.workspaceDiagnostics = source.workspaceDiagnostics;
  const maxFiles = count(source.workspaceDiagnosticsMaxFiles);
  if (maxFiles !== undefined) settings.workspaceDiagnosticsMaxFiles = maxFiles;
  const maxMiB = count(source.workspaceDiagnosticsMaxMiB);
  if (maxMiB !== undefined) settings.workspaceDiagnosticsMaxMiB = maxMiB;
  const severity = asObject(source.severity);
  if (severity) {
    const overrides: SeverityOverrides = {};
    for (const [code, level] of Object.entries(severity)) {
      if (typeof level === "string" && SEVERITY_LEVELS.has(level)) overrides[code] = level as SeverityOverrides[string];
    }
    settings.severity = overrides;
  }
  return settings;
}

/** A finite non-negative number, rounded down; undefined for anything else. */
function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return asObject(value) !== undefined;
}
