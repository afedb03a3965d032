#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm ci` (the `prepare` script).
// Imported here, not at the top: an install whose dist/ is missing or broken (being rebuilt,
// half copied) is the runner's own error, one line and exit 3 (docs/cli.md), never Node's
// stack and exit 1, which a script reading exit codes would take for a finding.
let failed = false;
const internal = (err) => {
  // Last-resort guard: never print a stack trace to users. One line, controls shown escaped.
  const message = String(err && err.message ? err.message : err)
    .split('\n')[0]
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (!failed) process.stderr.write(`ahp-conformance: internal error: ${message}\n`);
  failed = true;
  process.exitCode = 3;
};
// An error no command caught (a stream's, a timer's) is the runner's too: it ends the
// process as Node would, with exit 3 (the exit handlers still release the reports lock
// and remove the run folder).
const fatal = (err) => {
  internal(err);
  process.exit(3);
};
process.on('uncaughtException', fatal);
process.on('unhandledRejection', fatal);

import('../dist/src/cli/main.js').then(
  ({ main }) =>
    main(process.argv.slice(2)).then((code) => {
      if (!failed) process.exitCode = code;
    }, internal),
  internal,
);
