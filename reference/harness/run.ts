// Everything one harness run shares: the loaded hooks, the fault mode, one transport per
// hook (created on first use, so nothing starts before the first message), the pending
// observations, and the local audit log (stderr, one line each, never a secret).
import type { ScenarioSession } from './config.js';
import type { HarnessFault } from './faults.js';
import { Observations } from './observe.js';
import type { Hook } from './registration.js';
import { OLDEST_SNAPSHOT, type SnapshotId } from '../../src/protocol/snapshots.js';
import { AUTH_MECHANISMS, type AuthMechanism } from '../../src/protocol/catalogue.js';
import { HttpTransport } from './transports/http.js';
import { OAuthClient } from './oauth.js';
import { PerEventStdio } from './transports/stdio-per-event.js';
import { PersistentStdio } from './transports/stdio-persistent.js';
import type { Transport } from './transports/types.js';

export class Run {
  readonly observations: Observations;
  private readonly transports = new Map<Hook, Transport>();
  private rpcCounter = 0;
  private oauthClient?: OAuthClient;

  constructor(
    readonly hooks: readonly Hook[],
    readonly session: ScenarioSession,
    readonly sentinelTool: string,
    readonly fault: HarnessFault,
    /** The snapshot whose rules the harness follows (--snapshot). */
    readonly snapshot: SnapshotId = OLDEST_SNAPSHOT,
    /** PEM of the roots the config says to trust for this run (tls.caFile); undefined: the system's. */
    readonly trust?: string,
    /** The endpoint authentication it supports (--authentication): without oauth, oauth bindings fail before delivery. */
    readonly authentication: readonly AuthMechanism[] = AUTH_MECHANISMS,
  ) {
    this.observations = new Observations(this);
  }

  transportFor(hook: Hook): Transport {
    let t = this.transports.get(hook);
    if (!t) {
      const cfg = hook.transport;
      // The OAuth client (and what it asks the fault probe) exists only for hooks that use OAuth,
      // in a harness that supports it; without one, http.ts refuses an oauth binding before sending.
      if (cfg.type === 'http')
        t = new HttpTransport(
          cfg,
          hook.authentication,
          this.fault,
          hook.authentication?.type === 'oauth' && this.authentication.includes('oauth') ? this.oauth() : undefined,
        );
      else if (cfg.lifecycle === 'per_event') t = new PerEventStdio(cfg, this.fault);
      else t = new PersistentStdio(cfg, this.fault);
      this.transports.set(hook, t);
    }
    return t;
  }

  /** One OAuth client per run: its token cache serves every hook (bound per issuer, resource, client, scope). */
  private oauth(): OAuthClient {
    return (this.oauthClient ??= new OAuthClient(this.trust, this.fault));
  }

  /** The JSON-RPC id of an intercept: the event id (id-differs fault: a counter). */
  rpcIdFor(eventId: string): string {
    return this.fault.is('id-differs') ? `rpc-${++this.rpcCounter}` : eventId;
  }

  audit(line: string): void {
    process.stderr.write(`reference-harness: ${line.replace(/[\r\n]+/g, ' ')}\n`);
  }

  /** Stop every transport (processes, connections). Bounded; never throws. */
  async close(): Promise<void> {
    await Promise.all([...this.transports.values()].map((t) => t.close().catch(() => {})));
    await this.oauthClient?.close();
  }
}
