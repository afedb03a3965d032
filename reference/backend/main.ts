#!/usr/bin/env node
// The reference AHP backend: a small, fully conforming hook server (unless a --fault
// mode deliberately breaks one rule). See args.ts for the command line.
import { randomBytes } from 'node:crypto';
import { openSync, writeSync } from 'node:fs';
import { faultProbe } from '../fault-probe.js';
import { parseBackendArgs, type Options } from './args.js';
import type { HandlerContext } from './handler.js';
import { holdMs } from './hold.js';
import { createBackendServer, listen } from './http.js';
import { loadOAuth, type OAuthProtection } from './oauth.js';
import { runStdio } from './stdio.js';

/**
 * --trace (a bench instrument, scripts/bench.ts): one O_APPEND line per start and per
 * exchange, so concurrent processes share one file. The id is random because contained
 * processes in their own PID namespaces share pids.
 */
function tracer(opts: Options): (() => void) | undefined {
  if (opts.trace === undefined) return undefined;
  const fd = openSync(opts.trace, 'a');
  const id = randomBytes(6).toString('hex');
  writeSync(fd, `${id} start ${opts.transport} ${opts.transport === 'stdio' ? opts.lifecycle : '-'}\n`);
  return () => {
    writeSync(fd, `${id} x\n`);
  };
}

/** --auth oauth: the trusted issuer and its keys, or exit 2 (claimed protection fails closed). */
async function oauthOf(o: {
  issuerEnv: string;
  caFileEnv: string;
  scopes: readonly string[];
}): Promise<OAuthProtection> {
  const issuer = process.env[o.issuerEnv];
  const caFile = process.env[o.caFileEnv];
  const missing = [issuer ? [] : [o.issuerEnv], caFile ? [] : [o.caFileEnv]].flat();
  if (missing.length) {
    process.stderr.write(`ahp reference backend: --auth oauth: ${missing.join(' and ')} not set\n`);
    process.exit(2);
  }
  try {
    return await loadOAuth(issuer!, caFile!, o.scopes);
  } catch (e) {
    process.stderr.write(
      `ahp reference backend: --auth oauth: cannot use issuer ${issuer}: ${e instanceof Error ? e.message : String(e)}\n`,
    );
    process.exit(2);
  }
}

async function main(): Promise<void> {
  const parsed = parseBackendArgs(process.argv.slice(2));
  if (!parsed.ok) {
    process.stderr.write(`ahp reference backend: ${parsed.error}\n`);
    process.exit(2);
  }
  const opts = parsed.options;
  // A slow but correct start (an interpreter importing and compiling): busy CPU, then normal service.
  const burnMs = Number(process.env.AHP_REFERENCE_START_BURN_MS ?? 0);
  if (Number.isFinite(burnMs) && burnMs > 0) {
    const cpuMs = (): number => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    };
    const from = cpuMs();
    while (cpuMs() - from < burnMs);
  }
  const ctx: HandlerContext = {
    policy: opts.policy,
    // The one probe of this process: every fault effect asks it (reference/fault-probe.ts).
    fault: faultProbe(opts.fault),
    snapshot: opts.snapshot,
    configuration: opts.configuration,
    seen: new Set<string>(),
    counts: { successes: 0 },
    decisions: new Map(),
  };
  const onExchange = tracer(opts);
  const held = opts.timeoutMs !== undefined ? { holdMs: holdMs(opts.timeoutMs) } : {};

  if (opts.transport === 'stdio') {
    // per_event compiles on its one message; persistent pays once, up front.
    runStdio({ lifecycle: opts.lifecycle, ctx, onExchange, ...held });
    return;
  }

  let token: string | undefined;
  if (opts.tokenEnv !== undefined) {
    token = process.env[opts.tokenEnv];
    if (token === undefined || token === '') {
      token = undefined;
      if (opts.auth === 'bearer') {
        // Claimed authentication fails closed: never serve unprotected instead.
        process.stderr.write(`ahp reference backend: --auth bearer: ${opts.tokenEnv} is not set\n`);
        process.exit(2);
      }
      process.stderr.write(`ahp reference backend: ${opts.tokenEnv} is not set; no authentication required\n`);
    }
  }
  let uploadToken: string | undefined;
  if (opts.uploadTokenEnv !== undefined) {
    uploadToken = process.env[opts.uploadTokenEnv] || undefined;
    // A receiver that requires a token fails closed: never accept uploads openly instead.
    if (uploadToken === undefined) {
      process.stderr.write(`ahp reference backend: --upload-token-env: ${opts.uploadTokenEnv} is not set\n`);
      process.exit(2);
    }
  }
  const oauth = opts.oauth ? await oauthOf(opts.oauth) : undefined;
  const server = createBackendServer({
    host: opts.host,
    port: opts.port,
    path: opts.path,
    token,
    oauth,
    uploadToken,
    ctx,
    onExchange,
    ...held,
  });
  const stop = (): void => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  listen(server, opts.host, opts.port).then(
    (port) => {
      const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
      process.stderr.write(`listening on http://${host}:${port}${opts.path}\n`);
    },
    (err: NodeJS.ErrnoException) => {
      process.stderr.write(
        `ahp reference backend: cannot listen on ${opts.host}:${opts.port}: ${err.code ?? err.message}\n`,
      );
      process.exit(1);
    },
  );
}

void main();
