// One check's conversation with a backend under test. The runner plays the harness: it
// sends requests and notifications through the channel of the target's transport and
// lifecycle (drivers/channel.ts), waits at most one deadline per exchange, and hands back
// what came back — raw bytes, parsed value and transport details — for the check to judge.
// Which channel is picked here, once; everything after is the same for every transport.
import { randomBytes } from 'node:crypto';
import { writeFileSafely } from '../../src/safe-fs.js';
import { join } from 'node:path';
import getPort from 'get-port';
import type { AuthorizationServer } from '../../drivers/auth/authorization-server.js';
import { loadAuth } from '../../drivers/auth/lazy.js';
import type {
  Channel,
  Fence,
  ParseJson,
  Reply,
  RequestOptions,
  Silence,
  SilenceProbe,
  WireMessage,
} from '../../drivers/channel.js';
import { ReplyTiming } from '../../drivers/channel.js';
import { HttpChannel } from '../../drivers/http-channel.js';
import { PerEventStdioChannel, PersistentStdioChannel } from '../../drivers/stdio-channel.js';
import type { Transcript } from '../../drivers/transcript.js';
import type { Lifecycle, Transport } from '../../src/checks/catalogue.js';
import {
  HARMLESS_TOOL,
  interceptRequest,
  newId,
  toolBeforeEvent,
  type DeliberateProbe,
} from '../../src/checks/probes.js';
import type { ResolvedClaim } from '../../src/claims/load.js';
import { implementationEnv, type DeclaredEnv } from '../../src/claims/environment.js';
import type { CheckWorkspace } from '../../src/engine/workspace.js';
import { fenceMarginMs, patienceMs } from '../../src/timing.js';
import { isObject, parseJsonStrict } from '../../src/protocol/json.js';
import { ObservedLog } from '../../src/results/observed.js';
import { observeBackendExchange } from './claim-observations.js';

export type { Reply, Silence } from '../../drivers/channel.js';

export type Outgoing = Record<string, unknown> | DeliberateProbe;

/** The protocol's strict parser, for every reply a channel reads. */
const parseStrict: ParseJson = (text) => {
  const p = parseJsonStrict(text);
  return p.ok ? p : { ok: false, message: p.findings.map((f) => f.message).join('; ') };
};

const isDeliberate = (m: Outgoing): m is DeliberateProbe =>
  typeof (m as DeliberateProbe).deliberate === 'string' && 'message' in m;

function frame(m: Outgoing): WireMessage {
  // The id, when it has one, lets the channel set aside a reply that comes after it gave up.
  const idOf = (o: unknown): { id?: string | number } => {
    const id = isObject(o) ? o.id : undefined;
    return typeof id === 'string' || typeof id === 'number' ? { id } : {};
  };
  if (isDeliberate(m))
    return {
      text: typeof m.message === 'string' ? m.message : JSON.stringify(m.message),
      note: `probe is wrong on purpose: ${m.deliberate}`,
      ...idOf(m.message),
    };
  return { text: JSON.stringify(m), ...idOf(m) };
}

export class BackendSession {
  readonly transcript: Transcript;
  /**
   * The bearer token sent over HTTP: the claim's, else a canary so leaks can be seen; for an
   * OAuth-protected backend, an access token of the runner's issuer for the endpoint (set by
   * prepare(), before the check runs).
   */
  token?: string;
  /**
   * The upload receiver's own bearer token (`backend.upload.auth`), made up like `token` when
   * the runner starts the server and the variable is unset: a different random value, so the
   * event token never authorizes an upload by accident.
   */
  uploadToken?: string;
  /** OAuth-protected backends: the runner's authorization server for this check, and the endpoint URL its tokens are for. */
  oauth?: { as: AuthorizationServer; resource: string; scopes: readonly string[] };
  /** The transport and lifecycle of this session, picked once from the target. */
  readonly channel: Channel;
  /** What the backend returned that its claim is held against after the run (src/results/over-claim.ts). */
  readonly observed = new ObservedLog();
  private readonly timing: ReplyTiming;

  constructor(
    readonly claim: ResolvedClaim,
    readonly transport: Transport,
    readonly lifecycle: Lifecycle | undefined,
    readonly timeoutMs: number,
    transcript: Transcript,
    /** The check's folder and the confinement of every process this session starts. */
    private readonly workspace: CheckWorkspace,
  ) {
    this.transcript = transcript;
    if (transport === 'http') {
      const h = claim.backend?.http;
      const tokenEnv = h?.tokenEnv;
      // OAuth: prepare() obtains the token.
      // A server the runner starts gets its token from the runner (docs/claims.md): the
      // variable's value when set, else a fresh one per check, so a claim needs no secret.
      this.token = tokenEnv
        ? process.env[tokenEnv] ||
          (h?.command !== undefined ? `ahp-run-${randomBytes(24).toString('base64url')}` : undefined)
        : undefined;
      if (this.token) this.transcript.addSecret(this.token);
      const uploadEnv = claim.backend?.upload?.tokenEnv;
      this.uploadToken = uploadEnv
        ? process.env[uploadEnv] ||
          (h?.command !== undefined ? `ahp-upload-${randomBytes(24).toString('base64url')}` : undefined)
        : undefined;
      if (this.uploadToken) this.transcript.addSecret(this.uploadToken);
    }
    this.timing = new ReplyTiming(timeoutMs, patienceMs(timeoutMs), transcript, fenceMarginMs);
    this.channel = this.pickChannel();
  }

  /**
   * An OAuth-protected HTTP backend: start the runner's authorization server (with a CA made
   * for this check), write the CA certificate where the backend is told to find it, and get
   * the access token for the endpoint (its {port} picked now: the token's audience is the
   * URL). Nothing for other sessions.
   */
  async prepare(): Promise<void> {
    const o = this.transport === 'http' ? this.claim.backend?.http?.oauth : undefined;
    if (!o || this.oauth) return;
    this.httpPort = String(await getPort({ host: '127.0.0.1' }));
    const { createRunCa, AuthorizationServer } = await loadAuth();
    const ca = await createRunCa();
    const as = await AuthorizationServer.start({
      ca,
      clientId: `ahp-runner-${randomBytes(6).toString('hex')}`,
      clientSecret: randomBytes(24).toString('base64url'),
      onToken: (t) => this.transcript.addSecret(t),
    });
    const resource = this.claim.backend!.http!.url.replaceAll('{port}', this.httpPort);
    this.oauth = { as, resource, scopes: o.scopes };
    writeFileSafely(this.caFile, ca.certPem, 0o644);
    this.token = await as.mint({ aud: resource, scope: o.scopes.join(' ') });
  }

  /** Where the run CA certificate is written for the backend (the check's folder). */
  private get caFile(): string {
    return join(this.workspace.dir, 'ahp-run-ca.pem');
  }

  private pickChannel(): Channel {
    // A request unanswered by its deadline is judged by causality: a harmless intercept on the
    // same process or endpoint, whose answer shows the backend alive (drivers/channel.ts, Fence).
    const fence = (): Fence => {
      const req = interceptRequest(toolBeforeEvent(HARMLESS_TOOL, newId('fence')));
      return { message: { text: JSON.stringify(req), id: String(req.id) } };
    };
    const common = { transcript: this.transcript, timing: this.timing, parse: parseStrict };
    if (this.transport === 'http') {
      // Read per request: an OAuth token arrives in prepare(), after the channel exists.
      const session = this;
      return new HttpChannel({
        ...common,
        launch: () => this.httpLaunch(),
        fence,
        get token() {
          return session.token;
        },
      });
    }
    const launch = () => {
      const s = this.claim.backend!.stdio!;
      return {
        command: s.command,
        args: s.args,
        cwd: s.cwd,
        env: this.env(s),
        confine: this.workspace.confine([s.cwd]),
        transcript: this.transcript,
      };
    };
    return this.lifecycle === 'per_event'
      ? new PerEventStdioChannel({ ...common, launch })
      : new PersistentStdioChannel({ ...common, launch, fence });
  }

  /** The implementation's environment (src/claims/environment.ts); the HTTP token only to the HTTP server. */
  private env(declared: DeclaredEnv, fill: (s: string) => string = (s) => s): Record<string, string> {
    const tokenEnv = this.transport === 'http' ? this.claim.backend?.http?.tokenEnv : undefined;
    const uploadEnv = this.transport === 'http' ? this.claim.backend?.upload?.tokenEnv : undefined;
    const o = this.transport === 'http' ? this.claim.backend?.http?.oauth : undefined;
    const filled = {
      env: Object.fromEntries(Object.entries(declared.env).map(([k, v]) => [k, fill(v)])),
      passEnv: declared.passEnv,
    };
    return implementationEnv(filled, {
      TMPDIR: this.workspace.dir,
      ...(tokenEnv && this.token ? { [tokenEnv]: this.token } : {}),
      ...(uploadEnv && this.uploadToken ? { [uploadEnv]: this.uploadToken } : {}),
      ...(o && this.oauth ? { [o.issuerEnv]: this.oauth.as.issuer, [o.caFileEnv]: this.caFile } : {}),
    });
  }

  /** The claim's server on a free loopback port ({port} in its url, args and environment). */
  private async httpLaunch() {
    const h = this.claim.backend!.http!;
    // An OAuth session picked its port in prepare(): its token is for that URL.
    const port = this.httpPort ?? String(await getPort({ host: '127.0.0.1' }));
    this.httpPort = port;
    this.launched = true;
    const fill = (s: string): string => s.replaceAll('{port}', port);
    return {
      ...(h.command ? { command: h.command } : {}),
      args: h.args.map(fill),
      cwd: h.cwd,
      env: this.env(h, fill),
      confine: this.workspace.confine([h.cwd]),
      url: fill(h.url),
      readyTimeoutMs: h.readyTimeoutMs,
      transcript: this.transcript,
    };
  }

  /** The port of the HTTP server ({port}), once picked. */
  private httpPort?: string;
  /** Whether the HTTP server was launched (started, or found running). */
  private launched = false;

  /**
   * The claim's upload receiver URL (`backend.upload.url`, its {port} filled): served beside
   * the HTTP endpoint, so a harmless intercept starts the server first.
   */
  async uploadUrl(): Promise<string | undefined> {
    const upload = this.claim.backend?.upload;
    if (!upload) return undefined;
    if (this.transport === 'http' && !this.launched)
      await this.request(interceptRequest(toolBeforeEvent(HARMLESS_TOOL, newId('upload-start'))));
    return this.httpPort === undefined ? upload.url : upload.url.replaceAll('{port}', this.httpPort);
  }

  /** Send one message that expects a reply; wait at most one deadline (with patience). */
  async request(m: Outgoing, opts: { token?: string } & Omit<RequestOptions, 'credential'> = {}): Promise<Reply> {
    const { token, ...rest } = opts;
    const reply = await this.channel.request(frame(m), { ...rest, ...(token ? { credential: token } : {}) });
    // A probe wrong on purpose says nothing of what the backend decides for its claim.
    const seen = isDeliberate(m) ? undefined : observeBackendExchange(m, reply);
    if (seen) this.observed.add(seen);
    return reply;
  }

  /** Whether the claim says this HTTP backend requires bearer credentials. */
  get authClaimed(): boolean {
    const h = this.transport === 'http' ? this.claim.backend?.http : undefined;
    return h?.tokenEnv !== undefined || h?.oauth !== undefined;
  }

  /**
   * Send a notification and judge silence positively (how depends on the transport:
   * drivers/channel.ts). On a stream the follow-up is a harmless intercept whose reply must
   * be the next one.
   */
  notify(m: Outgoing): Promise<Silence> {
    const follow = interceptRequest(toolBeforeEvent(HARMLESS_TOOL, newId('follow-up')));
    const probe: SilenceProbe = {
      followUp: { text: JSON.stringify(follow) },
      isFollowUp: (v) => (v as { id?: unknown } | null | undefined)?.id === follow.id,
      // Silence is judged on the JSON-RPC layer; an HTTP status and empty body are http.observe-empty's.
      isResponse: (v) => isObject(v) && ('result' in v || 'error' in v),
    };
    return this.channel.notify(frame(m), probe);
  }

  /** How long the session waits for a reply before it fails: patience (src/timing.ts), not timeoutMs. */
  get patience(): number {
    return this.timing.patienceMs;
  }

  /** Replies that came after timeoutMs (each one's latency): a warning on the check. */
  get late(): readonly { ms: number; includesStart: boolean }[] {
    return this.timing.late;
  }

  async close(): Promise<void> {
    await this.channel.close();
    await this.oauth?.as.close();
    this.workspace.dispose();
  }
}
