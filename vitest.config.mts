import { configDefaults, defineConfig } from "vitest/config";
import { HANG_MS } from "./test/helpers/limits";

/**
 * Four projects. `unit` (`npm test`) needs nothing but Node.js and this repository's own
 * dependencies. `pi` (`npm run test:pi`) runs the real Pi 1.6 (the doctor extension inside Pi, what
 * Pi sends over the wire), from the folder `PI16_DIR` names (`test/pi/get-pi.sh` installs it). `editors` (`npm run test:editors`) drives the real editors in test/clients
 * (Neovim, Emacs + Eglot, Vim + ALE from Debian) and compiles the VS Code sample against its own
 * dependencies (`npm ci --prefix client-samples/vscode`); .ci/run installs all of that first.
 * `npx vitest run FILE` runs a file in whichever project holds it.
 *
 * In both, a test that makes no assertion fails (test/setup/hasAssertions.ts). `out/` is built once,
 * before any file runs (test/setup/build.ts). No test depends on the machine's speed: the only
 * time limit, for tests and hooks alike, is `HANG_MS`, minutes, which stops a hang and nothing else
 * (test/helpers/limits.ts says why).
 */
export default defineConfig({
  test: {
    testTimeout: HANG_MS,
    hookTimeout: HANG_MS,
    globalSetup: ["test/setup/build.ts"],
    setupFiles: ["test/setup/hasAssertions.ts", "test/setup/backupDir.ts"],
    projects: [
      { extends: true, test: { name: "unit", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, "test/clients/**", "test/pi/**"] } },
      { extends: true, test: { name: "pi", include: ["test/pi/**/*.test.ts"] } },
      { extends: true, test: { name: "editors", include: ["test/clients/**/*.test.ts"], exclude: [...configDefaults.exclude, "test/clients/vscode/**"] } },
      // The package test and the workbench test both write the extension's .vsix: one at a time.
      { extends: true, test: { name: "vscode", include: ["test/clients/vscode/**/*.test.ts"], fileParallelism: false } },
    ],
  },
});
