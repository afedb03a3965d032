// docs/nightly.md's GitHub Actions workflow is the recipe users paste: it must be a valid
// workflow (YAML, then actionlint with shellcheck) and its steps must work. Its `run:`
// scripts are taken from the page and run locally in their two-shard form, with the
// bundled claims (over HTTP) as the vendors: each job on a "machine" folder of its own, `uses:` steps
// emulated (checkout copies the repository, the artifact actions copy folders), `gh`
// stubbed, the tarball installed from a loopback registry. Night one must merge to the
// matrix of both claims, conformant; night two must compare with night one.
import { test, expect } from '@playwright/test';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import YAML, { parseDocument } from 'yaml';
import type { ClaimResults } from '../../src/results/model.js';
import { installEnv, loopbackRegistry, packThisPackage, type LoopbackRegistry } from '../support/package.js';
import { ROOT } from '../support/paths.js';
import { tempFolders } from '../support/temp.js';

test.describe.configure({ mode: 'serial' });
test.setTimeout(10 * 60_000);

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string | number>;
  with?: Record<string, string | number>;
}
interface Job {
  needs?: string;
  strategy?: { matrix?: Record<string, (string | number)[]> };
  env?: Record<string, string | number>;
  steps: Step[];
}
interface Workflow {
  env?: Record<string, string | number>;
  jobs: Record<string, Job>;
}

/** The YAML block of docs/nightly.md that is the workflow (the one with `jobs:`). */
function workflowText(): string {
  const page = readFileSync(join(ROOT, 'docs', 'nightly.md'), 'utf8');
  const blocks = [...page.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  const found = blocks.filter((b) => /^jobs:/m.test(b));
  expect(found, 'docs/nightly.md has one workflow block').toHaveLength(1);
  return found[0]!;
}

function parseWorkflow(): Workflow {
  const doc = parseDocument(workflowText(), { prettyErrors: true, uniqueKeys: true });
  expect(doc.errors.map((e) => e.message)).toEqual([]);
  expect(doc.warnings.map((e) => e.message)).toEqual([]);
  return doc.toJS() as Workflow;
}

/** actionlint: on PATH, or where `go install` puts it (.ci/run installs it so). */
function actionlint(): string {
  const candidates = [
    process.env.ACTIONLINT,
    ...(process.env.PATH ?? '').split(':').map((d) => join(d, 'actionlint')),
    join(process.env.GOPATH ?? join(homedir(), 'go'), 'bin', 'actionlint'),
  ].filter((c): c is string => !!c);
  const found = candidates.find((c) => existsSync(c));
  if (!found)
    throw new Error(
      'actionlint not found (on PATH or in $GOPATH/bin): go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12 (.ci/run does)',
    );
  return found;
}

const temp = tempFolders('ahp-nightly-');

test('the workflow in docs/nightly.md is valid YAML and passes actionlint with shellcheck', () => {
  const wf = parseWorkflow();
  expect(Object.keys(wf.jobs)).toEqual(['shard', 'merge']);
  // Values reach scripts through env:, never pasted into shell code.
  for (const job of Object.values(wf.jobs))
    for (const step of job.steps) expect(step.run ?? '', 'no ${{ }} in a run: script').not.toContain('${{');

  const repo = temp();
  mkdirSync(join(repo, '.github', 'workflows'), { recursive: true });
  writeFileSync(join(repo, '.github', 'workflows', 'nightly.yml'), workflowText());
  const r = spawnSync(actionlint(), ['-verbose', '-no-color', '.github/workflows/nightly.yml'], {
    cwd: repo,
    encoding: 'utf8',
  });
  expect(r.stdout, r.stderr).toBe('');
  expect(r.status, r.stderr).toBe(0);
  // Without shellcheck, actionlint skips the scripts silently.
  expect(r.stderr).not.toMatch(/Rule "shellcheck" was disabled/);
});

/** `${{ ... }}` with the few contexts the workflow's env: and with: values use. */
function expand(value: string | number, matrix: Record<string, string | number>): string {
  return String(value).replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, expr: string) => {
    const m = /^matrix\.(\w+)$/.exec(expr);
    if (m && m[1]! in matrix) return String(matrix[m[1]!]);
    if (expr === 'github.token') return 'local-token';
    if (expr === 'github.repository') return 'local/vendors';
    throw new Error(`the local run does not know \${{ ${expr} }}`);
  });
}

const expandAll = (
  values: Record<string, string | number> | undefined,
  matrix: Record<string, string | number>,
): Record<string, string> => Object.fromEntries(Object.entries(values ?? {}).map(([k, v]) => [k, expand(v, matrix)]));

/** A `run:` script as GitHub's runner runs it on Linux (`bash -e {0}` with pipefail). */
function runScript(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', (code) => done({ code, out }));
  });
}

/** `gh` for the local run: `run list` names the last good night, `run download` copies its artifact. */
const GH_STUB = `#!/usr/bin/env bash
set -eu
if [ "$1 $2" = "run list" ]; then
  [ -z "\${STUB_LAST_RUN:-}" ] || echo "$STUB_LAST_RUN"
  exit 0
fi
if [ "$1 $2" = "run download" ]; then
  run=$3; shift 3
  while [ $# -gt 0 ]; do
    case $1 in --name) name=$2; shift 2 ;; --dir) dir=$2; shift 2 ;; *) shift ;; esac
  done
  mkdir -p "$dir"
  cp -R "$STUB_ARTIFACTS/$run/$name/." "$dir"
  exit 0
fi
echo "gh stub: unexpected $*" >&2
exit 1
`;

interface Night {
  /** Every step's output, by job. */
  output: Record<string, string>;
  /** The merge machine's folder. */
  merged: string;
}

test.describe('the workflow run locally in its two-shard form', () => {
  let dir: string;
  let registry: LoopbackRegistry;
  let wf: Workflow;
  let repo: string;
  let stubs: string;

  test.beforeAll(async () => {
    wf = parseWorkflow();
    dir = temp();
    const tools = join(dir, 'dist-tarball');
    mkdirSync(tools);
    const tarball = packThisPackage(tools);
    mkdirSync(join(dir, 'registry'));
    registry = await loopbackRegistry(join(dir, 'registry'));

    // The vendors' repository: the bundled claims as two vendors, whose setup.sh puts the
    // implementation where the claims name it (as a vendor's would install its own).
    repo = join(dir, 'repo');
    const vendors = join(repo, 'vendors');
    mkdirSync(join(vendors, 'reference'), { recursive: true });
    // Over HTTP only: the recipe's steps do not depend on the claim's transports, and the
    // whole claims would certify as much as `npm run conformance` again (test:packaging keeps its time).
    for (const name of ['reference-backend', 'reference-harness']) {
      const claim = YAML.parse(
        readFileSync(join(ROOT, 'claims', `${name}.yaml`), 'utf8').replaceAll('../dist/', 'reference/impl/dist/'),
      ) as { transports: string[]; backend?: { stdio?: unknown }; harness?: { lifecycles?: unknown } };
      claim.transports = ['http'];
      delete claim.backend?.stdio;
      delete claim.harness?.lifecycles;
      writeFileSync(join(vendors, `${name}.yaml`), YAML.stringify(claim));
    }
    writeFileSync(
      join(vendors, 'reference', 'setup.sh'),
      'cp -R "$(npm root --global)/ahp-conformance" "$(dirname "$0")/impl"\n',
    );
    writeFileSync(join(repo, 'expected-failures.yaml'), 'expected: []\n');
    // The tarball where the workflow's AHP_CONFORMANCE names it.
    const spec = String(wf.env?.AHP_CONFORMANCE ?? '');
    expect(spec, 'AHP_CONFORMANCE names a tarball in the repository').toMatch(/^\.\/.*\.tgz$/);
    mkdirSync(resolve(repo, spec, '..'), { recursive: true });
    cpSync(tarball, resolve(repo, spec));

    stubs = join(dir, 'stubs');
    mkdirSync(stubs);
    writeFileSync(join(stubs, 'gh'), GH_STUB, { mode: 0o755 });
  });
  test.afterAll(async () => {
    await registry?.close();
  });

  /** One night: every job, every matrix entry on its own machine folder, in `needs` order. */
  async function night(n: number, lastGoodNight?: number, shardsOf?: number): Promise<Night> {
    const base = join(dir, `night-${n}`);
    const artifacts = join(base, 'artifacts');
    const output: Record<string, string> = {};
    let merged = '';
    // To spare the machine, a night may take another night's artifacts, for their shard blobs
    // (the same claims and tool); its merge job runs as usual.
    if (shardsOf !== undefined) cpSync(join(dir, `night-${shardsOf}`, 'artifacts'), artifacts, { recursive: true });
    for (const [jobName, job] of Object.entries(wf.jobs)) {
      if (shardsOf !== undefined && jobName !== 'merge') continue;
      const axes = Object.entries(job.strategy?.matrix ?? {});
      expect(axes.length, 'at most one matrix axis').toBeLessThanOrEqual(1);
      const entries = axes.length ? axes[0]![1].map((v) => ({ [axes[0]![0]]: v })) : [{}];
      for (const matrix of entries) {
        const machine = join(base, `${jobName}${Object.values(matrix).join('')}`);
        const work = join(machine, 'work');
        mkdirSync(work, { recursive: true });
        const env: NodeJS.ProcessEnv = {
          ...installEnv(join(machine, 'prefix'), registry, join(dir, 'npm-cache')),
          ...expandAll(wf.env, matrix),
          ...expandAll(job.env, matrix),
          AHP_PROGRESS: 'line',
          STUB_ARTIFACTS: dir,
          STUB_LAST_RUN: lastGoodNight === undefined ? '' : join(`night-${lastGoodNight}`, 'artifacts'),
        };
        env.PATH = `${stubs}:${env.PATH}`;
        let log = '';
        for (const step of job.steps) {
          const uses = step.uses?.replace(/@.*/, '');
          const w = expandAll(step.with, matrix);
          if (uses === 'actions/checkout') cpSync(repo, work, { recursive: true });
          else if (uses === 'actions/setup-node') expect(Number(w['node-version'])).toBeGreaterThanOrEqual(20);
          else if (uses === 'actions/upload-artifact')
            cpSync(join(work, w.path!), join(artifacts, w.name!), { recursive: true });
          else if (uses === 'actions/download-artifact') {
            const pattern = new RegExp(`^${w.pattern!.replace(/\*/g, '.*')}$`);
            for (const a of readdirSync(artifacts).filter((a) => pattern.test(a)))
              cpSync(join(artifacts, a), join(work, w.path!, a), { recursive: true });
          } else if (step.run !== undefined) {
            const r = await runScript(step.run, work, { ...env, ...expandAll(step.env, matrix) });
            log += `--- ${step.name ?? step.run}\n${r.out}`;
            expect(r.code, `${jobName} ${JSON.stringify(matrix)}: ${step.name ?? step.run}\n${r.out}`).toBe(0);
          } else throw new Error(`the local run does not know the step ${JSON.stringify(step)}`);
        }
        output[`${jobName}${Object.values(matrix).join('')}`] = log;
        if (jobName === 'merge') merged = work;
      }
    }
    return { output, merged };
  }

  const results = (reports: string, name: string): ClaimResults =>
    JSON.parse(readFileSync(join(reports, name, 'results.json'), 'utf8')) as ClaimResults;

  test('night one: the shards merge to both claims conformant and the matrix page', async () => {
    const { output, merged } = await night(1);
    const reports = join(merged, 'reports');
    for (const name of ['reference-backend', 'reference-harness']) {
      expect(results(reports, name).verdict).toBe('conformant');
      expect(output.merge).toMatch(new RegExp(`^${name} 0\\.1\\.0: conformant \\(`, 'm'));
    }
    // Each shard wrote only its blob (its working files were in a private folder); the merge had both.
    for (const shard of ['shard1', 'shard2'])
      expect(readdirSync(join(dir, 'night-1', shard, 'work', 'reports')).filter((f) => !f.startsWith('.'))).toEqual([
        'blob',
      ]);
    expect(readdirSync(join(merged, 'blobs')).sort()).toEqual(['blob-1', 'blob-2']);
    const matrix = readFileSync(join(reports, 'index.html'), 'utf8');
    expect(matrix).toContain('reference-backend');
    expect(matrix).toContain('reference-harness');
    // The first night has no baseline: the merge ran without one.
    expect(output.merge).not.toContain('vs baseline');
    expect(existsSync(join(merged, 'last-night'))).toBe(false);
  });

  test("night two: the merge compares with night one's reports", async () => {
    const { output } = await night(2, 1, 1);
    for (const name of ['reference-backend', 'reference-harness'])
      expect(output.merge).toMatch(
        new RegExp(
          `^${name} 0\\.1\\.0: conformant[^\\n]*\\n(  [^\\n]*\\n)*?  vs baseline: 0 new failures, 0 fixed`,
          'm',
        ),
      );
  });
});
