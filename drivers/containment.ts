// The sandbox an implementation under test runs in (Linux, bubblewrap): every process it
// starts lives in fresh PID, mount, IPC, UTS, cgroup and user namespaces with no
// capability at all, so that tearing the sandbox down kills everything in it, whatever it
// did (double fork + setsid, ignoring SIGTERM, re-exec, a child holding a port or stdout),
// and nothing it does reaches past the walls.
//
// Why bubblewrap: a purpose-made, widely reviewed sandbox (Flatpak's) that drops every
// capability (effective, permitted, inheritable, ambient and bounding), sets no_new_privs,
// and builds the mount tree from a declarative list, where the hand-built
// setpriv/unshare/mount chain it replaces dropped only a list of capabilities and left
// CAP_DAC_READ_SEARCH (open_by_handle_at past the mount namespace) and CAP_NET_RAW (packet
// sockets on loopback). Launch cost: about 10 ms (docs/performance.md).
//
// The launch chain, every tool by absolute path, with an environment the runner builds for
// the launchers alone (LAUNCHER_ENV: a claim's PATH or LD_PRELOAD never reaches them):
//   bash -c CLOSE_FDS      the runner's direct child: closes every descriptor above 2 it
//                          inherited (the runner's own parent may leak some), then execs
//   bwrap --args <fd>      reads its options from a pipe (the claim's environment and
//                          arguments never show in the host's process list), forks the
//                          sandbox's init, dies with the runner (--die-with-parent)
//   <command> <args>       the implementation, with the claim's environment only
// (with `supervise`: `sh -c SUPERVISE <command> <args>` inside the sandbox, below).
//
// Inside: `/` is read-only (every submount too); a private /dev (null, zero, full, random,
// urandom, tty, pts, a small private /dev/shm) and a fresh /proc whose kernel interfaces
// (/proc/sys, sysrq-trigger, irq, bus, ...) are read-only; /sys read-only; the check's
// own folders (its TMPDIR, the claim's working folder) writable; the runner's work folder
// and the reports folder hidden behind empty read-only tmpfs mounts; the runner's own
// folder (its code, node_modules) read-only even inside a writable folder. The
// implementation keeps uid 0 (toolchains live in root's home) but no capability, so it
// cannot remount, read by file handle, open raw sockets, or create a user namespace to
// regain any. The network namespace is the host's: the runner's servers listen on
// loopback and the implementation's own HTTP server must be reachable from the runner.
//
// Teardown is SIGKILL to the bash-turned-bwrap process (our direct child, known by its
// id): --die-with-parent SIGKILLs the sandbox's init and the kernel kills every process in
// the PID namespace with it.
//
// Where the sandbox cannot start (not Linux, no bubblewrap, no namespaces), the runner
// falls back to process groups (drivers/processes.ts), says so loudly in results.json, the
// report and the closing line, and `run --certify` refuses it unless
// --allow-weak-containment is given.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, statSync } from 'node:fs';

export type ContainmentKind = 'sandbox' | 'process-group';

export interface ContainmentState {
  kind: ContainmentKind;
  /** The sandbox tool and its version, e.g. "bubblewrap 0.8.0" (sandbox only). */
  tool?: string;
  /** Why the sandbox is not in force (fallback only). */
  reason?: string;
}

/** What the implementation may write, and what it must not see. */
export interface Confinement {
  /** Folders the implementation may write (its TMPDIR, the claim's working folder). */
  writable: string[];
  /** Folders replaced by an empty read-only folder (the runner's work folder, the reports folder). */
  hidden: string[];
  /**
   * Folders that stay read-only even when a writable folder holds them or is one of them
   * (the runner's own package); writable folders inside them stay writable.
   */
  readOnly?: string[];
  /**
   * Keep the sandbox alive after the command exits, until the runner tears it down;
   * the command's exit status is written to fd 3 as one line. Used for harness adapters,
   * whose backends may still be draining when the adapter exits.
   */
  supervise?: boolean;
}

/** Where the launch tools may live: system folders only, never found through anyone's PATH. */
const BWRAP_CANDIDATES = ['/usr/bin/bwrap', '/bin/bwrap', '/usr/local/bin/bwrap'];
const BASH_CANDIDATES = ['/bin/bash', '/usr/bin/bash'];
const SH = '/bin/sh';

/** The whole environment of the launchers (bash, bwrap); the claim's applies inside only. */
export const LAUNCHER_ENV: Readonly<Record<string, string>> = Object.freeze({ PATH: '/usr/bin:/bin', LANG: 'C' });

/** A private /dev/shm of this size; the hidden folders' tmpfs is smaller still. */
const SHM_BYTES = 64 * 1024 * 1024;
const HIDDEN_BYTES = 64 * 1024;

/** Kernel interfaces under /proc that root could write even without capabilities: bound read-only. */
const PROC_READ_ONLY = ['sys', 'sysrq-trigger', 'irq', 'bus', 'fs', 'mtrr', 'acpi', 'driver', 'scsi', 'tty'];

// Runs in bash with LAUNCHER_ENV: $1 is the space-separated list of descriptors to keep
// besides 0-2 (the bwrap options pipe; the supervisor's status pipe), the rest the launch.
// `[ -e ]` skips the folder descriptor the glob itself used, closed by then.
const CLOSE_FDS = [
  'keep=" $1 "; shift',
  'for f in /proc/self/fd/*; do',
  '  n=${f##*/}',
  '  case "$keep" in *" $n "*) continue ;; esac',
  '  if [ "$n" -gt 2 ] && [ -e "$f" ]; then exec {n}>&-; fi',
  'done',
  'exec "$@"',
].join('\n');

// Runs inside the sandbox as its first process (with the claim's environment, so dash,
// which takes nothing but PATH from it here): starts the command with fd 3 closed,
// reports its status on fd 3, lets go of the output pipes and stays until torn down.
const SUPERVISE = [
  '"$@" 3>&- &',
  'pid=$!',
  'exec 0</dev/null 1>/dev/null 2>/dev/null',
  'wait "$pid"; st=$?',
  'echo "$st" >&3; exec 3>&-',
  'while :; do command -p sleep 3600; done',
].join('\n');

const inside = (dir: string, parent: string): boolean =>
  dir === parent || dir.startsWith(parent.endsWith('/') ? parent : `${parent}/`);

const isDir = (path: string): boolean => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

function executable(candidates: readonly string[]): string | undefined {
  for (const c of candidates) {
    try {
      if (!statSync(c).isFile()) continue;
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // next
    }
  }
  return undefined;
}

/** bwrap's options that build the sandbox for `c` (everything but the command). */
export function sandboxOptions(c: Confinement, cwd: string, env: Readonly<Record<string, string>>): string[] {
  // Folders that do not exist cannot be bound or covered (bwrap cannot create them on a
  // read-only root); the runner makes its folders before it launches.
  const writable = [...new Set(c.writable)].filter(isDir);
  const hidden = [...new Set(c.hidden)].filter((h) => isDir(h) && !writable.includes(h));
  const readOnly = [...new Set(c.readOnly ?? [])].filter(isDir);
  // Parents first: a folder inside another is mounted over it, so a writable TMPDIR inside
  // the hidden work folder, or the read-only package inside a writable working folder, keeps
  // its own rule. Equal paths: the last mount wins, so read-only comes last (the runner's own
  // folder stays read-only even when it is the claim's working folder).
  const order = { hidden: 0, writable: 1, readOnly: 2 } as const;
  const mounts = [
    ...hidden.map((dir) => ({ dir, kind: 'hidden' as const })),
    ...readOnly.map((dir) => ({ dir, kind: 'readOnly' as const })),
    ...writable.map((dir) => ({ dir, kind: 'writable' as const })),
  ].sort((a, b) => a.dir.length - b.dir.length || order[a.kind] - order[b.kind]);
  return [
    '--unshare-all',
    '--share-net',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--perms',
    '1777',
    '--size',
    String(SHM_BYTES),
    '--tmpfs',
    '/dev/shm',
    '--remount-ro',
    '/dev',
    '--proc',
    '/proc',
    ...PROC_READ_ONLY.flatMap((p) => ['--ro-bind-try', `/proc/${p}`, `/proc/${p}`]),
    ...mounts.flatMap(({ dir, kind }) =>
      kind === 'hidden'
        ? ['--perms', '0755', '--size', String(HIDDEN_BYTES), '--tmpfs', dir]
        : kind === 'readOnly'
          ? ['--ro-bind', dir, dir]
          : ['--bind', dir, dir],
    ),
    // Read-only only now: the writable folders inside them needed their mount points made.
    ...hidden.flatMap((dir) => ['--remount-ro', dir]),
    '--chdir',
    cwd,
    '--clearenv',
    ...Object.entries(env).flatMap(([k, v]) => ['--setenv', k, v]),
  ];
}

export interface SandboxLaunch {
  /** The launcher (absolute path) and its arguments; none of them comes from the claim. */
  command: string;
  args: string[];
  /** The launcher's whole environment. */
  env: Record<string, string>;
  /** The descriptor (an extra stdio pipe of the launch) bwrap reads its options from. */
  optionsFd: number;
  /** What to write to that pipe: bwrap's options, NUL-separated (the command follows on the launcher's argv). */
  options: Buffer;
}

/**
 * The launch that runs `command args` in the sandbox as `c` says, in `cwd` with `env`.
 * `stdioCount` is how many stdio entries the caller passes (the options pipe comes after).
 */
export function sandboxLaunch(
  command: string,
  args: readonly string[],
  c: Confinement,
  cwd: string,
  env: Readonly<Record<string, string>>,
  stdioCount: number,
): SandboxLaunch {
  const tools = launchTools();
  if (!tools) throw new Error('no sandbox tools (bwrap, bash) in the system folders');
  const optionsFd = stdioCount;
  const inner = c.supervise ? [SH, '-c', SUPERVISE, 'ahp-supervise', command, ...args] : [command, ...args];
  // bwrap takes only options from the pipe: the command stays on its argv (visible in the
  // host's process list, as any command line is; the environment, which may hold a claim's
  // token, is not).
  const options = sandboxOptions(c, cwd, env);
  if ([...options, ...inner].some((a) => a.includes('\0')))
    throw new Error('an argument or environment value holds a NUL byte');
  const keep = [String(optionsFd), ...(c.supervise ? ['3'] : [])].join(' ');
  return {
    command: tools.bash,
    args: ['-c', CLOSE_FDS, 'ahp-contain', keep, tools.bwrap, '--args', String(optionsFd), '--', ...inner],
    env: { ...LAUNCHER_ENV },
    optionsFd,
    options: Buffer.from(options.map((a) => `${a}\0`).join(''), 'utf8'),
  };
}

let tools: { bwrap: string; bash: string } | null | undefined;

function launchTools(): { bwrap: string; bash: string } | undefined {
  if (tools === undefined) {
    const bwrap = executable(BWRAP_CANDIDATES);
    const bash = executable(BASH_CANDIDATES);
    tools = bwrap && bash && existsSync(SH) ? { bwrap, bash } : null;
  }
  return tools ?? undefined;
}

let state: ContainmentState | undefined;

/**
 * Is the sandbox available here? Probed once per process by starting a sandbox that must
 * show no capability at all; `AHP_CONTAINMENT=process-group` forces the fallback.
 */
export function containment(): ContainmentState {
  if (state) return state;
  if (process.env.AHP_CONTAINMENT === 'process-group')
    return (state = { kind: 'process-group', reason: 'AHP_CONTAINMENT=process-group' });
  if (process.platform !== 'linux')
    return (state = { kind: 'process-group', reason: `no Linux namespaces on ${process.platform}` });
  const t = launchTools();
  if (!t)
    return (state = {
      kind: 'process-group',
      reason: `bubblewrap not installed (looked for ${BWRAP_CANDIDATES.join(', ')}; Debian and Ubuntu: apt-get install bubblewrap)`,
    });
  // The probe reads its options from stdin (fd 0) and proves the walls: no capability left.
  const opts = sandboxOptions({ writable: [], hidden: [] }, '/', LAUNCHER_ENV);
  const proof =
    'grep -q "^CapEff:[[:space:]]*0*$" /proc/self/status && grep -q "^CapBnd:[[:space:]]*0*$" /proc/self/status';
  const r = spawnSync(t.bwrap, ['--args', '0', '--', SH, '-c', proof], {
    input: Buffer.from(opts.map((a) => `${a}\0`).join('')),
    stdio: ['pipe', 'ignore', 'pipe'],
    env: { ...LAUNCHER_ENV },
    cwd: '/',
    timeout: 10_000,
  });
  if (r.error || r.status !== 0) {
    const why = r.error
      ? ((r.error as NodeJS.ErrnoException).code ?? r.error.message)
      : (r.stderr?.toString('utf8').trim().split('\n').pop() ?? `exit ${r.status}`) ||
        `the sandbox kept capabilities (exit ${r.status})`;
    return (state = { kind: 'process-group', reason: `bubblewrap cannot start a sandbox here (${why.slice(0, 200)})` });
  }
  const version = spawnSync(t.bwrap, ['--version'], { env: { ...LAUNCHER_ENV }, timeout: 10_000 });
  const tool = version.stdout?.toString('utf8').trim().split('\n')[0]?.slice(0, 60) || 'bubblewrap';
  return (state = { kind: 'sandbox', tool });
}

/** Use this decision instead of probing (the run plan's, so every worker agrees with the report). */
export function useContainment(s: ContainmentState): void {
  state = s;
}
