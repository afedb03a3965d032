// Preloaded into every runner process of a test run (NODE_OPTIONS=--require <this>): at
// exit each appends its peak resident set (VmHWM, bytes) and command line to the file named
// by AHP_PEAK_RSS_FILE. Implementations under test never get NODE_OPTIONS (their
// environment is an allow-list), so the file holds the runner's processes only.
'use strict';
const fs = require('node:fs');

const file = process.env.AHP_PEAK_RSS_FILE;
if (file) {
  process.on('exit', () => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'latin1'));
      const line = { pid: process.pid, rss: Number(m ? m[1] : 0) * 1024, cmd: process.argv.slice(1, 3).join(' ') };
      fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
    } catch {
      // nowhere to say it: the test finds no line and says so
    }
  });
}
