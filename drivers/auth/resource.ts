// The protected-resource side of the scripted HTTP backend: a hook endpoint that accepts an
// event only with a bearer JWT the run's authorization server issued for this resource with
// the required scopes, and otherwise answers 401 with an RFC 9728 `resource_metadata`
// challenge (before reading the event: AHP has protected servers reject first). The
// protected-resource metadata is served at the well-known locations.
import { createLocalJWKSet, jwtVerify, type JWK } from 'jose';

export interface Protection {
  issuer: string;
  /** The JWKS of the issuer (its public key). */
  jwk: JWK;
  /** Scopes every token must carry. */
  scopes: readonly string[];
  /** Ids (`jti`) of the tokens the issuer gave out (a token from elsewhere is "another credential"). */
  issued: () => Set<string>;
}

/** What the resource made of a request's Authorization. */
export interface BearerVerdict {
  /** none: no Authorization; issued: a valid token of the run's issuer; invalid: anything else. */
  kind: 'none' | 'issued' | 'invalid';
  /** Why it was refused (no token text). */
  why?: string;
  /** The token's id when it is one the issuer gave out (valid or not). */
  jti?: string;
}

export const PRM_PATH = '/.well-known/oauth-protected-resource';

/** RFC 9728 3.1: the metadata URL of a resource, path-specific. */
export function metadataUrl(resource: string): string {
  const u = new URL(resource);
  return `${u.origin}${PRM_PATH}${u.pathname === '/' ? '' : u.pathname}`;
}

export function resourceMetadata(resource: string, p: Protection): Record<string, unknown> {
  return {
    resource,
    authorization_servers: [p.issuer],
    scopes_supported: [...p.scopes],
    bearer_methods_supported: ['header'],
  };
}

/** The 401 challenge (RFC 6750 3, RFC 9728 5.1). */
export function challenge(resource: string, p: Protection | undefined, error?: string): string {
  const parts = [`resource_metadata="${metadataUrl(resource)}"`];
  if (p?.scopes.length) parts.push(`scope="${p.scopes.join(' ')}"`);
  if (error) parts.push(`error="${error}"`);
  return `Bearer ${parts.join(', ')}`;
}

function payloadOf(token: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** Judge the Authorization headers of one request for `resource`. */
export async function verifyBearer(
  headers: readonly string[],
  resource: string,
  p: Protection,
): Promise<BearerVerdict> {
  if (headers.length === 0) return { kind: 'none' };
  if (headers.length > 1) return { kind: 'invalid', why: `${headers.length} Authorization headers` };
  const m = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/.exec(headers[0]!);
  if (!m) return { kind: 'invalid', why: 'not a Bearer credential' };
  const token = m[1]!;
  const claimed = payloadOf(token);
  const jti = typeof claimed?.jti === 'string' && p.issued().has(claimed.jti) ? claimed.jti : undefined;
  try {
    const { payload } = await jwtVerify(token, createLocalJWKSet({ keys: [p.jwk] }), {
      issuer: p.issuer,
      audience: resource,
      typ: 'at+jwt',
      algorithms: ['ES256'],
    });
    const scopes = new Set(typeof payload.scope === 'string' ? payload.scope.split(' ') : []);
    const missing = p.scopes.filter((s) => !scopes.has(s));
    if (missing.length) return { kind: 'invalid', why: `insufficient scope (lacks ${missing.join(' ')})`, jti };
    return { kind: 'issued', jti };
  } catch (e) {
    const code = (e as { code?: string }).code ?? 'invalid token';
    const claim = (e as { claim?: string }).claim;
    return { kind: 'invalid', why: `${code}${claim ? ` (${claim})` : ''}`, jti };
  }
}
