// Our own hostile corpus (test/hostile/README.md holds the table): hostile implementations
// run through the real CLI in four batches (processes, output, HTTP, adapters), each
// behaviour a claim of its own with timeoutMs 100 (250 where a reply must come in time), each batch one `ahp-conformance run`
// narrowed to one cheap check per claim. Every behaviour is judged on its verdict, the
// statuses of its checks, no process left 1 s after its run, each check ending within its
// time limit, the runner's peak RSS under 400 MB, no secret in any output (terminal,
// results.json, junit.xml, the reports, Playwright's report),
// well-formed outputs (junit.xml strict XML, results.json valid against its schema,
// nothing raw on the terminal) and results.json that verifies against its closing line.
// Claim errors are cheap (exit 2 before anything starts) and judged separately.
import { test, expect } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { SaxesParser } from 'saxes';
import { containment } from '../drivers/containment.js';
import { ALLOWED_ENV } from '../src/claims/environment.js';
import { verifyClaimFolder } from '../src/results/verify.js';
import { checkTimeLimitMs } from '../src/timing.js';
import {
  CANARY_ENV,
  CORPUS,
  CORPUS_TIMEOUT_MS,
  corpusNonce,
  REPLY_TIMEOUT_MS,
  leaksOf,
  RAW_TERMINAL,
  readableFiles,
  removeBatch,
  runBatch,
  runnerPeak,
  type BatchOutcome,
  type RowOutcome,
} from '../scripts/hostile-corpus.js';
import { ROOT } from './support/paths.js';

const BIN = resolve(ROOT, 'bin', 'ahp-conformance.js');
const NONCE = corpusNonce();
const MB = 1024 * 1024;
// A Playwright worker with the suites loaded is about 200 MB before it reads anything; the
// gigabyte flood adds about 70 MB of garbage quiet, and 110 MB was seen under npm test's
// load (311 MB, where GC runs later). An unbounded read of any output row would pass 1 GB.
const PEAK_RSS_LIMIT = 400 * MB;
/** results.json of a claim that ran one check: its transcript is bounded (1 MiB), the rest is small. */
const RESULTS_BOUND = 4 * MB;
/** A check's time limit, as playwright.config.ts sets it for these claims (their timeoutMs, at least 2000). */
const LIMIT_MS = checkTimeLimitMs(Math.max(2000, CORPUS_TIMEOUT_MS, REPLY_TIMEOUT_MS));
const CONTAINED = containment().kind === 'sandbox';
const NOT_CONTAINED =
  'kernel containment is unavailable here: the corpus launches processes that only a container ends (and kill -9 -1 runs only contained)';

const validateResults = new Ajv2020({ allErrors: true, strict: false, logger: false }).compile(
  JSON.parse(readFileSync(resolve(ROOT, 'schemas', 'results.schema.json'), 'utf8')) as object,
);

/** Throws unless `xml` is well-formed XML 1.0 (saxes enforces its character ranges). */
function parseXmlStrict(xml: string): void {
  const parser = new SaxesParser();
  parser.on('error', (e) => {
    throw e;
  });
  parser.write(xml).close();
}

const files = (dir: string): string[] => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};
const logOf = (o: RowOutcome, name: string): string | undefined => {
  const f = join(o.dir, `${name}${o.marker}.log`);
  return existsSync(f) ? readFileSync(f, 'utf8') : undefined;
};

/** What every behaviour is judged on. */
function judgeBatch(b: BatchOutcome): void {
  const rows = [...b.rows.values()];
  const worst = rows.some((o) => o.row.verdict === 'incomplete')
    ? 2
    : rows.some((o) => o.row.verdict === 'nonconformant')
      ? 1
      : 0;
  expect.soft(b.code, `exit status of the run (stderr: ${b.stderr.slice(-2000)})`).toBe(worst);

  // The terminal: nothing raw, no line a CI log reader could take for a verdict.
  for (const [name, text] of [
    ['stdout', b.stdout],
    ['stderr', b.stderr],
  ] as const) {
    const raw = RAW_TERMINAL.exec(text);
    expect
      .soft(
        raw,
        `raw control on ${name} near: ${raw ? JSON.stringify(text.slice(Math.max(0, raw.index - 80), raw.index + 40)) : ''}`,
      )
      .toBeNull();
    expect
      .soft(
        text.split('\n').filter((l) => l.startsWith('FAKE')),
        `forged lines on ${name}`,
      )
      .toEqual([]);
  }

  // Memory: every runner process stays under the bound (the implementations' own processes are theirs).
  const peak = runnerPeak(b);
  expect
    .soft(peak.rss, `peak RSS of a runner process: ${(peak.rss / MB).toFixed(0)} MB (${peak.cmd.slice(0, 160)})`)
    .toBeLessThan(PEAK_RSS_LIMIT);

  // Secrets: the tokens, the runner's canary variable, the harness tokens, /etc/passwd, anywhere in the outputs.
  const needles: (string | RegExp)[] = [b.env[CANARY_ENV]!, /ahp-canary-[0-9a-f]{24}/, 'root:x:0:0:'];
  for (const o of rows) if (o.token) needles.push(o.token);
  const outputs = readableFiles(b.reports);
  outputs.push(['stdout', Buffer.from(b.stdout)], ['stderr', Buffer.from(b.stderr)]);
  expect.soft(leaksOf(outputs, needles), 'secrets in the outputs').toEqual([]);
  // Playwright's report was there to be searched (its error-context files stay in the run's private folder).
  expect
    .soft(
      outputs.some(([p]) => p.includes('index.html!')),
      "Playwright's report data was read",
    )
    .toBe(true);

  for (const o of rows) judgeRow(o);
}

function judgeRow(o: RowOutcome): void {
  const id = o.row.id;
  expect.soft(o.leftovers, `${id}: processes left 1 s after the run`).toEqual([]);
  const r = o.results;
  expect.soft(r, `${id}: results.json`).toBeDefined();
  if (!r) return;
  expect
    .soft(
      validateResults(r),
      `${id}: results.json against its schema: ${JSON.stringify(validateResults.errors?.slice(0, 3))}`,
    )
    .toBe(true);
  expect.soft(r.verdict, `${id}: verdict (${r.reason ?? ''})`).toBe(o.row.verdict);
  for (const check of o.row.checks) {
    const c = r.checks.find((x) => x.id === check && x.status !== 'not-run');
    const want = o.row.statuses?.[check] ?? ['failed'];
    expect
      .soft(want, `${id}: ${check} is ${c?.status ?? 'not run'}: ${c?.message.slice(0, 300) ?? ''}`)
      .toContain(c?.status);
  }
  for (const c of r.checks.filter((x) => x.status !== 'not-run')) {
    expect.soft(c.durationMs, `${id}: ${c.id} took ${c.durationMs} ms, over its time limit`).toBeLessThan(LIMIT_MS);
    expect
      .soft(c.message, `${id}: ${c.id} ended by Playwright's timeout`)
      .not.toMatch(/Test timeout of \d+ms exceeded/);
  }
  // The verdict on disk 1 s after the run is the one the closing line printed, and verifies.
  expect.soft(o.printed, `${id}: the closing line's sha256`).toMatch(/^[0-9a-f]{64}$/);
  expect.soft(o.digest, `${id}: results.json changed after the run`).toBe(o.printed);
  expect.soft(verifyClaimFolder(o.reportDir, { expected: o.printed }).problems, `${id}: verify`).toEqual([]);
  // Well-formed and bounded outputs.
  const junit = readFileSync(join(o.reportDir, 'junit.xml'), 'utf8');
  expect.soft(() => parseXmlStrict(junit), `${id}: junit.xml is well-formed XML`).not.toThrow();
  const size = statSync(join(o.reportDir, 'results.json')).size;
  expect.soft(size, `${id}: results.json is ${size} bytes`).toBeLessThan(RESULTS_BOUND);
  const page = readFileSync(join(o.reportDir, 'index.html'), 'utf8');
  expect
    .soft(page, `${id}: the report shows implementation text as text`)
    .not.toMatch(/<script>alert\("ahp-hostile"\)|<img src=x onerror/);
  ROW_CHECKS[id]?.(o);
}

/** The environment a dump shows: only allowed names, none of the given values anywhere it could look. */
function judgeEnvDump(o: RowOutcome, allowed: readonly string[], forbidden: readonly string[]): void {
  const file = join(o.dir, `env${o.marker}.json`);
  expect.soft(existsSync(file), `${o.row.id}: the implementation wrote what it saw`).toBe(true);
  if (!existsSync(file)) return;
  const seen = JSON.parse(readFileSync(file, 'utf8')) as {
    env: Record<string, string>;
    proc: Record<string, string[] | string>;
  };
  const extra = Object.keys(seen.env).filter((k) => !allowed.includes(k) && !k.startsWith('LC_'));
  expect.soft(extra, `${o.row.id}: variables beyond the allow-list`).toEqual([]);
  const everything = JSON.stringify(seen);
  for (const f of forbidden) expect.soft(everything.includes(f), `${o.row.id}: sees ${f.slice(0, 40)}`).toBe(false);
  expect.soft(everything.includes('AHP_RUN_FOLDER'), `${o.row.id}: sees AHP_RUN_FOLDER`).toBe(false);
  // Its PID namespace shows its own processes only.
  expect.soft(Object.keys(seen.proc).length, `${o.row.id}: processes it can see`).toBeLessThan(5);
}

const batchesByRow = new Map<string, BatchOutcome>();
const otherTokens = (o: RowOutcome): string[] => {
  const b = batchesByRow.get(o.row.id)!;
  return [...b.rows.values()]
    .filter((x) => x !== o && x.token)
    .map((x) => x.token!)
    .concat(b.env[CANARY_ENV]!);
};
const BASE_ENV = [...ALLOWED_ENV, 'TMPDIR', 'PWD'];

/** What each behaviour must have done (or not) besides the common judgement. */
const ROW_CHECKS: Record<string, (o: RowOutcome) => void> = {
  'double-fork': (o) => {
    expect
      .soft(
        files(o.dir).some((f) => f.startsWith('port--ahp-hostile')),
        'double-fork: the setsid grandchild held a port',
      )
      .toBe(true);
    // The Done-when of issue 9: the run's results.json verifies with the CLI, against the printed digest.
    const v = spawnSync(process.execPath, [BIN, 'verify', o.reportDir, '--sha256', o.printed ?? ''], {
      encoding: 'utf8',
    });
    expect.soft(v.status, `double-fork: ahp-conformance verify: ${v.stdout}${v.stderr}`).toBe(0);
    // A results.json edited after the run does not.
    const copy = mkdtempSync(join(tmpdir(), 'ahp-hostile-tamper-'));
    try {
      cpSync(o.reportDir, copy, { recursive: true });
      const f = join(copy, 'results.json');
      writeFileSync(f, readFileSync(f, 'utf8').replace('"verdict": "nonconformant"', '"verdict": "conformant"'));
      const t = spawnSync(process.execPath, [BIN, 'verify', copy], { encoding: 'utf8' });
      expect.soft(t.status, 'a tampered results.json does not verify').toBe(1);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  },
  forge: (o) => {
    const log = logOf(o, 'forge');
    expect.soft(log, 'forge: the forger ran').toBeDefined();
    expect
      .soft(
        log?.split('\n').filter((l) => l.endsWith(': ok')),
        'forge: writes that succeeded',
      )
      .toEqual([]);
    expect
      .soft(
        files(join(o.dir, 'reports')).filter((f) => f.startsWith('forged')),
        'forge: forged files in the reports folder',
      )
      .toEqual([]);
    expect
      .soft(
        files(ROOT)
          .concat(files(join(ROOT, 'dist')))
          .filter((f) => f.includes(o.marker)),
        'forge: files in the checkout',
      )
      .toEqual([]);
  },
  'cwd-checkout': (o) => {
    expect
      .soft(
        files(ROOT)
          .concat(files(join(ROOT, 'dist')))
          .filter((f) => f.includes(o.marker)),
        'cwd-checkout: files in the checkout',
      )
      .toEqual([]);
  },
  'kill-all': (o) =>
    expect.soft(logOf(o, 'kill'), 'kill-all: kill -9 -1 ran (inside its sandbox)').toMatch(/^kill -9 -1: sent/m),
  'argv-literal': (o) => {
    const file = join(o.dir, `argv${o.marker}.json`);
    const argv = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as string[]) : [];
    expect
      .soft(argv.slice(3), 'argv-literal: the arguments as written')
      .toEqual(o.row.args!({ root: ROOT, reports: '', dir: o.dir, marker: o.marker }));
    expect
      .soft(
        files(o.dir)
          .concat(files(ROOT))
          .filter((f) => f.startsWith('pwned')),
        'argv-literal: a shell ran',
      )
      .toEqual([]);
  },
  'env-a': (o) => judgeEnvDump(o, [...BASE_ENV, o.tokenEnv!], otherTokens(o)),
  'env-b': (o) => judgeEnvDump(o, [...BASE_ENV, o.tokenEnv!], otherTokens(o)),
  'env-c': (o) => judgeEnvDump(o, BASE_ENV, otherTokens(o)),
  'hostile-text': (o) => {
    // The text did reach the outputs, escaped: results.json (JSON), junit.xml (XML), the report (HTML).
    expect
      .soft(JSON.stringify(o.results), 'hostile-text: the forged line is in results.json')
      .toContain('FAKE: conformant (99 passed');
    expect
      .soft(readFileSync(join(o.reportDir, 'index.html'), 'utf8'), 'hostile-text: the report shows the markup as text')
      .toContain('&lt;script&gt;alert(');
  },
  'deep-nesting': (o) => {
    // Our parser takes any depth; the check must still state its finding, not crash on quoting it.
    const c = o.results?.checks.find((x) => x.id === 'base.unknown-method');
    expect.soft(c?.message, 'deep-nesting: the finding').toMatch(/expected a JSON-RPC error/);
    expect.soft(c?.message, 'deep-nesting: no runner crash').not.toMatch(/RangeError|call stack/);
  },
  redirect: (o) => expect.soft(logOf(o, 'followed'), 'redirect: the runner followed it').toBeUndefined(),
  'echo-token': (o) => {
    const c = o.results?.checks.find((x) => x.id === 'base.no-secret-leak');
    expect.soft(c?.message, 'echo-token: the leak is the finding').toMatch(/token/);
  },
  'token-stderr-exit': (o) =>
    expect
      .soft(o.results?.reason, 'token-stderr-exit: why')
      .toMatch(/could not start the implementation: server exited with code 3/),
  'http-daemonize': (o) =>
    expect
      .soft(o.results?.reason, 'http-daemonize: why')
      .toMatch(/could not start the implementation: server exited with code 0/),
  'adapter-outside': (o) => {
    const log = logOf(o, 'outside') ?? '';
    expect.soft(log.trim().split('\n').length, 'adapter-outside: the writes it tried').toBeGreaterThanOrEqual(6);
    expect
      .soft(
        log.split('\n').filter((l) => l.endsWith(': ok')),
        'adapter-outside: writes that succeeded',
      )
      .toEqual([]);
    for (const d of [ROOT, '/tmp', '/etc', process.env.HOME ?? '/root']) {
      expect
        .soft(
          files(d).filter((f) => f.includes(o.marker)),
          `adapter-outside: files in ${d}`,
        )
        .toEqual([]);
    }
  },
  'adapter-forge-collector': (o) => {
    expect.soft(logOf(o, 'collector'), 'adapter-forge-collector: it tried').toMatch(/without a key/);
    const c = o.results?.checks.find((x) => x.id === 'base.harness-version');
    expect
      .soft(JSON.stringify(c?.transcript ?? []), 'adapter-forge-collector: the refused connections are noted')
      .toMatch(/2 connection\(s\) to the wire collector without this run's key were refused/);
  },
  'adapter-env': (o) =>
    judgeEnvDump(o, [...BASE_ENV, 'AHP_ADAPTER_CONFIG', 'AHP_CONFORMANCE_TEST_TOKEN'], otherTokens(o)),
};

test.describe('hostile corpus (test/hostile/README.md)', () => {
  for (const batch of CORPUS) {
    test(`${batch.id}: ${batch.rows.map((r) => r.id).join(', ')}`, async () => {
      test.skip(!CONTAINED, NOT_CONTAINED);
      test.setTimeout(300_000);
      const b = await runBatch(batch, NONCE);
      for (const id of b.rows.keys()) batchesByRow.set(id, b);
      try {
        judgeBatch(b);
      } finally {
        if (!process.env.AHP_HOSTILE_KEEP) removeBatch(b);
      }
    });
  }
});

test.describe('hostile claims: refused with one line and exit 2 before anything starts', () => {
  const made: string[] = [];
  test.afterAll(() => {
    for (const d of made) rmSync(d, { recursive: true, force: true });
  });

  /** `run` on claims (file name -> claim object) with these variables set. */
  function run(
    claims: Record<string, object>,
    env: Record<string, string>,
  ): { code: number | null; out: string; err: string; dir: string } {
    const dir = mkdtempSync(join(tmpdir(), 'ahp-hostile-claims-'));
    made.push(dir);
    const paths = Object.entries(claims).map(([name, claim]) => {
      writeFileSync(join(dir, name), JSON.stringify(claim));
      return name;
    });
    const r = spawnSync(process.execPath, [BIN, 'run', ...paths, '--reports', join(dir, 'reports')], {
      encoding: 'utf8',
      cwd: dir,
      timeout: 60_000,
      env: { ...process.env, AHP_PROGRESS: 'line', ...env },
    });
    return { code: r.status, out: r.stdout, err: r.stderr, dir };
  }

  const launched = (dir: string): boolean => existsSync(join(dir, 'launched'));
  // Would leave a file behind if it ever started.
  const stdio = (name: string, passEnv?: string[]): object => ({
    implementation: { name, version: '1.0.0' },
    role: 'backend',
    transports: ['stdio'],
    profiles: ['tool-interception'],
    backend: {
      stdio: {
        command: process.execPath,
        args: ['-e', 'require("fs").writeFileSync("launched", "")'],
        ...(passEnv ? { passEnv } : {}),
      },
    },
  });
  const http = (name: string, tokenEnv: string): object => ({
    implementation: { name, version: '1.0.0' },
    role: 'backend',
    transports: ['http'],
    profiles: ['tool-interception'],
    backend: {
      http: {
        command: process.execPath,
        args: ['-e', 'require("fs").writeFileSync("launched", "")', '{port}'],
        url: 'http://127.0.0.1:{port}/ahp',
        auth: { type: 'bearer', tokenEnv },
      },
    },
  });
  const tokens = {
    AHP_HOSTILE_TOKEN_A: `ahp-hostile-secret-${NONCE}-a`,
    AHP_HOSTILE_TOKEN_B: `ahp-hostile-secret-${NONCE}-b`,
  };

  function refused(r: ReturnType<typeof run>, line: RegExp): void {
    expect(r.code, r.out + r.err).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err.trim()).toMatch(line);
    expect(r.out).toBe('');
    expect(`${r.out}${r.err}`).not.toMatch(RAW_TERMINAL);
    for (const t of Object.values(tokens)) expect(`${r.out}${r.err}`).not.toContain(t);
    expect(launched(r.dir)).toBe(false);
    expect(existsSync(join(r.dir, 'reports'))).toBe(false);
  }

  test("a claim whose passEnv names another claim's token variable", () => {
    refused(
      run(
        { 'a.yaml': http('vendor-a', 'AHP_HOSTILE_TOKEN_A'), 'b.yaml': stdio('vendor-b', ['AHP_HOSTILE_TOKEN_A']) },
        tokens,
      ),
      /^ahp-conformance: b\.yaml: backend\.stdio\.passEnv: AHP_HOSTILE_TOKEN_A is the token variable of a\.yaml; no claim gets another claim's token$/,
    );
  });

  test('a second claim naming the same token variable', () => {
    refused(
      run(
        { 'a.yaml': http('vendor-a', 'AHP_HOSTILE_TOKEN_A'), 'b.yaml': http('vendor-b', 'AHP_HOSTILE_TOKEN_A') },
        tokens,
      ),
      /^ahp-conformance: b\.yaml: backend\.http\.auth\.tokenEnv AHP_HOSTILE_TOKEN_A is the token variable of a\.yaml too;/,
    );
  });

  test("a second claim naming another claim's token variable as its upload token", () => {
    const b = http('vendor-b', 'AHP_HOSTILE_TOKEN_B') as { backend: Record<string, unknown> };
    b.backend.upload = {
      url: 'http://127.0.0.1:{port}/uploads',
      maxBytes: 1024,
      auth: { type: 'bearer', tokenEnv: 'AHP_HOSTILE_TOKEN_A' },
    };
    refused(
      run({ 'a.yaml': http('vendor-a', 'AHP_HOSTILE_TOKEN_A'), 'b.yaml': b }, tokens),
      /^ahp-conformance: b\.yaml: backend\.upload\.auth\.tokenEnv AHP_HOSTILE_TOKEN_A is the token variable of a\.yaml too;/,
    );
  });

  for (const name of ['AHP_RUN_FOLDER', 'TEST_WORKER_INDEX', 'AHP_CONFORMANCE_TEST_TOKEN']) {
    test(`a claim whose passEnv names the runner's own ${name}`, () => {
      refused(
        run({ 'a.yaml': stdio('vendor-a', ['PATH', name]) }, {}),
        new RegExp(
          `^ahp-conformance: a\\.yaml: backend\\.stdio\\.passEnv: ${name} is a variable the runner sets for itself; no implementation gets it$`,
        ),
      );
    });
  }
});
