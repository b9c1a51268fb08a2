import { configDefaults, defineConfig } from "vitest/config";

/**
 * Two projects. `unit` (`npm test`) needs nothing but Node.js and this repository's own
 * dependencies. `editors` (`npm run test:editors`) drives the real editors in test/clients
 * (Neovim, Emacs + Eglot, Vim + ALE from Debian) and compiles the VS Code sample against its own
 * dependencies (`npm ci --prefix client-samples/vscode`); .ci/run installs all of that first.
 * `npx vitest run FILE` runs a file in whichever project holds it.
 *
 * In both, a test that makes no assertion fails (test/setup/hasAssertions.ts).
 */
export default defineConfig({
  test: {
    testTimeout: 20_000,
    setupFiles: ["test/setup/hasAssertions.ts", "test/setup/backupDir.ts"],
    projects: [
      { extends: true, test: { name: "unit", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, "test/clients/**"] } },
      { extends: true, test: { name: "editors", include: ["test/clients/**/*.test.ts"], exclude: [...configDefaults.exclude, "test/clients/vscode/**"] } },
      // The package test and the workbench test both write the extension's .vsix: one at a time.
      { extends: true, test: { name: "vscode", include: ["test/clients/vscode/**/*.test.ts"], fileParallelism: false } },
    ],
  },
});
