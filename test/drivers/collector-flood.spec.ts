// A harness that floods the runner's wire collector with its run's own key (issue 23:
// 20 000 records of 64 KiB took the runner to 1.5 GB): the collector keeps at most
// MAX_RUN_CHARS of a run's records, counts the rest without decoding them, and its
// process stays far under 300 MB. The collector runs in a process of its own
// (test/support/collector-flood.mjs), so the peak measured is its alone.
import { test, expect } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { MAX_RUN_CHARS } from '../../drivers/scripted-backend/collector.js';
import { ROOT } from '../support/paths.js';

const MB = 1024 * 1024;

test('5000 records of 64 KiB with the right key: 8 MiB kept, the rest counted, peak RSS under 300 MB', () => {
  test.setTimeout(120_000);
  const r = spawnSync(
    process.execPath,
    [resolve(ROOT, 'test', 'support', 'collector-flood.mjs'), resolve(ROOT, 'dist'), '5000', '64'],
    { encoding: 'utf8', timeout: 110_000 },
  );
  expect(r.status, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as { kept: number; keptChars: number; dropped: number; peakRss: number };
  expect(out.keptChars).toBeLessThanOrEqual(MAX_RUN_CHARS);
  expect(out.kept).toBeGreaterThan(0);
  expect(out.kept + out.dropped).toBe(5000);
  expect(out.peakRss, `peak RSS ${(out.peakRss / MB).toFixed(0)} MB`).toBeLessThan(300 * MB);
});
