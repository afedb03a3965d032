// Our own hostile corpus (test/hostile/README.md): the table of hostile implementations,
// run in batches through the real CLI, with what a judge needs measured around each run:
// wall time, the peak resident set size of every runner process, the processes a
// behaviour left behind, the closing lines and every file the run wrote. No assertions
// here: test/hostile.spec.ts judges, `npm run bench` prints.
//
// Every process of a behaviour carries `--ahp-hostile-<nonce>-<id>` in its argv (the
// helper program test/hostile/impl.cjs passes it on to everything it starts), so its
// leftovers are found by scanning /proc/*/cmdline, whatever they did to hide.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import type { CheckStatus, ClaimResults, Verdict } from '../src/results/model.js';
import { packageRoot } from '../src/package-root.js';

export type RowKind = 'stdio' | 'per_event' | 'http' | 'harness';

/** Where a row's claim and arguments point. */
export interface RowContext {
  /** The runner's package root (the checkout). */
  root: string;
  /** The batch's reports folder. */
  reports: string;
  /** The row's own folder (its claim file and default working folder). */
  dir: string;
  marker: string;
}

export interface HostileRow {
  /** The implementation name, the row's folder and the end of its marker. */
  id: string;
  /** The behaviour, in a few words. */
  what: string;
  kind: RowKind;
  /** test/hostile/impl.cjs --mode */
  mode: string;
  /** The checks this row runs (the batch's --grep selects exactly these per row). */
  checks: string[];
  verdict: Verdict;
  /** Check id -> the statuses it may end with (default for every check: failed). */
  statuses?: Record<string, CheckStatus[]>;
  /** Extra arguments for impl.cjs. */
  args?: (c: RowContext) => string[];
  /** The claim's working folder (default: the row's folder). */
  cwd?: (c: RowContext) => string;
  passEnv?: string[];
  /** The claim's timeoutMs (default CORPUS_TIMEOUT_MS); longer for rows whose verdict needs a timely reply. */
  timeoutMs?: number;
}

export interface Batch {
  id: string;
  rows: HostileRow[];
  /** The reports folder is inside this row's folder (its working folder holds the verdicts). */
  reportsInside?: string;
}

/**
 * The claims' timeoutMs: short, so that the corpus stays affordable. A silent implementation
 * costs a check its patience (5 x timeoutMs, src/timing.ts) per probe; rows whose verdict
 * needs a reply in time (on a loaded machine) take REPLY_TIMEOUT_MS.
 */
export const CORPUS_TIMEOUT_MS = 100;
export const REPLY_TIMEOUT_MS = 250;

const failed = (id: string): Record<string, CheckStatus[]> => ({ [id]: ['failed'] });
const UNKNOWN = 'base.unknown-method';
const HTTP = 'http.intercept-response';
const HARNESS = 'base.harness-version';

export const CORPUS: Batch[] = [
  // The adapters first: their hanging adapter waits out its deadline, while the other batches run.
  {
    id: 'adapters',
    rows: [
      {
        id: 'adapter-fifo',
        what: 'the report and marker paths replaced by FIFOs',
        kind: 'harness',
        mode: 'adapter-fifo',
        checks: [HARNESS],
        verdict: 'nonconformant',
      },
      {
        id: 'adapter-sparse',
        what: 'a 2 GB (sparse) report and marker files',
        kind: 'harness',
        mode: 'adapter-sparse',
        checks: [HARNESS],
        verdict: 'nonconformant',
      },
      {
        id: 'adapter-symlink',
        what: 'the report a symlink to /etc/passwd, markers to /etc/shadow',
        kind: 'harness',
        mode: 'adapter-symlink',
        checks: [HARNESS],
        verdict: 'nonconformant',
      },
      {
        id: 'adapter-outside',
        what: "writes outside its run folder: the checkout, the reports, /tmp, /etc, HOME, the runner's work folder",
        kind: 'harness',
        mode: 'adapter-outside',
        checks: [HARNESS],
        verdict: 'nonconformant',
        args: (c) => ['--checkout', c.root, '--reports', c.reports],
      },
      {
        id: 'adapter-forge-collector',
        what: 'connects to the wire collector without the key and with a wrong one, sends forged records, reports every step executed',
        kind: 'harness',
        mode: 'adapter-forge-collector',
        checks: [HARNESS],
        verdict: 'nonconformant',
      },
      {
        id: 'adapter-daemonize',
        what: 'leaves a setsid child that ignores SIGTERM and exits',
        kind: 'harness',
        mode: 'adapter-daemonize',
        checks: [HARNESS],
        verdict: 'nonconformant',
      },
      // stdio.literal-args: the smallest scenario (one tool call), so the shortest adapter deadline.
      {
        id: 'adapter-hang',
        what: 'never exits, ignores SIGTERM',
        kind: 'harness',
        mode: 'adapter-hang',
        checks: ['stdio.literal-args'],
        verdict: 'nonconformant',
      },
      {
        id: 'adapter-env',
        what: 'an adapter looks for tokens and runner variables',
        kind: 'harness',
        mode: 'adapter-env-dump',
        checks: [HARNESS],
        verdict: 'nonconformant',
      },
    ],
  },
  {
    id: 'processes',
    reportsInside: 'forge',
    rows: [
      {
        id: 'double-fork',
        what: 'double fork + setsid + SIGTERM ignored, the grandchild holding a port and stdout',
        kind: 'stdio',
        mode: 'double-fork',
        checks: [UNKNOWN],
        verdict: 'nonconformant',
      },
      {
        id: 'forge',
        what: 'a setsid process keeps rewriting results.json and junit.xml and writing into the checkout; the reports folder is inside its working folder',
        kind: 'stdio',
        mode: 'forge',
        checks: [UNKNOWN],
        verdict: 'nonconformant',
        args: (c) => ['--reports', c.reports, '--name', 'forge', '--checkout', c.root],
      },
      {
        id: 'cwd-checkout',
        what: "a claim whose working folder is the runner's checkout writes into it",
        kind: 'stdio',
        mode: 'forge',
        checks: [UNKNOWN],
        verdict: 'nonconformant',
        args: (c) => ['--reports', c.reports, '--name', 'cwd-checkout', '--checkout', c.root],
        cwd: (c) => c.root,
      },
      {
        id: 'kill-all',
        what: '`kill -9 -1` from inside, on start and on every line',
        kind: 'stdio',
        mode: 'kill-all',
        checks: [UNKNOWN],
        verdict: 'nonconformant',
      },
      {
        id: 'fork-storm',
        what: '64 setsid children that ignore SIGTERM',
        kind: 'stdio',
        mode: 'fork-storm',
        checks: [UNKNOWN],
        verdict: 'nonconformant',
      },
      {
        id: 'orphan-stdout',
        what: 'per_event: exits without a reply, a setsid child keeps stdout open',
        kind: 'per_event',
        mode: 'orphan-stdout',
        checks: [UNKNOWN],
        verdict: 'nonconformant',
      },
      {
        id: 'argv-literal',
        what: 'arguments holding $(...), `...`, ; and || reach it literally, through no shell',
        kind: 'stdio',
        mode: 'argv-record',
        checks: [UNKNOWN],
        verdict: 'nonconformant',
        args: () => [
          '$(touch pwned-1)',
          '`touch pwned-2`',
          '; touch pwned-3',
          '|| touch pwned-4',
          '&& touch pwned-5',
          '> pwned-6',
        ],
      },
      {
        id: 'env-a',
        what: "an HTTP server with a token looks for the other claim's token and runner variables (environment, /proc)",
        kind: 'http',
        mode: 'http-env-dump',
        checks: [HTTP],
        verdict: 'nonconformant',
      },
      {
        id: 'env-b',
        what: 'the other HTTP server with a token does the same',
        kind: 'http',
        mode: 'http-env-dump',
        checks: [HTTP],
        verdict: 'nonconformant',
      },
      {
        id: 'env-c',
        what: 'a stdio backend (passEnv: [PATH]) looks for any token and runner variables',
        kind: 'stdio',
        mode: 'env-dump',
        checks: [UNKNOWN],
        verdict: 'nonconformant',
        passEnv: ['PATH'],
      },
    ],
  },
  {
    id: 'output',
    rows: [
      {
        id: 'short-lines',
        what: 'an endless stream of short lines on stdout',
        kind: 'stdio',
        mode: 'short-lines',
        checks: [UNKNOWN],
        verdict: 'nonconformant',
      },
      {
        id: 'braces',
        what: '3000 lines of `{`',
        kind: 'stdio',
        mode: 'braces',
        checks: [UNKNOWN],
        verdict: 'nonconformant',
      },
      {
        id: 'endless-line',
        what: 'one endless line without a newline',
        kind: 'stdio',
        mode: 'endless-line',
        checks: [UNKNOWN],
        verdict: 'nonconformant',
      },
      {
        id: 'gigabyte',
        what: '1 GiB on stdout as fast as it is read',
        kind: 'stdio',
        mode: 'gigabyte',
        checks: [UNKNOWN],
        verdict: 'nonconformant',
      },
      {
        id: 'stderr-flood',
        what: 'stderr flooded forever, with escape sequences',
        kind: 'stdio',
        mode: 'stderr-flood',
        checks: [UNKNOWN],
        verdict: 'nonconformant',
      },
      {
        id: 'invalid-utf8',
        what: 'replies holding invalid UTF-8',
        kind: 'stdio',
        mode: 'invalid-utf8',
        checks: ['base.jsonrpc-utf8'],
        verdict: 'nonconformant',
        timeoutMs: REPLY_TIMEOUT_MS,
      },
      {
        id: 'hostile-text',
        what: 'U+FFFF, NUL, a lone surrogate, `]]>`, ESC sequences, HTML, U+2028, U+202E and a forged verdict line in replies and on stderr',
        kind: 'stdio',
        mode: 'hostile-text',
        checks: ['stdio.stdout-clean'],
        verdict: 'nonconformant',
        timeoutMs: REPLY_TIMEOUT_MS,
      },
      {
        id: 'deep-nesting',
        what: 'replies nested 100 000 deep',
        kind: 'stdio',
        mode: 'deep-nesting',
        checks: [UNKNOWN],
        verdict: 'nonconformant',
      },
      {
        id: 'proto',
        what: 'replies with __proto__ and constructor.prototype members',
        kind: 'stdio',
        mode: 'proto',
        checks: [UNKNOWN],
        // Only its checks ran (the batch's --grep): partial, never a bare conformant.
        verdict: 'partial',
        statuses: { [UNKNOWN]: ['passed', 'warning'] },
        timeoutMs: REPLY_TIMEOUT_MS,
      },
      {
        id: 'huge-reply',
        what: 'a reply line of 1 MB (a success result to an unknown method)',
        kind: 'stdio',
        mode: 'huge-reply',
        checks: [UNKNOWN],
        verdict: 'nonconformant',
      },
    ],
  },
  {
    id: 'http',
    rows: [
      {
        id: 'gzip-bomb',
        what: 'a gzip bomb (1 MiB on the wire, 1 GiB decompressed)',
        kind: 'http',
        mode: 'http-gzip-bomb',
        checks: [HTTP],
        verdict: 'nonconformant',
      },
      {
        id: 'chunked-endless',
        what: 'an endless chunked body',
        kind: 'http',
        mode: 'http-chunked-endless',
        checks: [HTTP],
        verdict: 'nonconformant',
      },
      {
        id: 'trickle-headers',
        what: 'response headers trickled a byte every 100 ms',
        kind: 'http',
        mode: 'http-trickle-headers',
        checks: [HTTP],
        verdict: 'nonconformant',
      },
      {
        id: 'ten-gb',
        what: 'a 10 GB Content-Length sent as fast as it is read',
        kind: 'http',
        mode: 'http-10gb',
        checks: [HTTP],
        verdict: 'nonconformant',
      },
      {
        id: 'never-answer',
        what: 'a connection accepted and never answered',
        kind: 'http',
        mode: 'http-never-answer',
        checks: [HTTP],
        verdict: 'nonconformant',
      },
      {
        id: 'cut-body',
        what: 'a body cut mid-way (500 of 1000 bytes)',
        kind: 'http',
        mode: 'http-cut-body',
        checks: [HTTP],
        verdict: 'nonconformant',
      },
      {
        id: 'not-http',
        what: 'not HTTP at all: escape sequences and binary bytes',
        kind: 'http',
        mode: 'http-garbage',
        checks: [HTTP],
        verdict: 'nonconformant',
      },
      {
        id: 'redirect',
        what: 'a 307 redirect to a path that records whether the token followed',
        kind: 'http',
        mode: 'http-redirect',
        checks: [HTTP],
        verdict: 'nonconformant',
      },
      {
        id: 'token-stderr-exit',
        what: 'prints its bearer token to stderr and exits before binding',
        kind: 'http',
        mode: 'http-token-stderr-exit',
        checks: [HTTP],
        verdict: 'incomplete',
      },
      {
        id: 'echo-token',
        what: 'echoes the bearer token in the reply (plain and JSON-escaped), a header, stdout and stderr',
        kind: 'http',
        mode: 'http-echo-token',
        checks: ['base.no-secret-leak'],
        verdict: 'nonconformant',
        timeoutMs: REPLY_TIMEOUT_MS,
      },
      {
        id: 'http-daemonize',
        what: 'the HTTP server forks a setsid daemon and exits',
        kind: 'http',
        mode: 'http-daemonize',
        checks: [HTTP],
        verdict: 'incomplete',
      },
    ],
  },
];

// ---------------------------------------------------------------------------------------- measuring

/** Resident set size (bytes) and command line of each process of a tree, sampled every `everyMs`. */
export class TreeSampler {
  readonly peaks = new Map<number, { rss: number; cmd: string }>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly root: number,
    everyMs = 100,
  ) {
    this.timer = setInterval(() => this.sample(), everyMs);
    this.sample();
  }

  sample(): void {
    const children = new Map<number, number[]>();
    let names: string[];
    try {
      names = readdirSync('/proc');
    } catch {
      return;
    }
    for (const name of names) {
      if (!/^\d+$/.test(name)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      } catch {
        continue;
      }
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid);
      if (list) list.push(Number(name));
      else children.set(ppid, [Number(name)]);
    }
    const queue = [this.root];
    for (let i = 0; i < queue.length; i++) {
      const pid = queue[i]!;
      for (const c of children.get(pid) ?? []) queue.push(c);
      const rss = vmRss(pid);
      if (rss === undefined) continue;
      const seen = this.peaks.get(pid);
      if (seen) seen.rss = Math.max(seen.rss, rss);
      else this.peaks.set(pid, { rss, cmd: cmdline(pid) ?? '' });
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

function vmRss(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

function cmdline(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim();
  } catch {
    return undefined;
  }
}

/** Live processes (zombies left out) whose command line holds `marker`. */
function processesMarked(marker: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const cmd = cmdline(Number(name));
    if (cmd === undefined || !cmd.includes(marker)) continue;
    let state = '?';
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '?';
    } catch {
      continue; // gone
    }
    if (state !== 'Z' && state !== 'X') out.push(`${name} ${state} ${cmd.slice(0, 200)}`);
  }
  return out;
}

/** The entries of a zip archive (stored or deflated, as Playwright writes them). */
function zipEntries(buf: Buffer): { name: string; data: Buffer }[] {
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) return [];
  const count = buf.readUInt16LE(eocd + 10);
  let off = buf.readUInt32LE(eocd + 16);
  const out: { name: string; data: Buffer }[] = [];
  for (let i = 0; i < count && off + 46 <= buf.length && buf.readUInt32LE(off) === 0x02014b50; i++) {
    const method = buf.readUInt16LE(off + 10);
    const size = buf.readUInt32LE(off + 20);
    const [nameLen, extraLen, commentLen] = [
      buf.readUInt16LE(off + 28),
      buf.readUInt16LE(off + 30),
      buf.readUInt16LE(off + 32),
    ];
    const local = buf.readUInt32LE(off + 42);
    const name = buf.subarray(off + 46, off + 46 + nameLen).toString('utf8');
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const raw = buf.subarray(start, start + size);
    out.push({ name, data: method === 8 ? inflateRawSync(raw) : raw });
    off += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

/** Every file under `dir` (zip archives and the zip inside Playwright's report page opened too), as [path, bytes]. */
export function readableFiles(dir: string): [string, Buffer][] {
  const out: [string, Buffer][] = [];
  const walk = (d: string): void => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      let st;
      try {
        st = statSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) {
        const bytes = readFileSync(p);
        out.push([p, bytes]);
        if (p.endsWith('.zip')) for (const e of zipEntries(bytes)) out.push([`${p}!${e.name}`, e.data]);
        const embedded = /data:application\/zip;base64,([A-Za-z0-9+/=]+)/.exec(
          p.endsWith('.html') ? bytes.toString('latin1') : '',
        );
        if (embedded)
          for (const e of zipEntries(Buffer.from(embedded[1]!, 'base64'))) out.push([`${p}!${e.name}`, e.data]);
      }
    }
  };
  walk(dir);
  return out;
}

/** Files (and streams, by name) holding any of the needles. */
export function leaksOf(files: [string, Buffer][], needles: readonly (string | RegExp)[]): string[] {
  const out: string[] = [];
  for (const [name, bytes] of files) {
    for (const n of needles) {
      const hit = typeof n === 'string' ? bytes.includes(n) : n.test(bytes.toString('latin1'));
      if (hit) out.push(`${name} holds ${typeof n === 'string' ? `"${n}"` : n.source}`);
    }
  }
  return out;
}

/** Characters a terminal must never get raw: C0 controls but LF and tab, DEL, C1, line separators, bidi controls. */
export const RAW_TERMINAL =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

// ---------------------------------------------------------------------------------------- running

export interface RowOutcome {
  row: HostileRow;
  dir: string;
  marker: string;
  reportDir: string;
  results?: ClaimResults;
  /** The sha256 of results.json the closing line printed. */
  printed?: string;
  /** The sha256 of results.json as it is 1 s after the run. */
  digest?: string;
  /** Live processes holding the marker 1 s after the run. */
  leftovers: string[];
  tokenEnv?: string;
  token?: string;
}

export interface BatchOutcome {
  batch: Batch;
  dir: string;
  reports: string;
  code: number | null;
  wallMs: number;
  stdout: string;
  stderr: string;
  /** Peak RSS per process of the run's tree; `implementation` marks the implementations' own processes. */
  peaks: { pid: number; rss: number; cmd: string; implementation: boolean }[];
  rows: Map<string, RowOutcome>;
  /** Variables set in the runner's environment for this run, secrets included. */
  env: Record<string, string>;
}

const upperSnake = (id: string): string => id.toUpperCase().replace(/[^A-Z0-9]/g, '_');

/** A fresh nonce: unique markers and secrets for one corpus run. */
export function corpusNonce(): string {
  return `${process.pid.toString(36)}${Date.now().toString(36)}`;
}

/** The canary the runner's environment holds: a runner variable no implementation may see. */
export const CANARY_ENV = 'AHP_HOSTILE_RUNNER_CANARY';

/** Write the batch's claims, run them in one `ahp-conformance run`, and measure. `rows` narrows the batch. */
export async function runBatch(
  batch: Batch,
  nonce: string,
  opts: { rows?: string[]; workers?: number; base?: string } = {},
): Promise<BatchOutcome> {
  const root = packageRoot();
  const impl = join(root, 'test', 'hostile', 'impl.cjs');
  const rows = batch.rows.filter((r) => !opts.rows || opts.rows.includes(r.id));
  const dir = mkdtempSync(join(opts.base ?? tmpdir(), `ahp-hostile-${batch.id}-`));
  const inside =
    batch.reportsInside && rows.some((r) => r.id === batch.reportsInside) ? batch.reportsInside : undefined;
  const reports = inside ? join(dir, inside, 'reports') : join(dir, 'reports');
  const env: Record<string, string> = { [CANARY_ENV]: `ahp-hostile-canary-${nonce}` };
  const outcomes = new Map<string, RowOutcome>();
  const files: string[] = [];
  for (const row of rows) {
    const rowDir = join(dir, row.id);
    mkdirSync(rowDir, { recursive: true });
    const marker = `--ahp-hostile-${nonce}-${row.id}`;
    const ctx: RowContext = { root, reports, dir: rowDir, marker };
    const out: RowOutcome = { row, dir: rowDir, marker, reportDir: join(reports, row.id), leftovers: [] };
    const args = [impl, marker, '--mode', row.mode, ...(row.args?.(ctx) ?? [])];
    const launch = {
      command: process.execPath,
      ...(row.cwd ? { cwd: row.cwd(ctx) } : {}),
      ...(row.passEnv ? { passEnv: row.passEnv } : {}),
    };
    const claim: Record<string, unknown> = {
      implementation: { name: row.id, version: '1.0.0' },
      role: row.kind === 'harness' ? 'harness' : 'backend',
      transports: [row.kind === 'http' ? 'http' : 'stdio'],
      profiles: ['tool-interception'],
      timeoutMs: row.timeoutMs ?? CORPUS_TIMEOUT_MS,
    };
    if (row.kind === 'stdio' || row.kind === 'per_event') {
      claim.backend = { stdio: { ...launch, args, lifecycle: row.kind === 'stdio' ? 'persistent' : 'per_event' } };
    } else if (row.kind === 'http') {
      out.tokenEnv = `AHP_HOSTILE_TOKEN_${upperSnake(row.id)}`;
      out.token = `ahp-hostile-secret-${nonce}-${row.id}`;
      env[out.tokenEnv] = out.token;
      claim.backend = {
        http: {
          ...launch,
          args: [...args, '--port', '{port}', '--token-env', out.tokenEnv],
          url: 'http://127.0.0.1:{port}/ahp',
          readyTimeoutMs: 3000,
          auth: { type: 'bearer', tokenEnv: out.tokenEnv },
        },
      };
    } else {
      claim.harness = { ...launch, args: [...args, '--config', '{config}'], lifecycles: ['persistent'] };
    }
    const file = join(rowDir, 'claim.yaml');
    writeFileSync(file, `${JSON.stringify(claim, null, 2)}\n`); // JSON is YAML
    files.push(file);
    outcomes.set(row.id, out);
  }
  // Exactly the row's checks of the row's target.
  const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const grep = rows.map((r) => `(?:^| )${escape(r.id)}:\\S* .*(?:${r.checks.map(escape).join('|')}):`).join('|');
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [
      join(root, 'bin', 'ahp-conformance.js'),
      'run',
      ...files,
      '--reports',
      reports,
      '--grep',
      grep,
      '--workers',
      String(opts.workers ?? 2),
    ],
    {
      cwd: dir,
      env: { ...process.env, AHP_PROGRESS: 'line', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const sampler = new TreeSampler(child.pid!);
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => stdout.push(c));
  child.stderr.on('data', (c: Buffer) => stderr.push(c));
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  const wallMs = Date.now() - started;
  sampler.stop();
  // Nothing may outlive the run: look 1 s after it.
  await new Promise((r) => setTimeout(r, 1000));
  const text = Buffer.concat(stdout).toString('utf8');
  for (const out of outcomes.values()) {
    out.leftovers = processesMarked(out.marker);
    const printed = new RegExp(
      `^${escape(out.row.id)} 1\\.0\\.0: .*\\(results\\.json sha256 ([0-9a-f]{64})\\)$`,
      'm',
    ).exec(text);
    if (printed) out.printed = printed[1];
    const file = join(out.reportDir, 'results.json');
    if (existsSync(file)) {
      const bytes = readFileSync(file);
      out.digest = createHash('sha256').update(bytes).digest('hex');
      try {
        out.results = JSON.parse(bytes.toString('utf8')) as ClaimResults;
      } catch {
        // judged by the caller: no results
      }
    }
  }
  const peaks = [...sampler.peaks].map(([pid, p]) => ({
    pid,
    ...p,
    implementation: p.cmd.includes(`--ahp-hostile-${nonce}-`),
  }));
  return {
    batch: { ...batch, rows },
    dir,
    reports,
    code,
    wallMs,
    stdout: text,
    stderr: Buffer.concat(stderr).toString('utf8'),
    peaks,
    rows: outcomes,
    env,
  };
}

/** The largest peak RSS of a runner process (not the implementations' own) in a batch. */
export function runnerPeak(b: BatchOutcome): { rss: number; cmd: string } {
  const runner = b.peaks.filter((p) => !p.implementation);
  return runner.reduce((a, p) => (p.rss > a.rss ? p : a), { rss: 0, cmd: '' });
}

export function removeBatch(b: BatchOutcome): void {
  rmSync(b.dir, { recursive: true, force: true, maxRetries: 2 });
}
