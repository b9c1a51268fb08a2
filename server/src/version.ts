/**
 * The package version, read once from package.json so that the server and the CLI report the same.
 * The compiled file sits one folder below the package root and the source two, so both are tried.
 */
function readVersion(): string {
  for (const path of ["../package.json", "../../package.json"]) {
    try {
      const pkg = require(path) as { name?: string; version?: string };
      if (pkg.name === "pi-session-lsp" && pkg.version) return pkg.version;
    } catch {
      // Not at this level; try the next.
    }
  }
  return "0.0.0";
}

export const VERSION = readVersion();
