// Hostile corpus, writes and reads that cannot be redirected (test/hostile/README.md, rows
// B1..): links planted where the runner writes, hard links where it reads, files handed to
// it that are not regular files (/dev/zero, FIFOs, folders, huge ones), claim working
// folders inside the reports folder, and what an implementation leaves in its TMPDIR
// (a file made immutable, a tree 3000 folders deep, links to outside). Every row runs the
// real CLI, and every runner process of it (the CLI, Playwright's runner and workers) stays
// under 300 MB at its peak (test/support/peak-rss.cjs reports each one's VmHWM at exit).
import { test, expect } from '@playwright/test';
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { removeTree } from '../src/safe-fs.js';
import { verifyClaimFolder } from '../src/results/verify.js';
import type { ClaimResults } from '../src/results/model.js';
import { RAW_TERMINAL } from '../scripts/hostile-corpus.js';
import { ROOT } from './support/paths.js';
import { tempFolders } from './support/temp.js';

const BIN = resolve(ROOT, 'bin', 'ahp-conformance.js');
const IMPL = resolve(ROOT, 'test', 'hostile', 'impl.cjs');
const PEAK_HOOK = resolve(ROOT, 'test', 'support', 'peak-rss.cjs');
const MB = 1024 * 1024;
const PEAK_RSS_LIMIT = 300 * MB;
const MARK = `--ahp-hostile-fs-${process.pid.toString(36)}`;
const temp = tempFolders('ahp-hostile-fs-');

interface Cli {
  code: number | null;
  out: string;
  err: string;
  /** The largest peak RSS of a runner process, and how many reported. */
  peak: number;
  processes: number;
}

let peaks = 0;
function env(dir: string): { env: NodeJS.ProcessEnv; peakFile: string } {
  const peakFile = join(dir, `.peak-${++peaks}.jsonl`);
  return {
    peakFile,
    env: {
      ...process.env,
      AHP_PROGRESS: 'line',
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${PEAK_HOOK}`.trim(),
      AHP_PEAK_RSS_FILE: peakFile,
    },
  };
}

function peakOf(peakFile: string): { peak: number; processes: number } {
  const lines = existsSync(peakFile) ? readFileSync(peakFile, 'utf8').trim().split('\n').filter(Boolean) : [];
  const rss = lines.map((l) => (JSON.parse(l) as { rss: number }).rss);
  return { peak: Math.max(0, ...rss), processes: rss.length };
}

/** The CLI in `dir`, to its end (a row that must not hang is bounded by the spawn's timeout). */
function cli(dir: string, args: string[]): Cli {
  const e = env(dir);
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: 'utf8', timeout: 120_000, env: e.env });
  return { code: r.status, out: r.stdout, err: r.stderr, ...peakOf(e.peakFile) };
}

/** The CLI in `dir`, while `meanwhile` runs (a row that acts on what the implementation does). */
async function cliWhile(dir: string, args: string[], meanwhile: () => Promise<void>): Promise<Cli> {
  const e = env(dir);
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: e.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = new Promise<number | null>((r) => child.on('close', (c) => r(c)));
  await meanwhile();
  return { code: await code, out, err, ...peakOf(e.peakFile) };
}

function withinMemory(r: Cli): void {
  expect(r.processes, 'runner processes that reported their peak RSS').toBeGreaterThan(0);
  expect(r.peak, `peak RSS of a runner process: ${(r.peak / MB).toFixed(0)} MB`).toBeLessThan(PEAK_RSS_LIMIT);
}

/** Refused: exit 2, one line on stderr matching `line`, nothing raw, nothing on stdout. */
function refused(r: Cli, line: RegExp): void {
  expect(r.code, r.out + r.err).toBe(2);
  expect(r.err.trim().split('\n'), r.err).toHaveLength(1);
  expect(r.err.trim()).toMatch(line);
  expect(r.out).toBe('');
  expect(r.out + r.err).not.toMatch(RAW_TERMINAL);
  expect(r.err).not.toMatch(/\n\s+at /); // no stack
  withinMemory(r);
}

/** A claim that is incomplete (no transport): refused with exit 2, but its report is written, nothing launched. */
const incomplete = (name: string): object => ({
  implementation: { name, version: '1.0.0' },
  role: 'backend',
  transports: [],
  profiles: ['tool-interception'],
});

/** An outside folder with a file that must stay as it is. */
function outside(root: string): { dir: string; file: string } {
  const dir = join(root, 'outside');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'keep.txt');
  writeFileSync(file, 'keep');
  return { dir, file };
}
const untouched = (o: { dir: string; file: string }): void => {
  expect(readdirSync(o.dir), 'the outside folder').toEqual(['keep.txt']);
  expect(readFileSync(o.file, 'utf8')).toBe('keep');
};

const results = (dir: string): ClaimResults =>
  JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as ClaimResults;

const writeClaim = (dir: string, name: string, claim: object): string => {
  writeFileSync(join(dir, name), JSON.stringify(claim));
  return name;
};

test.describe('links planted where the runner writes its reports (B1-B4, B20)', () => {
  test('B1 B2 B3: a claim folder, report files and the matrix page that are symlinks are replaced, never written through', () => {
    const dir = temp();
    const o = outside(dir);
    const reports = join(dir, 'reports');
    mkdirSync(join(reports, 'linked-files'), { recursive: true });
    symlinkSync(o.dir, join(reports, 'linked-folder'));
    for (const f of ['results.json', 'junit.xml', 'index.html', 'regression.json'])
      symlinkSync(o.file, join(reports, 'linked-files', f));
    symlinkSync(o.file, join(reports, 'index.html'));
    const r = cli(dir, [
      'run',
      writeClaim(dir, 'a.yaml', incomplete('linked-folder')),
      writeClaim(dir, 'b.yaml', incomplete('linked-files')),
    ]);
    expect(r.code, r.err).toBe(2);
    withinMemory(r);
    untouched(o);
    for (const name of ['linked-folder', 'linked-files']) {
      const claimDir = join(reports, name);
      expect(lstatSync(claimDir).isDirectory(), `${name} is a real folder`).toBe(true);
      for (const f of ['results.json', 'junit.xml', 'index.html'])
        expect(lstatSync(join(claimDir, f)).isFile(), `${name}/${f} is a regular file`).toBe(true);
      expect(existsSync(join(claimDir, 'regression.json'))).toBe(false);
      expect(results(claimDir).verdict).toBe('incomplete');
      expect(verifyClaimFolder(claimDir).problems).toEqual([]);
    }
    expect(lstatSync(join(reports, 'index.html')).isFile(), 'the matrix page is a regular file').toBe(true);
  });

  test('B4: a partial run whose partial/ folder is a symlink writes into a real partial/ folder', () => {
    const dir = temp();
    const o = outside(dir);
    const claim = writeClaim(dir, 'a.yaml', incomplete('acme'));
    expect(cli(dir, ['run', claim]).code).toBe(2); // a full run's report
    symlinkSync(o.dir, join(dir, 'reports', 'partial'));
    const r = cli(dir, ['run', claim, '--grep', 'base']);
    expect(r.code, r.err).toBe(2);
    expect(r.out).toContain("this run's reports -> reports/partial");
    withinMemory(r);
    untouched(o);
    expect(lstatSync(join(dir, 'reports', 'partial')).isDirectory()).toBe(true);
    expect(verifyClaimFolder(join(dir, 'reports', 'partial', 'acme')).problems).toEqual([]);
  });

  test("B20: an earlier report's results.json that is a FIFO, a link to /dev/zero or a 10 GB file is passed over, not read", () => {
    const dir = temp();
    const reports = join(dir, 'reports');
    for (const n of ['fifo', 'zero', 'huge']) mkdirSync(join(reports, n), { recursive: true });
    expect(spawnSync('mkfifo', [join(reports, 'fifo', 'results.json')]).status).toBe(0);
    symlinkSync('/dev/zero', join(reports, 'zero', 'results.json'));
    writeFileSync(join(reports, 'huge', 'results.json'), '');
    truncateSync(join(reports, 'huge', 'results.json'), 10 * 1024 ** 3);
    const r = cli(dir, ['run', writeClaim(dir, 'a.yaml', incomplete('acme')), '--grep', 'base']);
    expect(r.code, r.err).toBe(2);
    withinMemory(r);
    // None of them counts as a full run's report (the partial run stays in the folder), and the matrix lists none.
    expect(existsSync(join(reports, 'acme', 'results.json'))).toBe(true);
    expect(readFileSync(join(reports, 'index.html'), 'utf8')).not.toMatch(/>(fifo|zero|huge)</);
  });
});

test.describe('files handed to the runner that are not regular files (B9-B16)', () => {
  test('B9 B10: verify of a folder whose results.json is a link to /dev/zero, or a FIFO', () => {
    const dir = temp();
    mkdirSync(join(dir, 'zero'));
    symlinkSync('/dev/zero', join(dir, 'zero', 'results.json'));
    refused(
      cli(dir, ['verify', 'zero']),
      /^ahp-conformance: verify: .*zero\/results\.json: it is a symbolic link; not read$/,
    );
    mkdirSync(join(dir, 'fifo'));
    expect(spawnSync('mkfifo', [join(dir, 'fifo', 'results.json')]).status).toBe(0);
    refused(
      cli(dir, ['verify', 'fifo']),
      /^ahp-conformance: verify: .*fifo\/results\.json: it is a named pipe \(FIFO\); not read$/,
    );
  });

  test("B11: verify of a folder whose junit.xml links to /etc/passwd: refused, the file's text shown nowhere", () => {
    const dir = temp();
    const claim = writeClaim(dir, 'a.yaml', incomplete('acme'));
    expect(cli(dir, ['run', claim]).code).toBe(2);
    const folder = join(dir, 'reports', 'acme');
    rmSync(join(folder, 'junit.xml'));
    symlinkSync('/etc/passwd', join(folder, 'junit.xml'));
    const r = cli(dir, ['verify', folder]);
    refused(r, /junit\.xml: it is a symbolic link; not read$/);
    expect(r.err).not.toContain('root:x:0:0');
  });

  test('B12: --expected-failures /dev/zero, a FIFO or a folder: one line, exit 2, no crash', () => {
    const dir = temp();
    const claim = writeClaim(dir, 'a.yaml', incomplete('acme'));
    refused(
      cli(dir, ['run', claim, '--expected-failures', '/dev/zero']),
      /^ahp-conformance: --expected-failures: cannot read \/dev\/zero: it is a device$/,
    );
    expect(spawnSync('mkfifo', [join(dir, 'expected.yaml')]).status).toBe(0);
    refused(
      cli(dir, ['run', claim, '--expected-failures', 'expected.yaml']),
      /expected\.yaml: it is a named pipe \(FIFO\)$/,
    );
    refused(cli(dir, ['run', claim, '--expected-failures', dir]), /: it is a folder$/);
    expect(existsSync(join(dir, 'reports'))).toBe(false);
  });

  test('B13: --baseline /dev/zero, or a FIFO: one line, exit 2', () => {
    const dir = temp();
    const claim = writeClaim(dir, 'a.yaml', incomplete('acme'));
    refused(
      cli(dir, ['run', claim, '--baseline', '/dev/zero']),
      /^ahp-conformance: --baseline: \/dev\/zero: it is a device$/,
    );
    expect(spawnSync('mkfifo', [join(dir, 'results.json')]).status).toBe(0);
    refused(
      cli(dir, ['run', claim, '--baseline', 'results.json']),
      /^ahp-conformance: --baseline: .*\/results\.json: it is a named pipe \(FIFO\)$/,
    );
    expect(existsSync(join(dir, 'reports'))).toBe(false);
  });

  test('B14: a claim file that is a FIFO, a link to /dev/zero, a folder or a 10 GB file: one line, exit 2, nothing launched', () => {
    const dir = temp();
    expect(spawnSync('mkfifo', [join(dir, 'fifo.yaml')]).status).toBe(0);
    refused(
      cli(dir, ['run', 'fifo.yaml']),
      /^ahp-conformance: fifo\.yaml: the claim is not a regular file: a named pipe \(FIFO\)$/,
    );
    symlinkSync('/dev/zero', join(dir, 'zero.yaml'));
    refused(
      cli(dir, ['run', 'zero.yaml']),
      /^ahp-conformance: zero\.yaml: the claim is not a regular file: a symbolic link$/,
    );
    mkdirSync(join(dir, 'folder.yaml'));
    refused(cli(dir, ['run', 'folder.yaml']), /folder\.yaml: the claim is not a regular file: a folder$/);
    writeFileSync(join(dir, 'huge.yaml'), '');
    truncateSync(join(dir, 'huge.yaml'), 10 * 1024 ** 3);
    refused(cli(dir, ['run', 'huge.yaml']), /^ahp-conformance: huge\.yaml: the claim file is larger than 1 MiB$/);
    expect(existsSync(join(dir, 'reports'))).toBe(false);
  });

  test('B15: validate of /dev/zero and merge of a FIFO named like a blob: one line, exit 2', () => {
    const dir = temp();
    refused(cli(dir, ['validate', '/dev/zero']), /^ahp-conformance: cannot read \/dev\/zero: it is a device$/);
    expect(spawnSync('mkfifo', [join(dir, 'shard.zip')]).status).toBe(0);
    refused(
      cli(dir, ['merge', 'shard.zip']),
      /^ahp-conformance: merge: shard\.zip is neither a folder nor a blob report/,
    );
  });
});

test.describe("claim working folders in the runner's folders (B16, B17)", () => {
  const stdio = (name: string, cwd: string): object => ({
    implementation: { name, version: '1.0.0' },
    role: 'backend',
    transports: ['stdio'],
    profiles: ['tool-interception'],
    backend: { stdio: { command: process.execPath, args: ['-e', 'require("fs").writeFileSync("launched", "")'], cwd } },
  });

  test('B16: a claim whose cwd is the reports folder: one line, exit 2, nothing launched', () => {
    const dir = temp();
    mkdirSync(join(dir, 'reports'));
    refused(
      cli(dir, ['run', writeClaim(dir, 'a.yaml', stdio('acme', 'reports'))]),
      /^ahp-conformance: a\.yaml: backend\.stdio\.cwd: .*\/reports is the reports folder \(.*\/reports\); an implementation may write its working folder, so give it one of its own$/,
    );
    expect(existsSync(join(dir, 'reports', 'launched'))).toBe(false);
  });

  test('B17: a claim whose cwd is inside the reports folder, or reaches it through a link: refused alike', () => {
    const dir = temp();
    mkdirSync(join(dir, 'out', 'acme'), { recursive: true });
    refused(
      cli(dir, ['run', writeClaim(dir, 'a.yaml', stdio('acme', 'out/acme')), '--reports', 'out']),
      /backend\.stdio\.cwd: .*\/out\/acme is inside the reports folder/,
    );
    symlinkSync(join(dir, 'out'), join(dir, 'via-link'));
    refused(
      cli(dir, ['run', writeClaim(dir, 'b.yaml', stdio('acme', 'via-link')), '--reports', 'out']),
      /backend\.stdio\.cwd: .*\/via-link is the reports folder/,
    );
  });
});

test.describe('what a harness adapter plants in its run folders (B5, B6)', () => {
  const harness = (name: string, args: string[]): object => ({
    implementation: { name, version: '1.0.0' },
    role: 'harness',
    transports: ['stdio'],
    profiles: ['tool-interception'],
    timeoutMs: 100,
    harness: {
      command: process.execPath,
      args: [IMPL, `${MARK}-${name}`, ...args, '--config', '{config}'],
      lifecycles: ['persistent'],
    },
  });

  test('B5: run folders of later scenarios symlinked elsewhere: their configs are not written through the links', () => {
    test.setTimeout(180_000);
    const dir = temp();
    const o = outside(dir);
    const claim = writeClaim(
      dir,
      'a.yaml',
      harness('plant-runs', ['--mode', 'adapter-plant-runs', '--outside', o.dir]),
    );
    const r = cli(dir, ['run', claim, '--grep', 'base\\.registration-validated']);
    expect([1, 2], r.out + r.err).toContain(r.code);
    withinMemory(r);
    untouched(o);
    const res = results(join(dir, 'reports', 'plant-runs'));
    const check = res.checks.find((c) => c.id === 'base.registration-validated');
    // It started more runs than run at once: later runs found the planted links and replaced them.
    expect(
      JSON.stringify(check?.transcript ?? []).match(/adapter started with [^"]*run-(\d+)/g)?.length ?? 0,
    ).toBeGreaterThan(4);
  });

  test('B6: an adapter report that is a hard link to another file is refused, not read', () => {
    test.setTimeout(120_000);
    const dir = temp();
    const canary = `ahp-hardlink-canary-${process.pid}`;
    const claim = writeClaim(dir, 'a.yaml', harness('hardlink', ['--mode', 'adapter-hardlink', '--canary', canary]));
    const r = cli(dir, ['run', claim, '--grep', 'base\\.harness-version']);
    expect(r.code, r.out + r.err).toBe(1);
    withinMemory(r);
    const folder = join(dir, 'reports', 'hardlink');
    const text = ['results.json', 'junit.xml', 'index.html'].map((f) => readFileSync(join(folder, f), 'utf8')).join('');
    expect(text).toContain('the report was not read: it has 2 links');
    expect(text + r.out + r.err).not.toContain(canary);
  });
});

test.describe('what an implementation leaves in its TMPDIR (B7, B8, B18, B19)', () => {
  test('B7 B8 B18 B19: an immutable file, a 3000-deep tree and links to outside in TMPDIR: the run ends with its verdict, the clean-up warns, nothing outside is touched', async () => {
    test.setTimeout(180_000);
    const dir = temp();
    const o = outside(dir);
    const litter = (name: string, stuck: boolean): object => ({
      implementation: { name, version: '1.0.0' },
      role: 'backend',
      transports: ['stdio'],
      profiles: ['tool-interception'],
      timeoutMs: 2000,
      backend: {
        stdio: {
          command: process.execPath,
          args: [
            IMPL,
            `${MARK}-${name}`,
            '--mode',
            'tmpdir-litter',
            '--outside',
            o.dir,
            '--outside-file',
            o.file,
            ...(stuck ? ['--stuck'] : []),
          ],
        },
      },
    });
    // The claims' working folder (this folder) holds the reports folder: allowed (B19).
    const files = [
      writeClaim(dir, 'deep.yaml', litter('deep', false)),
      writeClaim(dir, 'stuck.yaml', litter('stuck', true)),
    ];
    let stuck: string | undefined;
    let immutable = false;
    const r = await cliWhile(dir, ['run', ...files, '--grep', 'base\\.unknown-method', '--workers', '2'], async () => {
      // The implementation says where its file is; made immutable here (as root), then it goes on.
      const at = join(dir, 'stuck-path');
      for (let i = 0; i < 6000 && !existsSync(at); i++) await new Promise((res) => setTimeout(res, 10));
      if (existsSync(at)) {
        stuck = readFileSync(at, 'utf8');
        immutable = spawnSync('chattr', ['+i', stuck]).status === 0;
      }
      writeFileSync(join(dir, 'go'), '');
    });
    try {
      expect(stuck, 'the implementation wrote its file').toBeDefined();
      expect([0, 1], r.out + r.err).toContain(r.code);
      expect(r.err).not.toMatch(/internal error|Maximum call stack|ENOTDIR/);
      withinMemory(r);
      untouched(o);
      const deep = results(join(dir, 'reports', 'deep'));
      expect(deep.verdict).not.toBe('incomplete');
      expect(['passed', 'warning']).toContain(deep.checks.find((c) => c.id === 'base.unknown-method')?.status);
      if (immutable) {
        // The work folder keeps only the immutable file; the warning is in every claim's results.
        const work = dirname(dirname(stuck!));
        expect(readdirSync(work)).toEqual([dirname(stuck!).slice(work.length + 1)]);
        expect(readdirSync(dirname(stuck!))).toEqual(['stuck']);
        for (const name of ['deep', 'stuck']) {
          const w = results(join(dir, 'reports', name)).run?.warnings ?? [];
          expect(w, name).toHaveLength(1);
          expect(w[0]).toMatch(
            /^clean-up: the run's work folder .* was not removed entirely \(1 entry left; stuck \(EPERM\)\)$/,
          );
        }
        expect(r.err).toMatch(/^ahp-conformance: warning: clean-up: the run's work folder/m);
        expect(verifyClaimFolder(join(dir, 'reports', 'stuck')).problems).toEqual([]);
      } else {
        test.info().annotations.push({ type: 'note', description: 'chattr +i was not possible here: B7 not judged' });
        expect(existsSync(dirname(dirname(stuck!)))).toBe(false);
      }
    } finally {
      if (stuck && immutable) {
        spawnSync('chattr', ['-i', stuck]);
        removeTree(dirname(dirname(stuck)));
      }
    }
  });
});
