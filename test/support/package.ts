// The package as users get it: `npm pack` of this checkout, installed with npm into a
// temporary global prefix. Tests reach only loopback, so the dependencies come from a
// registry served on 127.0.0.1 with tarballs packed from our own node_modules (npm resolves
// and installs them exactly as from the public registry).
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, join } from 'node:path';
import { ROOT } from './paths.js';

interface Packed {
  name: string;
  version: string;
  filename: string;
  integrity: string;
}

function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv = npmEnv()): SpawnSyncReturns<string> {
  return spawnSync('npm', args, { cwd, env, encoding: 'utf8', timeout: 5 * 60_000 });
}

/** Our environment without the npm_* variables `npm test` sets, so npm runs as a user's would. */
export function npmEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  return { ...env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', ...extra };
}

function pack(dirs: string[], dest: string): Packed[] {
  // --ignore-scripts: pack the dist/ the test run was built with (prepack would delete it).
  const r = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dest, ...dirs], ROOT);
  if (r.status !== 0) throw new Error(`npm pack failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Packed[];
}

/** `npm pack` of this checkout (built by `npm test`) into `dest`; the tarball's path. */
export function packThisPackage(dest: string): string {
  return join(dest, pack([ROOT], dest)[0]!.filename);
}

/** The runtime dependencies (not dev) installed in this checkout, as folders. */
function runtimeDependencies(): string[] {
  const r = npm(['ls', '--omit=dev', '--all', '--parseable'], ROOT);
  return r.stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(1);
}

export interface LoopbackRegistry {
  url: string;
  close(): Promise<void>;
}

/** A registry on 127.0.0.1 serving our runtime dependencies, packed into `dir`. */
export async function loopbackRegistry(dir: string): Promise<LoopbackRegistry> {
  const deps = runtimeDependencies();
  const packed = pack(deps, dir);
  const manifests = new Map<string, Record<string, unknown>>();
  let server: Server;
  const url = await new Promise<string>((ready) => {
    server = createServer((req, res) => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.slice(1));
      const tarball = path.startsWith('-/') ? basename(path) : undefined;
      if (tarball && packed.some((p) => p.filename === tarball)) {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(readFileSync(join(dir, tarball)));
        return;
      }
      const packument = manifests.get(path);
      if (!packument) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":"not found"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(packument));
    }).listen(0, '127.0.0.1', () => ready(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`));
  });
  // One packument per name, with every version installed here (nested copies included).
  packed.forEach((p, i) => {
    const manifest = JSON.parse(readFileSync(join(deps[i]!, 'package.json'), 'utf8')) as Record<string, unknown>;
    const packument = manifests.get(p.name) ?? { name: p.name, 'dist-tags': { latest: p.version }, versions: {} };
    (packument.versions as Record<string, unknown>)[p.version] = {
      ...manifest,
      name: p.name,
      version: p.version,
      dist: { tarball: `${url}-/${p.filename}`, integrity: p.integrity },
    };
    manifests.set(p.name, packument);
  });
  return { url, close: () => new Promise<void>((done) => server.close(() => done())) };
}

/** The environment in which `npm install --global` installs into `prefix` from `registry`, with its own cache. */
export const installEnv = (prefix: string, registry: LoopbackRegistry, cache: string): NodeJS.ProcessEnv =>
  npmEnv({
    npm_config_prefix: prefix,
    npm_config_registry: registry.url,
    npm_config_cache: cache,
    PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`,
  });

/**
 * `npm install --global <spec>` as a user runs it; throws with npm's output when it fails.
 * Asynchronous: the loopback registry answers from this process.
 */
export function installGlobally(spec: string, cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn('npm', ['install', '--global', spec], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', fail);
    child.on('close', (code) =>
      code === 0 ? done() : fail(new Error(`npm install --global ${spec} failed (${code}):\n${output}`)),
    );
  });
}
