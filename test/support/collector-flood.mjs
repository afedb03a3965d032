// A harness that floods the runner's wire collector with its run's own key: `records`
// records of `kib` KiB each (issue 23: 20 000 of 64 KiB took the runner to 1.5 GB).
//   node collector-flood.mjs <dist folder> <records> <kib>
// starts the collector in this process and the sender as a child process (so this
// process's peak resident set is the collector's own), and prints one JSON line: records
// kept, characters kept, records dropped, this process's peak RSS in bytes.
//   node collector-flood.mjs --send <host:port> <key> <records> <kib>
// is the sender; it waits for its socket to drain, and reads the acknowledgements.
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

if (process.argv[2] === '--send') {
  const [address, key, records, kib] = process.argv.slice(3);
  const colon = address.lastIndexOf(':');
  const socket = connect({ host: address.slice(0, colon), port: Number(address.slice(colon + 1)) });
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.on('data', () => undefined);
  socket.on('error', () => undefined);
  socket.write(`${JSON.stringify({ hello: { key, hook: 'a' } })}\n`);
  const line = (i) =>
    `${JSON.stringify({ seq: i + 1, record: { kind: 'frame', text: 'x'.repeat(Number(kib) * 1024) } })}\n`;
  for (let i = 0; i < Number(records); i++)
    if (!socket.write(line(i))) await new Promise((resolve) => socket.once('drain', resolve));
  socket.end();
} else {
  const [dist, records, kib] = process.argv.slice(2);
  const { WireCollector } = await import(pathToFileURL(join(dist, 'drivers', 'scripted-backend', 'collector.js')).href);
  const collector = await WireCollector.start();
  const log = collector.open({ hooks: {} });
  const sender = spawn(
    process.execPath,
    [fileURLToPath(import.meta.url), '--send', collector.address, log.key, records, kib],
    { stdio: 'inherit' },
  );
  await new Promise((resolve) => sender.once('close', resolve));
  // The sender has sent everything; the collector has read it when its connection closed.
  await log.whenIdle(60_000);
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'latin1'));
  const keptChars = log.records.reduce((n, r) => n + (r.text?.length ?? 0), 0);
  process.stdout.write(
    `${JSON.stringify({ kept: log.records.length, keptChars, dropped: log.dropped, peakRss: Number(hwm?.[1] ?? 0) * 1024 })}\n`,
  );
  await collector.close();
}
