// The reference harness's OAuth client for an explicit `oauth` preset, client credentials
// flow (capability-auth.md @ 2b5da580, "Explicit endpoint bindings" and "HTTP without an
// explicit binding"): RFC 8414 discovery from the preset issuer (OIDC location as fallback),
// a token request with the RFC 8707 resource and the preset scopes, and validation of what
// a client can validate: the exact issuer in the metadata, the TLS certificate (the run's
// trust roots only), no redirects, token endpoints on the issuer's origin (our local
// destination policy: client credentials go nowhere else), token type, expiry, granted
// scope. Access tokens that are JWTs (RFC 9068) are also verified against the issuer's
// JWKS for issuer, audience (= resource), expiry and scope; an opaque token is judged by the
// token response alone. Every step runs inside the dispatch deadline it is given.
// Tokens are cached per issuer, resource, client and scope set. jose is imported only when a
// JWT is verified: it costs about 0.1 s of CPU to load, and most runs of this process never
// get an OAuth token (the fault matrices start it thousands of times).
import { Agent } from 'node:https';
import type { JSONWebKeySet } from 'jose';
import type { HarnessFault } from './faults.js';
import type { Authentication } from './registration.js';
import { exchange } from './transports/exchange.js';

const MAX_BYTES = 256 * 1024;
/** A token is not used in its last seconds: a request may take that long to arrive. */
const EXPIRY_SKEW_S = 5;

export type Acquired = { ok: true; token: string } | { ok: false; failure: string };

interface Preset {
  issuer: string;
  resource: string;
  clientId: string;
  secret: string;
  scopes: string[];
}

type Fetched = { ok: true; status: number; json: unknown } | { ok: false; failure: string };

const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** `clientSecretRef`: "env:NAME" names a variable the deployment sets (docs/harness-adapter.md section 10). */
export function resolveSecretRef(ref: unknown): { ok: true; secret: string } | { ok: false; failure: string } {
  if (!str(ref)) return { ok: false, failure: 'the oauth preset has no clientSecretRef (client credentials need one)' };
  const m = /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(ref);
  if (!m) return { ok: false, failure: 'clientSecretRef is not an env:NAME reference (the only kind supported)' };
  const secret = process.env[m[1]!];
  if (!secret) return { ok: false, failure: `the client secret variable ${m[1]} is not set` };
  return { ok: true, secret };
}

/** RFC 8414 section 3.1: the well-known segment goes between the host and the issuer's path. */
export function metadataUrls(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '');
  return [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${u.origin}/.well-known/openid-configuration${path}`,
  ];
}

export class OAuthClient {
  private readonly agent: Agent;
  /** The requests in flight, dropped by close(). */
  private readonly live = new Set<AbortController>();
  private readonly cache = new Map<string, { token: string; until: number }>();

  constructor(
    /** PEM of the roots to trust (the config's tls.caFile); undefined: the system roots. */
    trust: string | undefined,
    private readonly fault: HarnessFault,
  ) {
    // Every connection's TLS: the run's trust roots only (the system's when none are given).
    const tls = {
      connect: {
        ...(trust !== undefined ? { ca: trust } : {}),
        rejectUnauthorized: !fault.is('oauth-trust-any-certificate'),
      },
    };
    // No keep-alive: every request its own connection, nothing lingers after the run.
    this.agent = new Agent({ ...tls.connect, keepAlive: false });
  }

  async close(): Promise<void> {
    for (const controller of this.live) controller.abort();
    this.live.clear();
    this.agent.destroy();
  }

  /** A token for the preset within `deadlineMs`, or why there is none (never a secret in the reason). */
  async token(auth: Authentication, deadlineMs: number): Promise<Acquired> {
    const until = Date.now() + deadlineMs;
    const preset = this.preset(auth);
    if (!preset.ok) return preset;
    const p = preset.preset;
    const key = JSON.stringify([p.issuer, p.resource, p.clientId, [...p.scopes].sort()]);
    const cached = this.cache.get(key);
    if (cached && cached.until > Date.now()) return { ok: true, token: cached.token };
    const left = (): number => until - Date.now();

    // Discovery.
    let meta: Record<string, unknown> | undefined;
    for (const url of metadataUrls(p.issuer)) {
      const got = await this.fetchJson(url, 'GET', {}, undefined, left());
      if (!got.ok) return { ok: false, failure: `authorization server metadata: ${got.failure}` };
      if (got.status === 404) continue;
      if (got.status !== 200 || !isObj(got.json))
        return { ok: false, failure: `authorization server metadata: HTTP ${got.status}` };
      meta = got.json;
      break;
    }
    if (!meta) return { ok: false, failure: 'authorization server metadata not found' };
    const checked = !this.fault.is('oauth-unchecked-token');
    if (checked && meta.issuer !== p.issuer)
      return { ok: false, failure: 'the metadata issuer is not the configured issuer' };
    const tokenEndpoint = meta.token_endpoint;
    if (!str(tokenEndpoint) || !sameOrigin(tokenEndpoint, p.issuer))
      return { ok: false, failure: "token_endpoint is missing or not on the issuer's https origin" };

    // Client credentials, client_secret_basic (RFC 6749 2.3.1), resource-bound (RFC 8707).
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (!this.fault.is('oauth-no-resource')) form.set('resource', p.resource);
    if (p.scopes.length) form.set('scope', p.scopes.join(' '));
    const basic = Buffer.from(`${formEncode(p.clientId)}:${formEncode(p.secret)}`).toString('base64');
    const got = await this.fetchJson(
      tokenEndpoint,
      'POST',
      { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      form.toString(),
      left(),
    );
    if (!got.ok) return { ok: false, failure: `token request: ${got.failure}` };
    if (got.status !== 200) return { ok: false, failure: `token request: HTTP ${got.status}` };
    const r = got.json;
    if (
      !isObj(r) ||
      !str(r.access_token) ||
      typeof r.token_type !== 'string' ||
      r.token_type.toLowerCase() !== 'bearer'
    )
      return { ok: false, failure: 'token response: no bearer access_token' };
    const token = r.access_token;
    let ttlS = typeof r.expires_in === 'number' ? r.expires_in : undefined;
    if (checked) {
      if (ttlS !== undefined && ttlS <= EXPIRY_SKEW_S) return { ok: false, failure: 'token response: expired token' };
      // RFC 6749 5.1: scope is present when it differs from the request.
      if (typeof r.scope === 'string' && !covers(r.scope, p.scopes))
        return { ok: false, failure: 'token response: narrower scope than requested' };
      if (token.split('.').length === 3) {
        const verdict = await this.verifyJwt(token, meta, p, left());
        if (!verdict.ok) return verdict;
        ttlS = Math.min(ttlS ?? Infinity, verdict.exp - Date.now() / 1000);
      }
    }
    this.cache.set(key, { token, until: Date.now() + Math.max(0, (ttlS ?? 60) - EXPIRY_SKEW_S) * 1000 });
    return { ok: true, token };
  }

  private preset(auth: Authentication): { ok: true; preset: Preset } | { ok: false; failure: string } {
    if (auth.flow !== 'client_credentials')
      return { ok: false, failure: 'only the client_credentials flow is supported (no interaction here)' };
    if (!str(auth.issuer) || !str(auth.resource) || !str(auth.clientId))
      return { ok: false, failure: 'the oauth preset lacks issuer, resource or clientId' };
    if (!auth.issuer.startsWith('https://')) return { ok: false, failure: 'the oauth issuer is not https' };
    const secret = resolveSecretRef(auth.clientSecretRef);
    if (!secret.ok) return secret;
    const scopes = Array.isArray(auth.scopes) ? auth.scopes.filter(str) : [];
    return {
      ok: true,
      preset: { issuer: auth.issuer, resource: auth.resource, clientId: auth.clientId, secret: secret.secret, scopes },
    };
  }

  private async verifyJwt(
    token: string,
    meta: Record<string, unknown>,
    p: Preset,
    leftMs: number,
  ): Promise<{ ok: true; exp: number } | { ok: false; failure: string }> {
    const jwksUri = meta.jwks_uri;
    if (!str(jwksUri) || !sameOrigin(jwksUri, p.issuer))
      return { ok: false, failure: "jwks_uri is missing or not on the issuer's https origin" };
    const got = await this.fetchJson(jwksUri, 'GET', {}, undefined, leftMs);
    if (!got.ok || got.status !== 200 || !isObj(got.json) || !Array.isArray(got.json.keys))
      return { ok: false, failure: 'the issuer JWKS could not be read' };
    const { createLocalJWKSet, jwtVerify } = await import('jose');
    try {
      const { payload } = await jwtVerify(token, createLocalJWKSet(got.json as unknown as JSONWebKeySet), {
        issuer: p.issuer,
        audience: p.resource,
      });
      if (typeof payload.scope === 'string' && !covers(payload.scope, p.scopes))
        return { ok: false, failure: 'access token: narrower scope than requested' };
      return { ok: true, exp: typeof payload.exp === 'number' ? payload.exp : Infinity };
    } catch (e) {
      const claim = (e as { claim?: string }).claim;
      return {
        ok: false,
        failure: `access token rejected (${(e as { code?: string }).code ?? 'invalid'}${claim ? `: ${claim}` : ''})`,
      };
    }
  }

  private async fetchJson(
    url: string,
    method: 'GET' | 'POST',
    headers: Record<string, string>,
    body: string | undefined,
    timeoutMs: number,
  ): Promise<Fetched> {
    if (timeoutMs <= 0) return { ok: false, failure: 'deadline exceeded' };
    const bound = this.fault.is('oauth-unbounded-acquisition') ? 10 * 60_000 : timeoutMs;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), bound);
    this.live.add(controller);
    const bytes = body !== undefined ? Buffer.from(body, 'utf8') : undefined;
    try {
      // exchange() follows no redirect: a 3xx is just a status here.
      const res = await exchange(
        url,
        {
          method,
          headers: {
            accept: 'application/json',
            ...headers,
            ...(bytes !== undefined ? { 'content-length': String(bytes.length) } : {}),
          },
          agent: this.agent,
          signal: controller.signal,
        },
        bytes,
        MAX_BYTES,
      );
      if (res === 'too-large') return { ok: false, failure: 'response too large' };
      let json: unknown;
      try {
        json = JSON.parse(res.body.toString('utf8'));
      } catch {
        json = undefined;
      }
      return { ok: true, status: res.status, json };
    } catch (err) {
      if (controller.signal.aborted) return { ok: false, failure: 'no answer within the deadline' };
      // Only the code: messages can carry URLs.
      const c = (err as { code?: unknown }).code;
      return { ok: false, failure: `request failed (${typeof c === 'string' ? c : 'error'})` };
    } finally {
      clearTimeout(timer);
      this.live.delete(controller);
    }
  }
}

function isObj(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

function sameOrigin(url: string, issuer: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' && u.origin === new URL(issuer).origin;
  } catch {
    return false;
  }
}

function covers(granted: string, wanted: readonly string[]): boolean {
  const have = new Set(granted.split(' ').filter(Boolean));
  return wanted.every((s) => have.has(s));
}

/** RFC 6749 2.3.1: the id and secret are form-urlencoded before Basic encoding. */
function formEncode(s: string): string {
  return encodeURIComponent(s).replace(/%20/g, '+');
}
