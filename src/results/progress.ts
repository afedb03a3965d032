// The progress a user sees while checks run (`run --reporter list|line|dot`): Playwright's
// names and layouts, but failure blocks written for a vendor: the check's message, then the
// wire transcript with what came back, and no code frame of the runner's own judging code
// (Playwright's would point at `judge.fail(...)`), no truncated attachment, no pointer at
// Playwright's error-context files. Text from the implementation is in the message and the
// transcript; the CLI relays all of this through terminalText.
import type {
  FullConfig,
  FullResult,
  Reporter,
  Suite,
  TestCase,
  TestError,
  TestResult,
} from '@playwright/test/reporter';
import { ANNOTATION, NOT_FINISHED } from './annotations.js';
import { testTargetName } from './test-target.js';

export interface ProgressOptions {
  /** `quiet`: nothing but errors outside any check (Playwright adds its own progress when no reporter prints). */
  style: 'list' | 'line' | 'dot' | 'quiet';
}

/** Entries of a failure's transcript shown on the terminal: the start, and the end where the replies are. */
export const TRANSCRIPT_HEAD = 4;
export const TRANSCRIPT_TAIL = 24;
/** Characters of one transcript entry shown on the terminal (results.json and the reports keep it whole). */
export const ENTRY_CHARS = 1000;

const ANSI = /\u001b\[[0-9;]*m/g;

/** The formatted transcript attached by suites/support/check.ts, one string per entry. */
function transcriptEntries(result: TestResult): string[] {
  const a = result.attachments.find((x) => x.name === 'transcript.txt' && x.body);
  if (!a?.body) return [];
  const entries: string[] = [];
  for (const line of a.body.toString('utf8').split('\n')) {
    // Continuation lines of a multi-line entry are indented; an entry starts with its time.
    if (/^\+\d/.test(line) || entries.length === 0) entries.push(line);
    else entries[entries.length - 1] += `\n${line}`;
  }
  return entries.filter((e) => e.trim() !== '');
}

const clip = (entry: string): string =>
  entry.length <= ENTRY_CHARS
    ? entry
    : `${entry.slice(0, ENTRY_CHARS)}... (${entry.length - ENTRY_CHARS} more characters in the report)`;

/** The transcript for a failure block: the first entries and the last ones, each clipped. */
export function transcriptBlock(entries: readonly string[]): string[] {
  if (entries.length <= TRANSCRIPT_HEAD + TRANSCRIPT_TAIL) return entries.map(clip);
  const left = entries.length - TRANSCRIPT_HEAD - TRANSCRIPT_TAIL;
  return [
    ...entries.slice(0, TRANSCRIPT_HEAD).map(clip),
    `... ${left} entr${left === 1 ? 'y' : 'ies'} left out here (the report has the whole transcript)`,
    ...entries.slice(-TRANSCRIPT_TAIL).map(clip),
  ];
}

/** An error as a vendor needs it: the check's message; for anything else (a runner bug), its message and where. */
function errorText(error: TestError | undefined, result: TestResult, test: TestCase): string {
  if (result.status === 'timedOut') return `the check did not finish within its time limit (${test.timeout} ms)`;
  const message = (error?.message ?? 'failed').replace(ANSI, '');
  if (message.startsWith('CheckFailure: ')) return message.slice('CheckFailure: '.length);
  const where = (error?.stack ?? '')
    .replace(ANSI, '')
    .split('\n')
    .find((l) => /^\s+at /.test(l))
    ?.trim();
  return `${message}${where ? `\n(an error of the runner, ${where}: please report it)` : ''}`;
}

const annotation = (test: TestCase, result: TestResult, type: string): string | undefined =>
  [...result.annotations, ...test.annotations].find((a) => a.type === type)?.description;

/**
 * `not-run`: the run stopped (-x / --max-failures, a signal, the global timeout) before the
 * check finished; never a failure. Playwright's own skips are told apart by the check's
 * status: not applicable, or could not judge.
 */
type Outcome = 'passed' | 'warning' | 'failed' | 'flaky' | 'not-applicable' | 'incomplete' | 'not-run' | 'retrying';

const SYMBOL: Record<Outcome, string> = {
  passed: '✓',
  warning: '!',
  failed: '✘',
  flaky: '±',
  'not-applicable': '-',
  incomplete: '?',
  'not-run': '°',
  retrying: '✘',
};
const DOT: Record<Outcome, string> = {
  passed: '·',
  warning: '!',
  failed: 'F',
  flaky: '±',
  'not-applicable': '-',
  incomplete: '?',
  'not-run': '°',
  retrying: '×',
};

export default class ProgressReporter implements Reporter {
  private total = 0;
  private done = 0;
  private dots = 0;
  private started = Date.now();
  /** `run --repeat`: how many times each check runs (Playwright's repeatEach). */
  private repeat = 1;
  private readonly failures: { test: TestCase; result: TestResult }[] = [];
  private readonly counts: Record<Exclude<Outcome, 'retrying'>, number> = {
    passed: 0,
    warning: 0,
    failed: 0,
    flaky: 0,
    'not-applicable': 0,
    incomplete: 0,
    'not-run': 0,
  };

  constructor(private readonly options: ProgressOptions = { style: 'list' }) {}

  printsToStdio(): boolean {
    return true;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.total = suite.allTests().length;
    this.started = Date.now();
    this.repeat = Math.max(1, config.projects[0]?.repeatEach ?? 1);
    const workers = Math.min(config.workers, this.total);
    const checks = this.total / this.repeat;
    const times = this.repeat > 1 ? `, ${this.repeat} times each` : '';
    this.write(
      `\nRunning ${checks} check${checks === 1 ? '' : 's'}${times} using ${workers} worker${workers === 1 ? '' : 's'}\n\n`,
    );
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const outcome = this.outcome(test, result);
    if (outcome !== 'retrying') {
      this.done++;
      this.counts[outcome]++;
    }
    if (outcome === 'failed') this.failures.push({ test, result });
    const style = this.options.style;
    if (style === 'dot') {
      this.write(`${DOT[outcome]}${++this.dots % 80 === 0 ? '\n' : ''}`);
      return;
    }
    const project = testTargetName(test);
    const retry = `${this.repeat > 1 ? ` (repetition ${test.repeatEachIndex + 1}/${this.repeat})` : ''}${result.retry ? ` (retry #${result.retry})` : ''}`;
    const message =
      result.status === 'interrupted'
        ? NOT_FINISHED
        : (annotation(test, result, ANNOTATION.message) ?? annotation(test, result, 'skip'));
    const why =
      outcome === 'not-applicable' || outcome === 'incomplete' || outcome === 'not-run'
        ? ` (${outcome.replace('-', ' ')}${message ? `: ${message}` : ''})`
        : outcome === 'warning'
          ? ' (warning)'
          : outcome === 'flaky'
            ? ' (flaky: passed on a retry)'
            : outcome === 'retrying'
              ? ' (will be retried)'
              : '';
    const counter = style === 'line' ? `[${this.done}/${this.total}] ` : '';
    this.write(
      `  ${SYMBOL[outcome]}  ${counter}[${project}] › ${test.title}${retry}${why} (${Math.round(result.duration)}ms)\n`,
    );
    // The line reporter shows a failure as it happens; list and dot after the run.
    if (style === 'line' && outcome === 'failed') this.write(this.block(this.failures.length, test, result));
  }

  onError(error: TestError): void {
    process.stdout.write(`\nerror: ${(error.message ?? String(error.value ?? 'unknown')).replace(ANSI, '')}\n`);
  }

  onEnd(result: FullResult): void {
    if (this.options.style === 'dot' && this.dots % 80 !== 0) this.write('\n');
    if (this.options.style !== 'line')
      this.failures.forEach(({ test, result: r }, i) => this.write(this.block(i + 1, test, r)));
    const c = this.counts;
    const parts = [
      `${c.passed} passed`,
      c.warning ? `${c.warning} with warnings` : '',
      `${c.failed} failed`,
      c.flaky ? `${c.flaky} flaky` : '',
      c['not-applicable'] ? `${c['not-applicable']} not applicable` : '',
      c.incomplete ? `${c.incomplete} incomplete` : '',
      // Cut short, or never started: one count.
      c['not-run'] + this.total - this.done ? `${c['not-run'] + this.total - this.done} not run` : '',
    ].filter(Boolean);
    const seconds = ((Date.now() - this.started) / 1000).toFixed(1);
    this.write(
      `\n  ${parts.join(', ')} (${seconds}s)${result.status === 'interrupted' ? ', interrupted' : ''}${this.failures.length ? '; every transcript in full: the reports named below' : ''}\n`,
    );
  }

  private outcome(test: TestCase, result: TestResult): Outcome {
    // Cut short by the stop: never a failure, and never retried.
    if (result.status === 'interrupted') return 'not-run';
    if (result.status === 'skipped') {
      const status = annotation(test, result, ANNOTATION.status);
      return status === 'not-applicable' || status === 'incomplete' ? status : 'not-run';
    }
    if (result.status === 'passed') {
      if (result.retry > 0) return 'flaky';
      return annotation(test, result, ANNOTATION.status) === 'warning' ? 'warning' : 'passed';
    }
    return result.retry < test.retries ? 'retrying' : 'failed';
  }

  private block(n: number, test: TestCase, result: TestResult): string {
    const project = testTargetName(test);
    const lines = [
      `\n  ${n}) [${project}] › ${test.title}${this.repeat > 1 ? ` (repetition ${test.repeatEachIndex + 1}/${this.repeat})` : ''}${result.retry ? ` (retry #${result.retry})` : ''}`,
      '',
      ...errorText(result.errors[0] ?? result.error, result, test)
        .split('\n')
        .map((l) => `    ${l}`),
    ];
    const transcript = transcriptBlock(transcriptEntries(result));
    if (transcript.length) {
      lines.push('', '    transcript:');
      for (const e of transcript) lines.push(...e.split('\n').map((l) => `      ${l}`));
    }
    return `${lines.join('\n')}\n`;
  }

  private write(text: string): void {
    if (this.options.style !== 'quiet') process.stdout.write(text);
  }
}
