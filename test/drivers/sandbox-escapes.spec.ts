// The sandbox's walls (drivers/containment.ts), tried from inside as a hostile
// implementation with root's uid would (test/hostile/escape.py), and looked at from outside
// after the teardown: no capability, kernel interfaces read-only, nothing left in /dev,
// /dev/shm, System V IPC or cgroups, no descriptor but 0-2, and a claim's PATH and
// LD_PRELOAD never reach the launchers. Rows S1-S24 of test/hostile/README.md.
import { test, expect } from '@playwright/test';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { containment } from '../../drivers/containment.js';
import { ROOT } from '../support/paths.js';

const fromRoot = (p: string): string => join(ROOT, p);
import { tempFolders } from '../support/temp.js';

const state = containment();
test.skip(state.kind !== 'sandbox', `the sandbox is unavailable here: ${state.reason ?? ''}`);
const python = ['/usr/bin/python3', '/bin/python3'].find((p) => existsSync(p));
const folder = tempFolders('ahp-escape-');

/**
 * Run `command args` contained, from a separate Node process that inherited descriptor 9
 * (not close-on-exec, as a CI shell's pipe would be), with the claim environment `env`.
 * Returns its stdout and, read from the host while it ran, its open descriptors and the
 * launcher's environment.
 */
function containedRun(
  work: string,
  hidden: string,
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string; launcherEnv: string; launcherArgv: string }> {
  const driver = `
    import { spawnTracked, killTree } from ${JSON.stringify(fromRoot('dist/drivers/processes.js'))};
    import { readFileSync } from 'node:fs';
    const [work, hidden, command, env, ...args] = JSON.parse(process.argv[1]);
    const child = spawnTracked(command, args, { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'],
      confine: { writable: [work], hidden: [hidden] } });
    let launcherEnv = '', launcherArgv = '';
    try { launcherEnv = readFileSync('/proc/' + child.pid + '/environ', 'latin1');
      launcherArgv = readFileSync('/proc/' + child.pid + '/cmdline', 'latin1'); } catch {}
    let out = '', err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', async () => { await killTree(child);
      process.stdout.write(JSON.stringify({ stdout: out, stderr: err, launcherEnv, launcherArgv })); });`;
  return new Promise((done, fail) => {
    // bash opens descriptor 9 without close-on-exec: Node and every child inherit it.
    const p = spawn(
      '/bin/bash',
      [
        '-c',
        'exec 9</dev/null; exec "$0" --input-type=module -e "$1" "$2"',
        process.execPath,
        driver,
        JSON.stringify([work, hidden, command, env, ...args]),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('exit', () => {
      try {
        done(JSON.parse(out));
      } catch {
        fail(new Error(`driver said: ${out} ${err}`));
      }
    });
  });
}

test('from inside: no capability, no kernel interface, no raw socket, no file handle, no namespace, no device', async () => {
  test.skip(!python, 'python3 is not installed (the probes need its system calls)');
  const base = folder();
  const work = join(base, 'work');
  const hidden = join(base, 'hidden');
  mkdirSync(work);
  mkdirSync(hidden);
  writeFileSync(join(hidden, 'plan.json'), '{"secret":true}');
  const marker = `ahp${process.pid.toString(16)}${Date.now().toString(16).slice(-6)}`;
  const { stdout, stderr } = await containedRun(
    work,
    hidden,
    python!,
    [fromRoot('test/hostile/escape.py'), marker, hidden],
    { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
  );
  const r = JSON.parse(stdout) as Record<string, unknown>;
  expect(r, stderr).toMatchObject({
    CapEff: '0000000000000000',
    CapPrm: '0000000000000000',
    CapBnd: '0000000000000000',
    CapInh: '0000000000000000',
    CapAmb: '0000000000000000',
    NoNewPrivs: '1',
    // os.listdir holds one descriptor of its own while it lists
    fds: [0, 1, 2, 3],
    core_pattern: 'EROFS',
    sysctl_net: 'EROFS',
    sys_thp: 'EROFS',
    cgroup_mkdir: 'EROFS',
    dev_file: 'EROFS',
    dev_shm_file: 'ok',
    dev_kmsg: 'ENOENT',
    tmp_file: 'EROFS',
    packet_socket: 'EPERM',
    raw_socket: 'EPERM',
    open_by_handle: 'EPERM',
    mount_tmpfs: 'refused',
    remount_rw: 'refused',
    umount_hidden: 'refused',
    hidden_listing: [],
    userns: 'refused',
    sethostname: 'EPERM',
    mknod: 'EPERM',
    chattr_immutable: 'refused',
    setuid: 'refused',
  });
  expect(r.visible_pids as number).toBeLessThanOrEqual(3);
  // And from outside, after the teardown: nothing of it outlived the check.
  expect(existsSync(`/dev/shm/${marker}`)).toBe(false);
  expect(existsSync(`/dev/${marker}`)).toBe(false);
  expect(existsSync(`/sys/fs/cgroup/${marker}`)).toBe(false);
  expect(existsSync(`/tmp/${marker}`)).toBe(false);
  expect(readFileSync('/proc/sysvipc/shm', 'latin1')).not.toMatch(
    new RegExp(`^\\s*${parseInt(marker.slice(-6), 16)}\\s`, 'm'),
  );
  expect(readFileSync('/proc/sys/kernel/core_pattern', 'latin1')).not.toContain('/bin/false');
  expect(readFileSync(join(hidden, 'plan.json'), 'utf8')).toBe('{"secret":true}');
});

test('a claim environment with PATH and LD_PRELOAD reaches the command only, never the launchers', async () => {
  const base = folder();
  const work = join(base, 'work');
  const hidden = join(base, 'hidden');
  const trap = join(base, 'trap');
  mkdirSync(work);
  mkdirSync(hidden);
  mkdirSync(trap);
  // Launchers named as ours, first on the claim's PATH: each would leave a mark if it ran.
  for (const name of ['bwrap', 'bash', 'setpriv', 'unshare', 'sh', 'env']) {
    writeFileSync(join(trap, name), `#!/bin/sh\ntouch ${JSON.stringify(join(base, `ran-${name}`))}\nexit 0\n`);
    chmodSync(join(trap, name), 0o755);
  }
  const { stdout, launcherEnv, launcherArgv } = await containedRun(work, hidden, '/bin/cat', ['/proc/self/environ'], {
    PATH: `${trap}:/usr/bin:/bin`,
    LD_PRELOAD: join(trap, 'inject.so'),
    AHP_CLAIM_VALUE: 'inside',
  });
  // The command got the claim's environment, exactly.
  expect(stdout.split('\0').filter(Boolean).sort()).toEqual(
    [
      `AHP_CLAIM_VALUE=inside`,
      `LD_PRELOAD=${join(trap, 'inject.so')}`,
      `PATH=${trap}:/usr/bin:/bin`,
      `PWD=${work}`,
    ].sort(),
  );
  // The launcher (read from the host while it ran) had the runner's own environment only.
  expect(launcherEnv).not.toContain('LD_PRELOAD');
  expect(launcherEnv).not.toContain(trap);
  expect(launcherEnv).not.toContain('AHP_CLAIM_VALUE');
  // Nor did the claim's environment show on the launcher's command line (the host's process list).
  expect(launcherArgv).toContain('bwrap');
  expect(launcherArgv).not.toContain('AHP_CLAIM_VALUE');
  expect(readdirSync(base).filter((n) => n.startsWith('ran-'))).toEqual([]);
});

test('an inherited descriptor is closed before the command starts: only 0-2 are open in it', async () => {
  const base = folder();
  const work = join(base, 'work');
  const hidden = join(base, 'hidden');
  mkdirSync(work);
  mkdirSync(hidden);
  // Read from outside the command itself: the host lists the contained process's descriptors.
  const { stdout } = await containedRun(work, hidden, '/bin/sh', ['-c', 'cd /proc/self/fd && set -- * && echo "$@"'], {
    PATH: '/usr/bin:/bin',
  });
  // The shell's glob lists its own folder descriptor too (3, closed again by then).
  expect(
    stdout
      .trim()
      .split(' ')
      .map(Number)
      .filter((n) => n !== 3),
  ).toEqual([0, 1, 2]);
  expect(spawnSync('/bin/bash', ['-c', 'exec 9</dev/null; ls /proc/self/fd']).stdout.toString()).toContain('9');
});
