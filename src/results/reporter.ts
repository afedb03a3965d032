// Playwright reporter that turns conformance tests into each claim's results.json and
// junit.xml, from the annotations and attachments the suites record.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FullConfig, FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { checkSpec } from '../checks/catalogue.js';
import { planFromEnv, type Target } from '../engine/plan.js';
import { mergeablePlan, mergeCoverage, MERGE_ENV, type MergeablePlan } from '../engine/shards.js';
import { ANNOTATION, ATTACHMENT } from './annotations.js';
import {
  buildClaimResults, stableJson, targetKey, type CheckResult, type CheckStatus, type Evidence, type LaunchRecord, type TranscriptLine,
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

/** Entries of a passing check's transcript kept in results.json: enough to see it was exercised. */
const PASS_TRANSCRIPT_ENTRIES = 40;

function transcriptOf(result: TestResult, bound?: number): TranscriptLine[] | undefined {
  const a = result.attachments.find((x) => x.name === ATTACHMENT.transcript && x.body);
  if (!a?.body) return undefined;
  const all = a.body.toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as TranscriptLine);
  if (bound === undefined || all.length <= bound) return all;
  const head = all.slice(0, bound - 1);
  const last = all[all.length - 1]!;
  return [...head, { ...last, note: `${all.length - bound} entries left out here (a passing check keeps ${bound}; the Playwright report has them all)${last.note ? `; ${last.note}` : ''}` }];
}

export default class ResultsReporter implements Reporter {
  private readonly byClaim = new Map<number, CheckResult[]>();
  /** Per claim, per target (keyed by targetKey): a launch failure reason, and whether any check got past launching. */
  private readonly launch = new Map<number, Map<string, LaunchRecord>>();
  private metadata: Record<string, unknown> = {};

  onBegin(config: FullConfig): void {
    this.metadata = config.metadata ?? {};
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const id = annotation(test, result, ANNOTATION.check);
    const target = test.parent.project()?.metadata?.target as Target | undefined;
    if (!id || !target) return;
    const annotated = annotation(test, result, ANNOTATION.status);
    if (annotated === 'excluded') return;
    let status: CheckStatus;
    let message = annotation(test, result, ANNOTATION.message) ?? '';
    if (result.status === 'skipped') {
      status = annotated === 'not-applicable' ? 'not-applicable' : annotated === 'incomplete' ? 'incomplete' : 'skipped';
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
    // Every check keeps its evidence: failures in full, passes bounded (a reviewer can see a pass was exercised).
    const transcript = transcriptOf(result, status === 'failed' || status === 'warning' || status === 'incomplete' ? undefined : PASS_TRANSCRIPT_ENTRIES);
    if (transcript) entry.transcript = transcript;
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
    if (plan) {
      this.write(mergeablePlan(plan), plan.claims.map((c) => c.reportDir));
      return;
    }
    const mergeDir = process.env[MERGE_ENV];
    if (mergeDir) this.merge(mergeDir);
  }

  /** `ahp-conformance merge`: the claims come from the shards' metadata; what the CLI needs next goes to .run/merge.json. */
  private merge(reportsDir: string): void {
    const coverage = mergeCoverage(this.metadata);
    const record = join(reportsDir, '.run', 'merge.json');
    mkdirSync(join(reportsDir, '.run'), { recursive: true });
    if (coverage.kind === 'error') {
      writeFileSync(record, stableJson({ error: coverage.message }));
      return;
    }
    const dirs = coverage.plan.claims.map((c) => join(reportsDir, c.claim.implementation.name));
    const missing = coverage.missing.length
      ? `shard${coverage.missing.length > 1 ? 's' : ''} ${coverage.missing.map((m) => `${m}/${coverage.total}`).join(', ')} missing from the merge (merged: ${coverage.present.map((m) => `${m}/${coverage.total}`).join(', ')})`
      : undefined;
    this.write(coverage.plan, dirs, missing);
    writeFileSync(record, stableJson({
      shards: { total: coverage.total, present: coverage.present, missing: coverage.missing },
      claims: coverage.plan.claims.map((c, i) => ({ implementation: c.claim.implementation, reportDir: dirs[i] })),
    }));
  }

  private write(plan: MergeablePlan, reportDirs: readonly string[], incomplete?: string): void {
    plan.claims.forEach(({ claim, targets }, index) => {
      const results = buildClaimResults({
        runnerVersion: plan.runnerVersion,
        generatedAt: new Date().toISOString(),
        claim,
        targets,
        checks: this.byClaim.get(index) ?? [],
        launches: this.launch.get(index),
        ...(plan.containment ? { containment: plan.containment } : {}),
      });
      // A verdict over the checks of some shards only would certify what was never run.
      writeClaimResults(reportDirs[index]!, incomplete
        ? { ...results, verdict: 'incomplete', reason: incomplete, targets: results.targets.map((t) => ({ ...t, verdict: 'incomplete', reason: incomplete })) }
        : results);
    });
  }

  printsToStdio(): boolean {
    return false;
  }
}
