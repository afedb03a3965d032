// The runner's own OAuth authorization server (RFC 8414 metadata, client credentials with
// RFC 8707 resource indicators, ES256 JWT access tokens shaped as RFC 9068 describes),
// over HTTPS on loopback with a certificate of the run CA. Every request it receives is
// recorded (no secret in the record) for evidence and judging. A check may script one
// misbehaviour, the way a hostile or broken issuer would act. JWTs are jose's.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type JWK, type JWTHeaderParameters } from 'jose';
import type { RunCa } from './ca.js';
import { createRunCa, selfSignedDer } from './ca.js';

export type Misbehaviour =
  | 'untrusted-certificate' // served with a certificate of another CA (not the run's)
  | 'issuer-mismatch' // metadata `issuer` differs from the issuer it is fetched for
  | 'wrong-audience' // the token's `aud` is another resource
  | 'narrow-scope' // the token and the response grant fewer scopes than asked
  | 'expired' // `exp` in the past and `expires_in` 0
  | 'redirect' // the token endpoint answers 307 to another origin
  | 'stall' // the token endpoint answers only after `stallMs`
  | 'reject-client'; // every client authentication fails (invalid_client)

export const MISBEHAVIOURS: readonly Misbehaviour[] = [
  'untrusted-certificate',
  'issuer-mismatch',
  'wrong-audience',
  'narrow-scope',
  'expired',
  'redirect',
  'stall',
  'reject-client',
];

export interface AsOptions {
  /** The run CA: the server's certificate is issued by it (unless `untrusted-certificate`). */
  ca: RunCa;
  clientId: string;
  clientSecret: string;
  /** Token lifetime in seconds. */
  ttlS?: number;
  misbehaviour?: Misbehaviour;
  /** `stall`: how long the token endpoint waits before answering. */
  stallMs?: number;
  /** Wall clock with sub-millisecond precision (the wire log's clock). */
  now?: () => number;
  /** Told every access token issued, so the transcript can redact it. */
  onToken?: (token: string) => void;
}

/**
 * Where a forged token says its verification key is (RFC 7515 4.1.2, 4.1.3, 4.1.6): in its
 * `jwk` header, at its `jku` URL (a key set served by the forger), or in its `x5c` chain (a
 * self-signed certificate). A resource server trusts only its issuer's published keys.
 */
export type OwnKey = 'jwk' | 'jku' | 'x5c';

/** One request the server received. Secrets are left out: only how the client authenticated. */
export interface AsRecord {
  t: number;
  /** `main`, `redirect-target` (the other origin a `redirect` points to) or `key-set` (a forger's jku origin). */
  server: 'main' | 'redirect-target' | 'key-set';
  method: string;
  path: string;
  /** token endpoint: how the client authenticated, and whether it was right. */
  clientAuth?: 'basic' | 'post' | 'none' | 'both';
  clientAuthOk?: boolean;
  grantType?: string;
  /** RFC 8707 `resource` parameters, as sent. */
  resource?: string[];
  scope?: string;
  /** The answer's status (undefined: never answered). */
  status?: number;
  /** token endpoint, issued: the token's id (`jti`), audience, scope and expiry. */
  issued?: { jti: string; aud: string; scope: string; exp: number };
  note?: string;
}

const MAX_FORM = 64 * 1024;
const DEFAULT_TTL_S = 300;

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** What a Basic header holds (RFC 6749 2.3.1: form-urlencoded id and secret). */
function basic(header: string | undefined): { id: string; secret: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!m) return undefined;
  const text = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = text.indexOf(':');
  if (i < 0) return undefined;
  try {
    return {
      id: decodeURIComponent(text.slice(0, i).replace(/\+/g, ' ')),
      secret: decodeURIComponent(text.slice(i + 1).replace(/\+/g, ' ')),
    };
  } catch {
    return undefined;
  }
}

export class AuthorizationServer {
  readonly records: AsRecord[] = [];
  /** The access tokens issued (kept out of the records; only for finding leaks). */
  private readonly tokens: string[] = [];
  private readonly open = new Set<ServerResponse>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private redirectTarget?: Server;
  /** The forger's key-set origin (`forgeWithOwnKey('jku')`), started on first use; its key sets by path. */
  private keySet?: { server: Server; origin: string; sets: Map<string, unknown> };
  /** The issuer identifier: the origin, no path (kept: the server's address is gone once closed). */
  issuer = '';

  private constructor(
    private readonly server: Server,
    private readonly opts: AsOptions,
    private readonly keys: { privateKey: CryptoKey; jwk: JWK },
  ) {}

  static async start(opts: AsOptions): Promise<AuthorizationServer> {
    const identity =
      opts.misbehaviour === 'untrusted-certificate'
        ? await (await createRunCa('ahp-conformance stranger CA')).issueServer()
        : await opts.ca.issueServer();
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), alg: 'ES256', use: 'sig', kid: randomBytes(8).toString('hex') };
    const server = createServer({ cert: identity.cert, key: identity.key });
    const as = new AuthorizationServer(server, opts, { privateKey: privateKey as CryptoKey, jwk });
    server.on('request', (req, res) => as.handle(req, res, 'main'));
    await listen(server);
    as.issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (opts.misbehaviour === 'redirect') {
      // Another origin (another port) that records whatever follows the redirect.
      const other = createServer({ cert: identity.cert, key: identity.key });
      other.on('request', (req, res) => as.handle(req, res, 'redirect-target'));
      await listen(other);
      as.redirectTarget = other;
    }
    return as;
  }

  /** The public signing key, for the protected resource's verification. */
  get publicJwk(): JWK {
    return this.keys.jwk;
  }

  /** Whether `text` holds an access token this server issued (a leak, where the text is output). */
  holdsToken(text: string): boolean {
    return this.tokens.some((t) => text.includes(t));
  }

  /** Every access token issued so far has one of these ids. */
  issuedIds(): Set<string> {
    return new Set(this.records.flatMap((r) => (r.issued ? [r.issued.jti] : [])));
  }

  /**
   * A token signed with this server's key, without a token request: for a resource server's
   * checks, which need tokens the client-credentials grant would not give (another
   * audience, expired, another `iss`). Registered like an issued token (redaction, leaks).
   */
  async mint(claims: {
    /** null: no `aud` claim at all. */
    aud: string | null;
    scope: string;
    expS?: number;
    iss?: string;
    /** The JOSE header `typ` (default `at+jwt`, RFC 9068 2.1). */
    typ?: string;
  }): Promise<string> {
    const nowS = Math.floor(Date.now() / 1000);
    return this.signed(
      this.keys.privateKey,
      { alg: 'ES256', typ: claims.typ ?? 'at+jwt', kid: this.keys.jwk.kid },
      { ...claims, iat: Math.min(nowS, (claims.expS ?? nowS) - 60), exp: claims.expS },
    );
  }

  /**
   * Every token this server makes: `scope`, `client_id`, `sub` the client, `iss` this issuer
   * unless given, `aud` unless null, a fresh `jti`; registered for redaction and leak checks.
   */
  private async signed(
    key: Parameters<SignJWT['sign']>[0],
    header: JWTHeaderParameters,
    c: { aud: string | null; scope: string; iss?: string; iat?: number; exp?: number; jti?: string },
  ): Promise<string> {
    const nowS = Math.floor(Date.now() / 1000);
    const jwt = new SignJWT({ scope: c.scope, client_id: this.opts.clientId })
      .setProtectedHeader(header)
      .setIssuer(c.iss ?? this.issuer)
      .setSubject(this.opts.clientId)
      .setIssuedAt(c.iat ?? nowS)
      .setExpirationTime(c.exp ?? nowS + (this.opts.ttlS ?? DEFAULT_TTL_S))
      .setJti(c.jti ?? randomBytes(12).toString('hex'));
    if (c.aud !== null) jwt.setAudience(c.aud);
    const token = await jwt.sign(key);
    this.tokens.push(token);
    this.opts.onToken?.(token);
    return token;
  }

  /**
   * A well-formed token that claims this issuer (its `iss`, its key id) but is signed by a
   * key nobody published: what a forger sends. A resource server must refuse it.
   */
  async forge(claims: { aud: string; scope: string }): Promise<string> {
    const { privateKey } = await generateKeyPair('ES256');
    return this.signed(privateKey, { alg: 'ES256', typ: 'at+jwt', kid: this.keys.jwk.kid }, claims);
  }

  /**
   * A token that names this issuer, the resource and every scope, signed by a fresh key it
   * points to itself (`how`): the key-confusion forgery (RFC 8725 3.10). For `jku` the key
   * set is really served, over HTTPS with a certificate of the run CA on another loopback
   * origin, so a resource server that fetches it would verify the signature.
   */
  async forgeWithOwnKey(how: OwnKey, claims: { aud: string; scope: string }): Promise<string> {
    const keys = await generateKeyPair('ES256', { extractable: true });
    const kid = randomBytes(8).toString('hex');
    const jwk = { ...(await exportJWK(keys.publicKey)), alg: 'ES256', use: 'sig', kid };
    const header: JWTHeaderParameters = { alg: 'ES256', typ: 'at+jwt', kid };
    if (how === 'jwk') header.jwk = { kty: jwk.kty!, crv: jwk.crv!, x: jwk.x!, y: jwk.y! };
    else if (how === 'x5c') header.x5c = [await selfSignedDer(keys as CryptoKeyPair)];
    else {
      const ks = await this.keySetServer();
      const path = `/keys/${kid}.json`;
      ks.sets.set(path, { keys: [jwk] });
      header.jku = `${ks.origin}${path}`;
    }
    return this.signed(keys.privateKey, header, claims);
  }

  /** The forger's key-set origin, started on first use. */
  private async keySetServer(): Promise<NonNullable<AuthorizationServer['keySet']>> {
    if (this.keySet) return this.keySet;
    const identity = await this.opts.ca.issueServer();
    const server = createServer({ cert: identity.cert, key: identity.key });
    server.on('request', (req, res) => this.handle(req, res, 'key-set'));
    await listen(server);
    this.keySet = { server, origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, sets: new Map() };
    return this.keySet;
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    for (const res of this.open) res.destroy();
    await Promise.all(
      [this.server, this.redirectTarget, this.keySet?.server].flatMap((s) =>
        s ? [new Promise<void>((resolve) => (s.closeAllConnections(), s.close(() => resolve())))] : [],
      ),
    );
  }

  private now(): number {
    return this.opts.now ? this.opts.now() : Date.now();
  }

  private metadata(): Record<string, unknown> {
    const issuer = this.issuer;
    return {
      issuer: this.opts.misbehaviour === 'issuer-mismatch' ? `${issuer}/not-this-issuer` : issuer,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      response_types_supported: [],
    };
  }

  private handle(req: IncomingMessage, res: ServerResponse, server: AsRecord['server']): void {
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    const url = new URL(req.url ?? '/', this.issuer);
    const record: AsRecord = { t: this.now(), server, method: req.method ?? '', path: url.pathname };
    this.records.push(record);
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_FORM) chunks.push(c);
    });
    req.on('error', () => undefined);
    req.on('end', () => {
      if (size > MAX_FORM) return this.send(res, record, 413, { error: 'invalid_request' });
      void this.route(req, res, url, Buffer.concat(chunks).toString('utf8'), record).catch(() =>
        this.send(res, record, 500, { error: 'server_error' }),
      );
    });
  }

  private send(res: ServerResponse, record: AsRecord, status: number, body: unknown, headers = {}): void {
    record.status = status;
    if (res.destroyed) return;
    try {
      res
        .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers })
        .end(JSON.stringify(body));
    } catch {
      // the client went away
    }
  }

  private async route(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    body: string,
    record: AsRecord,
  ): Promise<void> {
    if (record.server === 'key-set') {
      const set = req.method === 'GET' ? this.keySet?.sets.get(url.pathname) : undefined;
      if (!set) return this.send(res, record, 404, { error: 'not_found' });
      record.note = "the forger's key set was fetched";
      return this.send(res, record, 200, set);
    }
    if (record.server === 'redirect-target') {
      record.note = 'the client followed the redirect to another origin';
      return this.send(res, record, 400, { error: 'invalid_request' });
    }
    const get = req.method === 'GET';
    if (
      get &&
      (url.pathname === '/.well-known/oauth-authorization-server' ||
        url.pathname === '/.well-known/openid-configuration')
    )
      return this.send(res, record, 200, this.metadata());
    if (get && url.pathname === '/jwks') return this.send(res, record, 200, { keys: [this.keys.jwk] });
    if (req.method === 'POST' && url.pathname === '/token') return this.token(req, res, body, record);
    return this.send(res, record, 404, { error: 'not_found' });
  }

  private async token(req: IncomingMessage, res: ServerResponse, body: string, record: AsRecord): Promise<void> {
    const form = new URLSearchParams(body);
    const viaBasic = basic(req.headers.authorization);
    const postedId = form.get('client_id');
    const postedSecret = form.get('client_secret');
    const viaPost = postedSecret !== null ? { id: postedId ?? '', secret: postedSecret } : undefined;
    record.clientAuth = viaBasic && viaPost ? 'both' : viaBasic ? 'basic' : viaPost ? 'post' : 'none';
    record.grantType = form.get('grant_type') ?? undefined;
    record.resource = form.getAll('resource');
    record.scope = form.get('scope') ?? undefined;
    const given = viaBasic ?? viaPost;
    // RFC 6749 2.3: one authentication method per request.
    record.clientAuthOk =
      record.clientAuth !== 'both' &&
      given !== undefined &&
      same(given.id, this.opts.clientId) &&
      same(given.secret, this.opts.clientSecret) &&
      this.opts.misbehaviour !== 'reject-client';
    const answer = async (): Promise<void> => {
      if (this.opts.misbehaviour === 'redirect') {
        const target = `https://127.0.0.1:${(this.redirectTarget!.address() as AddressInfo).port}/token`;
        record.note = `307 to ${target}`;
        return this.send(res, record, 307, { error: 'moved' }, { location: target });
      }
      if (!record.clientAuthOk)
        return this.send(res, record, 401, { error: 'invalid_client' }, { 'www-authenticate': 'Basic realm="ahp"' });
      if (record.grantType !== 'client_credentials')
        return this.send(res, record, 400, { error: 'unsupported_grant_type' });
      if (record.resource!.length > 1) return this.send(res, record, 400, { error: 'invalid_target' });
      const asked = (record.scope ?? '').split(' ').filter(Boolean);
      const granted = this.opts.misbehaviour === 'narrow-scope' ? asked.slice(0, Math.max(0, asked.length - 1)) : asked;
      // Without a resource indicator the token is for the issuer itself: usable nowhere else.
      const resource = record.resource![0] ?? this.issuer;
      const aud = this.opts.misbehaviour === 'wrong-audience' ? `${resource.replace(/\/$/, '')}-other` : resource;
      const nowS = Math.floor(Date.now() / 1000);
      const ttl = this.opts.ttlS ?? DEFAULT_TTL_S;
      const exp = this.opts.misbehaviour === 'expired' ? nowS - 60 : nowS + ttl;
      const jti = randomBytes(12).toString('hex');
      const scope = granted.join(' ');
      const token = await this.signed(
        this.keys.privateKey,
        { alg: 'ES256', typ: 'at+jwt', kid: this.keys.jwk.kid },
        { aud, scope, iat: nowS, exp, jti },
      );
      record.issued = { jti, aud, scope, exp };
      return this.send(res, record, 200, {
        access_token: token,
        token_type: 'Bearer',
        expires_in: this.opts.misbehaviour === 'expired' ? 0 : ttl,
        ...(scope || asked.length ? { scope } : {}),
      });
    };
    if (this.opts.misbehaviour === 'stall') {
      record.note = `held for ${this.opts.stallMs ?? 0} ms`;
      const t = setTimeout(() => {
        this.timers.delete(t);
        void answer().catch(() => undefined);
      }, this.opts.stallMs ?? 0);
      this.timers.add(t);
      return;
    }
    return answer();
  }
}

function listen(server: Server): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
}
