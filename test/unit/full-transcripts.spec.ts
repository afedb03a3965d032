// run --full-transcripts as the results reporter records it: a passing check keeps a bounded
// transcript unless the plan says every entry is kept; a merge keeps what its shards kept
// (the plan travels in the blobs' metadata), shards of both kinds are not one run, and
// results.json and `verify` say the transcripts are whole.
import { test, expect } from '@playwright/test';
import type { FullConfig, TestResult } from '@playwright/test/reporter';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { plannedProjects, type RunPlan } from '../../src/engine/plan.js';
import { recordPlan } from '../../src/engine/shards.js';
import { ANNOTATION, ATTACHMENT } from '../../src/results/annotations.js';
import ResultsReporter, { PASS_TRANSCRIPT_ENTRIES } from '../../src/results/reporter.js';
import { runMetadata, type RecordedPlan, type RunOutcome } from '../../src/results/run-record.js';
import { verifyClaimFolder } from '../../src/results/verify.js';
import { writeClaimResults } from '../../src/results/write.js';
import { referenceBackendPlan } from '../support/plan-fixture.js';
import { reporterPlan, reporterTestCase, validResults } from '../support/results-fixture.js';
import { tempFolders } from '../support/temp.js';

const workspace = tempFolders('ahp-full-transcripts-');

const plan = (fullTranscripts: boolean): RecordedPlan => reporterPlan(fullTranscripts ? { fullTranscripts: true } : {});
const testCase = reporterTestCase;

/** A passing check whose transcript has `entries` entries (stderr lines, as the fault matrix reads them). */
function passed(entries: number): TestResult {
  const lines = Array.from({ length: entries }, (_, i) =>
    JSON.stringify({ t: i, at: '2026-01-01T00:00:00.000Z', dir: 'stderr', channel: 'http', text: `line ${i}` }),
  );
  return {
    retry: 0,
    status: 'passed',
    duration: 5,
    annotations: [{ type: ANNOTATION.check, description: 'base.jsonrpc-utf8' }],
    attachments: [{ name: ATTACHMENT.transcript, body: Buffer.from(`${lines.join('\n')}\n`) }],
    errors: [],
  } as unknown as TestResult;
}

function record(recorded: RecordedPlan, mode: 'run' | 'merge'): RunOutcome {
  const file = join(workspace(), 'outcome.json');
  const reporter = new ResultsReporter({ outcomeFile: file, mode });
  // A merge reads the plan from the blobs' metadata: here one shard of one.
  reporter.onBegin({
    metadata: runMetadata(recorded, mode === 'merge' ? { current: 1, total: 1 } : undefined),
  } as unknown as FullConfig);
  reporter.onTestEnd(testCase, passed(100));
  reporter.onEnd({ status: 'passed', startTime: new Date(), duration: 1 } as never);
  const outcome = JSON.parse(readFileSync(file, 'utf8')) as RunOutcome;
  expect(outcome.error).toBeUndefined();
  for (const c of outcome.claims) expect(validResults(c), JSON.stringify(validResults.errors)).toBe(true);
  return outcome;
}

test('a passing check keeps a bounded transcript, saying how many entries were left out', () => {
  const r = record(plan(false), 'run').claims[0]!;
  const transcript = r.checks[0]!.transcript!;
  expect(transcript).toHaveLength(PASS_TRANSCRIPT_ENTRIES);
  expect(transcript.at(-1)).toMatchObject({ text: 'line 99' });
  expect(transcript.at(-1)!.note).toContain(`${100 - PASS_TRANSCRIPT_ENTRIES} entries left out`);
  expect(r.run?.fullTranscripts).toBeUndefined();
});

for (const mode of ['run', 'merge'] as const) {
  test(`${mode}: with the plan's --full-transcripts a passing check keeps every entry, and results.json says so`, () => {
    const r = record(plan(true), mode).claims[0]!;
    const transcript = r.checks[0]!.transcript!;
    expect(transcript.map((l) => l.text)).toEqual(Array.from({ length: 100 }, (_, i) => `line ${i}`));
    expect(transcript.some((l) => l.note !== undefined)).toBe(false);
    expect(r.run?.fullTranscripts).toBe(true);
  });
}

test('shards run with and without --full-transcripts are of different runs; the recorded plan carries it', () => {
  const base: RunPlan = referenceBackendPlan();
  const whole: RunPlan = { ...base, fullTranscripts: true };
  const bounded = recordPlan(base, plannedProjects(base));
  const full = recordPlan(whole, plannedProjects(whole));
  expect(bounded.fullTranscripts).toBeUndefined();
  expect(full.fullTranscripts).toBe(true);
  expect(full.digest).not.toBe(bounded.digest);
});

test('verify says when the transcripts of a published folder are whole', () => {
  const results = record(plan(true), 'run').claims[0]!;
  const dir = join(workspace(), 'acme');
  writeClaimResults(dir, results);
  expect(verifyClaimFolder(dir)).toMatchObject({ problems: [], fullTranscripts: true });
  const other = join(workspace(), 'acme');
  writeClaimResults(other, record(plan(false), 'run').claims[0]!);
  expect(verifyClaimFolder(other).fullTranscripts).toBeUndefined();
});
