// Prints the README's table of diagnostic codes from server/src/core/base/codes.ts (via the compiled
// out/ tree), or with --write replaces the table between the README's markers. A test checks that
// the README holds exactly this table, so codes.ts stays the single source.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { codesTable } = require("../out/core/base/codes.js");
const table = codesTable();
if (process.argv.includes("--write")) {
  const readme = new URL("../README.md", import.meta.url);
  const text = readFileSync(readme, "utf8");
  const next = text.replace(/(<!-- codes:start -->\n)[\s\S]*?(<!-- codes:end -->)/, `$1${table}$2`);
  writeFileSync(readme, next);
} else {
  process.stdout.write(table);
}
