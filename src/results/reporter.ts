// Playwright reporter that turns conformance tests into each claim's results.json and
// junit.xml, from the annotations and attachments the suites record.
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { checkSpec } from '../checks/catalogue.js';
import { claimTargets, planFromEnv, type Target } from '../engine/plan.js';
import { packageVersion } from '../package-root.js';
import { ANNOTATION, ATTACHMENT } from './annotations.js';
import {
  buildClaimResults, targetKey, type CheckResult, type CheckStatus, type Evidence, type LaunchRecord, type TranscriptLine,
} from './model.js';
import { writeClaimResults } from './write.js';

const ANSI = /\u001b\[[0-9;]*m/g;

function annotation(test: TestCase, result: TestResult, type: string): string | undefined {
  return [...result.annotations, ...test.annotations].find((a) => a.type === type)?.description;
}

function attachmentJson<T>(result: TestResult, name: string): T | undefined {
  const a = result.attachments.find((x) => x.name === name && x.body);
  if (!a?.body) return undefined;
  try {
    return JSON.parse(a.body.toString('utf8')) as T;
  } catch {
    return undefined;
  }
}

function transcriptOf(result: TestResult): TranscriptLine[] | undefined {
  const a = result.attachments.find((x) => x.name === ATTACHMENT.transcript && x.body);
  if (!a?.body) return undefined;
  return a.body.toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as TranscriptLine);
}

export default class ResultsReporter implements Reporter {
  private readonly byClaim = new Map<number, CheckResult[]>();
  /** Per claim, per target (keyed by targetKey): a launch failure reason, and whether any check got past launching. */
  private readonly launch = new Map<number, Map<string, LaunchRecord>>();

  onTestEnd(test: TestCase, result: TestResult): void {
    const id = annotation(test, result, ANNOTATION.check);
    const target = test.parent.project()?.metadata?.target as Target | undefined;
    if (!id || !target) return;
    const annotated = annotation(test, result, ANNOTATION.status);
    if (annotated === 'excluded') return;
    let status: CheckStatus;
    let message = annotation(test, result, ANNOTATION.message) ?? '';
    if (result.status === 'skipped') {
      status = annotated === 'not-applicable' ? 'not-applicable' : 'skipped';
      message ||= result.annotations.find((a) => a.type === 'skip')?.description ?? 'skipped';
    } else if (result.status === 'passed') {
      status = annotated === 'warning' ? 'warning' : 'passed';
    } else {
      status = 'failed';
      const err = result.errors[0] ?? result.error;
      message = result.status === 'timedOut' ? `the check did not finish within its time limit (${test.timeout} ms)`
        : result.status === 'interrupted' ? 'the run was interrupted'
        : (err?.message ?? 'failed').replace(ANSI, '').replace(/^CheckFailure: /, '');
    }
    const spec = checkSpec(id);
    const entry: CheckResult = {
      id,
      title: spec.title,
      level: spec.level,
      profile: spec.profile,
      requirements: [...spec.requirements],
      role: target.role,
      transport: target.transport,
      ...(target.lifecycle ? { lifecycle: target.lifecycle } : {}),
      status,
      message,
      durationMs: Math.round(result.duration),
    };
    const evidence = attachmentJson<Evidence>(result, ATTACHMENT.evidence);
    if (evidence) entry.evidence = evidence;
    if (status === 'failed' || status === 'warning') {
      const transcript = transcriptOf(result);
      if (transcript) entry.transcript = transcript;
    }
    const launches = this.launch.get(target.claimIndex) ?? new Map<string, LaunchRecord>();
    const launch = launches.get(targetKey(target)) ?? { started: false };
    const failure = annotation(test, result, ANNOTATION.launchFailure);
    if (failure) launch.failure ??= failure;
    else if (status !== 'skipped' && status !== 'not-applicable') launch.started = true;
    launches.set(targetKey(target), launch);
    this.launch.set(target.claimIndex, launches);
    const list = this.byClaim.get(target.claimIndex) ?? [];
    list.push(entry);
    this.byClaim.set(target.claimIndex, list);
  }

  onEnd(_result: FullResult): void {
    const plan = planFromEnv();
    if (!plan) return;
    plan.claims.forEach(({ claim, reportDir }, index) => {
      const results = buildClaimResults({
        runnerVersion: packageVersion(),
        generatedAt: new Date().toISOString(),
        claim: {
          file: claim.file,
          implementation: claim.implementation,
          snapshot: claim.snapshot,
          role: claim.role,
          transports: claim.transports,
          profiles: claim.profiles,
        },
        targets: claimTargets(claim, index).map(({ role, transport, lifecycle }) => ({ role, transport, ...(lifecycle ? { lifecycle } : {}) })),
        checks: this.byClaim.get(index) ?? [],
        launches: this.launch.get(index),
      });
      writeClaimResults(reportDir, results);
    });
  }

  printsToStdio(): boolean {
    return false;
  }
}
