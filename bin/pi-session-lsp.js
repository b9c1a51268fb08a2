#!/usr/bin/env node
// The published entry point: everything lives in the compiled `out/` tree, built by `npm run build`
// (and by `prepare`, so a fresh `npm ci` leaves a runnable command).
require("../out/main.js").main(process.argv.slice(2));
