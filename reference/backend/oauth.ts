// OAuth protection of the reference backend's HTTP endpoint (--auth oauth): a protected
// resource in the sense of RFC 9728 and RFC 6750, whose one trusted issuer is named in
// the environment. At start it discovers the issuer (RFC 8414 metadata) and fetches its
// JWKS over HTTPS trusting only the CA file it is given, then accepts a request only with a
// JWT access token (typ at+jwt, RFC 9068) signed by one of that issuer's published keys
// (never a key the token names itself), for this resource (RFC 8707 `aud`), unexpired, and
// with every required scope. JWT handling is jose's, imported only here when --auth oauth is
// given: it costs about 0.1 s of CPU to load, and the fault matrices start this backend
// thousands of times, mostly without OAuth.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { get } from 'node:https';
import type { JSONWebKeySet } from 'jose';
import type { FaultProbe } from '../fault-probe.js';
import type { FaultMode } from './faults.js';

export const PRM_PREFIX = '/.well-known/oauth-protected-resource';
const MAX_DOCUMENT = 256 * 1024;
const FETCH_TIMEOUT_MS = 10_000;

/** Why a token is refused: 401 invalid_token, or 403 insufficient_scope (RFC 6750 3.1). */
export type TokenRefusal = { status: 401 | 403; error: 'invalid_token' | 'insufficient_scope' };

export interface OAuthProtection {
  readonly issuer: string;
  readonly scopes: readonly string[];
  /** The RFC 9728 metadata path of the endpoint at `path`. */
  metadataPath(path: string): string;
  /** The metadata document for the resource identifier `resource`. */
  metadata(resource: string): Record<string, unknown>;
  /** Undefined when the token is good for `resource`. */
  verify(token: string, resource: string, fault: FaultProbe<FaultMode>): Promise<TokenRefusal | undefined>;
}

/** GET a JSON object over HTTPS, trusting only `ca` and following no redirect. */
function getJson(url: string, ca: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    if (!url.startsWith('https://')) return reject(new Error(`${url} is not an https URL`));
    const req = get(url, { ca, timeout: FETCH_TIMEOUT_MS }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`${url}: HTTP ${res.statusCode}`));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_DOCUMENT) req.destroy(new Error(`${url}: document too large`));
        else chunks.push(c);
      });
      res.on('end', () => {
        try {
          const v = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
          if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not a JSON object');
          resolve(v as Record<string, unknown>);
        } catch (e) {
          reject(new Error(`${url}: ${e instanceof Error ? e.message : String(e)}`));
        }
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${url}: timed out`)));
    req.on('error', reject);
  });
}

/** Discover the issuer and its keys; rejects (the backend then refuses to start) on any doubt. */
export async function loadOAuth(issuer: string, caFile: string, scopes: readonly string[]): Promise<OAuthProtection> {
  const { compactVerify, createLocalJWKSet, decodeProtectedHeader, EmbeddedJWK, jwtVerify } = await import('jose');
  const ca = readFileSync(caFile, 'utf8');
  const u = new URL(issuer);
  // RFC 8414 3: the well-known segment goes between the host and the issuer's path.
  const path = u.pathname === '/' ? '' : u.pathname;
  const meta = await getJson(`${u.origin}/.well-known/oauth-authorization-server${path}`, ca);
  // RFC 8414 3.3: the metadata must be for the issuer it was fetched for.
  if (meta.issuer !== issuer) throw new Error(`the issuer metadata names ${JSON.stringify(meta.issuer)}`);
  if (typeof meta.jwks_uri !== 'string') throw new Error('the issuer metadata has no jwks_uri');
  const jwks = await getJson(meta.jwks_uri, ca);
  if (!Array.isArray(jwks.keys)) throw new Error('the JWKS has no keys');
  const keys = createLocalJWKSet(jwks as unknown as JSONWebKeySet);
  // RFC 9068 4: typ at+jwt (jose compares it as a media type: application/at+jwt and any
  // case pass); the audience must name this resource; only the issuer's keys verify.
  const checksFor = (resource: string) => ({ issuer, audience: resource, algorithms: ['ES256'], typ: 'at+jwt' });
  /**
   * What the OAuth faults make of a token refused above (each asked only where its leniency
   * could let this token through), or undefined: still refused.
   */
  const faultyPayload = async (
    token: string,
    refused: unknown,
    resource: string,
    fault: FaultProbe<FaultMode>,
  ): Promise<Record<string, unknown> | undefined> => {
    const checks = checksFor(resource);
    const { claim, reason } = refused as { claim?: string; reason?: string };
    let header: Record<string, unknown> = {};
    try {
      header = decodeProtectedHeader(token) as Record<string, unknown>;
    } catch {
      return undefined;
    }
    const attempt = async (
      key: Parameters<typeof jwtVerify>[1],
      options: Record<string, unknown>,
    ): Promise<Record<string, unknown> | undefined> => {
      try {
        return (await jwtVerify(token, key as never, options)).payload;
      } catch {
        return undefined;
      }
    };
    // oauth-any-audience: the signature is checked, audience, expiry, issuer and typ are not.
    if (fault.is('oauth-any-audience')) {
      try {
        const { payload: bytes } = await compactVerify(token, keys, { algorithms: ['ES256'] });
        return JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
      } catch {
        return undefined;
      }
    }
    if (claim === 'typ' && fault.is('oauth-any-typ')) return attempt(keys, { ...checks, typ: undefined });
    if (claim === 'aud' && reason === 'missing' && fault.is('oauth-no-aud-accepted'))
      return attempt(keys, { ...checks, audience: undefined });
    // The key-confusion faults: the key the token points to stands in for the issuer's.
    if (header.jwk !== undefined && fault.is('oauth-trust-jwk')) return attempt(EmbeddedJWK, checks);
    if (typeof header.jku === 'string' && fault.is('oauth-trust-jku')) {
      try {
        return attempt(createLocalJWKSet((await getJson(header.jku, ca)) as unknown as JSONWebKeySet), checks);
      } catch {
        return undefined;
      }
    }
    if (Array.isArray(header.x5c) && typeof header.x5c[0] === 'string' && fault.is('oauth-trust-x5c')) {
      try {
        return attempt(new X509Certificate(Buffer.from(header.x5c[0], 'base64')).publicKey, checks);
      } catch {
        return undefined;
      }
    }
    return undefined;
  };
  const lacksScope = (payload: Record<string, unknown>): boolean => {
    const granted = new Set(typeof payload.scope === 'string' ? payload.scope.split(' ') : []);
    return scopes.some((s) => !granted.has(s));
  };
  return {
    issuer,
    scopes,
    metadataPath: (p) => `${PRM_PREFIX}${p === '/' ? '' : p}`,
    metadata: (resource) => ({
      resource,
      authorization_servers: [issuer],
      bearer_methods_supported: ['header'],
      ...(scopes.length ? { scopes_supported: [...scopes] } : {}),
    }),
    async verify(token, resource, fault) {
      let payload: Record<string, unknown>;
      try {
        payload = (await jwtVerify(token, keys, checksFor(resource))).payload;
      } catch (e) {
        const faulty = await faultyPayload(token, e, resource, fault);
        if (!faulty) return { status: 401, error: 'invalid_token' };
        payload = faulty;
      }
      return lacksScope(payload) ? { status: 403, error: 'insufficient_scope' } : undefined;
    },
  };
}
