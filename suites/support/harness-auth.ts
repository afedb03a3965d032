// What an OAuth-protected harness run gets besides its scripted backend: a per-run CA
// (its certificate written to the run folder, the harness told to trust it through the
// adapter config's `tls.caFile`), the runner's authorization server, the protection of the
// hooks that use it, and the registration's oauth preset (docs/harness-adapter.md section 11).
import type { Folder } from '../../src/safe-fs.js';
import type { AuthorizationServer, AsRecord, Misbehaviour } from '../../drivers/auth/authorization-server.js';
import { loadAuth } from '../../drivers/auth/lazy.js';
import type { HttpProtection } from '../../drivers/scripted-backend/http-server.js';
import { nowMs } from '../../drivers/scripted-backend/script.js';

type Obj = Record<string, unknown>;

/** The variable the runner sets to the client secret; the preset names it as `env:<name>`. */
export const CLIENT_SECRET_ENV = 'AHP_CONFORMANCE_CLIENT_SECRET';
export const OAUTH_CLIENT_ID = 'ahp-conformance-harness';
/** Two scopes, so that a narrower grant is still a non-empty one. */
export const OAUTH_SCOPES: readonly string[] = ['ahp.hooks.deliver', 'ahp.hooks.observe'];

/** How the run's authorization server behaves. */
export interface RunAuthPlan {
  misbehaviour?: Misbehaviour;
  /** `stall`: how long the token endpoint holds its answer. */
  stallMs?: number;
}

/** What the checks read of the run's authorization server. */
export interface RunAuthObservation {
  issuer: string;
  caFile: string;
  misbehaviour?: Misbehaviour;
  /** Every request the server received (no secrets). */
  records: AsRecord[];
  /** Where an access token the server issued appeared in the adapter's output or report. */
  tokenLeaks: string[];
}

export class RunAuth {
  private constructor(
    private readonly as: AuthorizationServer,
    readonly caFile: string,
    readonly protect: HttpProtection,
    private readonly plan: RunAuthPlan,
  ) {}

  static async start(
    runFolder: Folder,
    protectedHooks: readonly string[],
    plan: RunAuthPlan,
    clientSecret: string,
    onToken: (token: string) => void,
  ): Promise<RunAuth> {
    const { createRunCa, AuthorizationServer } = await loadAuth();
    const ca = await createRunCa();
    const as = await AuthorizationServer.start({
      ca,
      clientId: OAUTH_CLIENT_ID,
      clientSecret,
      misbehaviour: plan.misbehaviour,
      stallMs: plan.stallMs,
      now: nowMs,
      onToken,
    });
    // Only the certificate: the CA's key never leaves this process.
    // Written into the run's own folder, never through a link the adapter planted (src/safe-fs.ts).
    const caFile = runFolder.show('run-ca.pem');
    runFolder.write('run-ca.pem', ca.certPem);
    const protect: HttpProtection = {
      hooks: new Set(protectedHooks),
      protection: { issuer: as.issuer, jwk: as.publicJwk, scopes: OAUTH_SCOPES, issued: () => as.issuedIds() },
    };
    return new RunAuth(as, caFile, protect, plan);
  }

  /** The registration's oauth preset for the hook endpoint `url` (its resource: the URL without the query). */
  presetFor(url: string): Obj {
    const u = new URL(url);
    u.search = '';
    return {
      type: 'oauth',
      issuer: this.as.issuer,
      resource: u.href,
      clientId: OAUTH_CLIENT_ID,
      clientSecretRef: `env:${CLIENT_SECRET_ENV}`,
      flow: 'client_credentials',
      scopes: [...OAUTH_SCOPES],
    };
  }

  /** Where the issued access tokens show in what the adapter wrote (named places). */
  leaksIn(places: Record<string, string>): string[] {
    return Object.entries(places).flatMap(([where, text]) => (this.as.holdsToken(text) ? [where] : []));
  }

  observation(tokenLeaks: string[] = []): RunAuthObservation {
    return {
      tokenLeaks,
      issuer: this.as.issuer,
      caFile: this.caFile,
      ...(this.plan.misbehaviour ? { misbehaviour: this.plan.misbehaviour } : {}),
      records: this.as.records.map((r) => ({ ...r })),
    };
  }

  close(): Promise<void> {
    return this.as.close();
  }
}
