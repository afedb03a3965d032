// Kernel containment of an implementation under test (Linux): every process it starts
// lives in a PID namespace and a mount namespace of its own, so that tearing down the
// container kills everything in it, whatever it did (double fork + setsid, ignoring
// SIGTERM, re-exec, a child holding a port or stdout).
//
// Chosen over a cgroup with cgroup.kill: a PID namespace needs no cgroup v2 delegation
// (these machines mount cgroup2 in a hybrid layout), costs ~15 ms per launch (measured
// with the mount set-up below), and also hides every process outside the container.
//
// The launch chain, all util-linux, no shell interpreting anything of the claim:
//   setpriv --pdeathsig KILL          the runner's direct child: dies with the runner
//   unshare --pid --fork --mount ...  forks the container's init, SIGKILLs it when unshare dies
//   sh -c SETUP ahp-contain ...       mounts (below), then execs; the claim's command and
//                                     arguments are positional parameters, never parsed
//   setpriv --bounding-set -...       drops the capabilities that could undo the mounts
//   <command> <args>                  the implementation, PID 1 of its namespace
// Inside, `/` is read-only; the check's own folders (its TMPDIR, the claim's working
// folder) are writable; the runner's work folder and the reports folder are hidden
// behind empty read-only tmpfs mounts; the runner's own folder (its code, node_modules)
// stays read-only even inside a writable folder (a claim whose working folder holds the
// checkout once could rewrite the suites later workers load). The implementation keeps root's identity (the
// toolchains live in root's home) but loses CAP_SYS_ADMIN and friends, so it cannot
// remount, unmount or join another namespace.
//
// Teardown is SIGKILL to the unshare process (our direct child, known by its id):
// --kill-child SIGKILLs the namespace's init and the kernel kills every process in the
// namespace with it. SIGTERM is useless here (unshare ignores it and a namespace init
// ignores signals it has no handler for).
//
// Where the probe fails (not Linux, no privilege, util-linux missing), the runner falls
// back to process groups (drivers/processes.ts) and says so in results.json and the report.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export type ContainmentKind = 'pid-namespace' | 'process-group';

export interface ContainmentState {
  kind: ContainmentKind;
  /** Why containment is not in force (fallback only). */
  reason?: string;
}

/** What the implementation may write, and what it must not see. */
export interface Confinement {
  /** Folders the implementation may write (its TMPDIR, the claim's working folder); at most 5. */
  writable: string[];
  /** Folders replaced by an empty read-only folder (the runner's work folder, the reports folder). */
  hidden: string[];
  /**
   * Folders that stay read-only even when a writable folder holds them or is one of them
   * (the runner's own package); writable folders inside them stay writable.
   */
  readOnly?: string[];
  /**
   * Keep the container alive after the command exits, until the runner tears it down;
   * the command's exit status is written to fd 3 as one line. Used for harness adapters,
   * whose backends may still be draining when the adapter exits.
   */
  supervise?: boolean;
}

/** Capabilities a contained process does not keep: those that could undo or escape the container. */
const DROPPED_CAPS = [
  'sys_admin',
  'sys_module',
  'sys_rawio',
  'sys_ptrace',
  'sys_boot',
  'sys_time',
  'net_admin',
  'mknod',
  'sys_chroot',
];
const MAX_WRITABLE = 5;

// Positional parameters: <supervise 0|1> <n> <early dir>... <n> <covered dir>... <n> <late dir>... <command> <args>...
// Early writable folders (outside every hidden one) are bound to themselves before `/`
// turns read-only, so hidden folders inside them stay hidden. Covered folders, parents
// first, are `h:<dir>` (hidden: an empty tmpfs over it) or `r:<dir>` (read-only: bound
// recursively onto itself, so writable and hidden folders already inside it stay so, then
// made read-only). Late writable folders (inside a hidden one) are opened first (fds 5-9)
// and bound back at their own paths once it is hidden.
const SETUP = [
  'set -e',
  'sup=$1; shift',
  'n=$1; shift',
  'while [ "$n" -gt 0 ]; do mount --bind -- "$1" "$1"; shift; n=$((n - 1)); done',
  'nh=$1; shift',
  'eval "late_n=\\${$((nh + 1))}"; i=0; j=$((nh + 2))',
  'while [ "$i" -lt "$late_n" ]; do eval "d=\\${$j}"; eval "exec $((5 + i))<\\"\\$d\\""; eval "w$i=\\$d"; i=$((i + 1)); j=$((j + 1)); done',
  'mount -o remount,bind,ro /',
  'i=0',
  'while [ "$i" -lt "$nh" ]; do',
  '  case $1 in',
  '    r:*) d=${1#r:}; if [ -d "$d" ]; then mount --rbind -- "$d" "$d"; else d=; fi ;;',
  '    *) d=${1#h:}; if [ -d "$d" ]; then mount -t tmpfs -o size=1m,mode=755 ahp-hidden "$d"; else d=; fi ;;',
  '  esac',
  '  eval "h$i=\\$d"; shift; i=$((i + 1))',
  'done',
  'shift',
  'i=0',
  'while [ "$i" -lt "$late_n" ]; do eval "d=\\$w$i"; mkdir -p -- "$d"; mount --no-canonicalize --bind "/proc/self/fd/$((5 + i))" "$d"; mount -o remount,bind,rw "$d"; eval "exec $((5 + i))<&-"; shift; i=$((i + 1)); done',
  'i=0',
  'while [ "$i" -lt "$nh" ]; do eval "d=\\$h$i"; if [ -n "$d" ]; then mount -o remount,bind,ro "$d"; fi; i=$((i + 1)); done',
  `caps="${DROPPED_CAPS.map((c) => `-${c}`).join(',')}"`,
  'if [ "$sup" = 1 ]; then',
  // The init stays: it reports the command's status on fd 3 and lets go of the output pipes.
  '  setpriv --bounding-set "$caps" -- "$@" 3>&- &',
  '  pid=$!',
  '  exec 0</dev/null 1>/dev/null 2>/dev/null',
  '  set +e; wait "$pid"; st=$?',
  '  echo "$st" >&3; exec 3>&-',
  '  while :; do sleep 3600; done',
  'fi',
  'exec setpriv --bounding-set "$caps" -- "$@"',
].join('\n');

const inside = (dir: string, parent: string): boolean =>
  dir === parent || dir.startsWith(parent.endsWith('/') ? parent : `${parent}/`);

/** A writable folder that does not exist cannot be bound; it is left out (the launch still works). */
const exists = (path: string): boolean => existsSync(path);

/** The command line that runs `command args` contained as `c` says. */
export function containedCommand(
  command: string,
  args: readonly string[],
  c: Confinement,
): { command: string; args: string[] } {
  const writable = [...new Set(c.writable)].filter(exists);
  const hidden = [...new Set(c.hidden)].filter((h) => !writable.includes(h));
  const late = writable.filter((w) => hidden.some((h) => inside(w, h))).slice(0, MAX_WRITABLE);
  const covered = [
    ...hidden.map((h) => ({ dir: h, arg: `h:${h}` })),
    ...[...new Set(c.readOnly ?? [])].map((r) => ({ dir: r, arg: `r:${r}` })),
  ]
    .sort((a, b) => a.dir.length - b.dir.length)
    .map((x) => x.arg);
  const early = writable.filter((w) => !late.includes(w));
  return {
    command: 'setpriv',
    args: [
      '--pdeathsig',
      'KILL',
      '--',
      'unshare',
      '--pid',
      '--fork',
      '--kill-child',
      '--mount',
      '--propagation',
      'private',
      '--mount-proc',
      '--',
      'sh',
      '-c',
      SETUP,
      'ahp-contain',
      c.supervise ? '1' : '0',
      String(early.length),
      ...early,
      String(covered.length),
      ...covered,
      String(late.length),
      ...late,
      command,
      ...args,
    ],
  };
}

let state: ContainmentState | undefined;

/**
 * Is kernel containment available here? Probed once per process by running the whole
 * launch chain on `true`; `AHP_CONTAINMENT=process-group` forces the fallback.
 */
export function containment(): ContainmentState {
  if (state) return state;
  if (process.env.AHP_CONTAINMENT === 'process-group')
    return (state = { kind: 'process-group', reason: 'AHP_CONTAINMENT=process-group' });
  if (process.platform !== 'linux')
    return (state = { kind: 'process-group', reason: `no PID namespaces on ${process.platform}` });
  const probe = containedCommand('true', [], { writable: [], hidden: [] });
  const r = spawnSync(probe.command, probe.args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
  if (r.error || r.status !== 0) {
    const why = r.error
      ? ((r.error as NodeJS.ErrnoException).code ?? r.error.message)
      : (r.stderr?.toString('utf8').trim().split('\n').pop() ?? `exit ${r.status}`);
    return (state = { kind: 'process-group', reason: `unshare/setpriv unavailable (${why.slice(0, 200)})` });
  }
  return (state = { kind: 'pid-namespace' });
}

/** Use this decision instead of probing (the run plan's, so every worker agrees with the report). */
export function useContainment(s: ContainmentState): void {
  state = s;
}
