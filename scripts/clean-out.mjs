// Empties out/ before every build (`build`, `postprepare`, `prepack`: this, then tsc -p server). tsc never
// deletes what it compiled earlier, so without this a module whose source was renamed or removed
// would still be shipped in the tarball, or loaded in a clone in place of its new home.
//
// The build of a clone runs as `postprepare`, not `prepare`: npm ci and npm install run both for
// the project itself, but npm 11 lists a `prepare` script in the package.json of a tarball it
// installs as an install script "not yet covered by allowScripts" (a warning on every
// `npm install -g ./pi-session-lsp-*.tgz` and `npx`), although it never runs it for a tarball;
// it neither runs nor lists `postprepare` there. So `npm pack` (which runs only `prepare` besides
// `prepack`) builds here instead.
import { rmSync } from "node:fs";

rmSync(new URL("../out", import.meta.url), { recursive: true, force: true });
