// HTTP binding: each message is a new POST of one compact JSON object to the registered
// URL exactly as given. An intercept succeeds only with status 200, a JSON media type and
// one JSON object as the body; every other status is an operational failure, and
// redirects are never followed (exchange.ts does not follow them; only the follow-redirects
// fault does, by hand). The bearer token is read from its variable per request and goes
// into exactly one Authorization header, nowhere else. An oauth preset gets its token from
// oauth.ts inside the intercept's deadline; when that fails nothing is sent (no
// unauthenticated fallback). A bearer-only harness (--authentication bearer) has no OAuth
// client: an oauth binding fails before anything is sent, like any mechanism it does not
// support, and the failure policy applies (capability-auth: unsupported authentication
// prevents delivery; meeting an OAuth endpoint does not oblige a harness to do OAuth). A
// 401 is an operational failure: without a client identity configured for the endpoint
// there is nothing to obtain a token with. Every request has a
// connection of its own (no agent, `connection: close`): nothing lingers after the run, and
// no stale socket can reset a request.
import type { OAuthClient } from '../oauth.js';
import { parseJsonBytes } from '../../../src/protocol/json.js';
import type { HarnessFault } from '../faults.js';
import { httpBody, type Message } from '../messages.js';
import type { Authentication, HttpTransportConfig } from '../registration.js';
import type { Deadline } from './deadline.js';
import { exchange } from './exchange.js';
import { fail, type Exchange, type Transport } from './types.js';

const MAX_BODY_BYTES = 4 * 1024 * 1024;
const MAX_REDIRECTS_FOLLOWED = 3; // follow-redirects fault only
/** Connection refused or reset: the request may not have been processed; worth one retry. */
const RETRYABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE']);

type Posted =
  | { ok: true; status: number; contentType: string | undefined; location: string | undefined; body: Buffer }
  | { ok: false; failure: string; retryable: boolean };

type Credential = { ok: true; header?: string; token?: string } | { ok: false; failure: string };

function header(h: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** application/json, parameters (e.g. charset) allowed. */
export function isJsonMediaType(value: string | undefined): boolean {
  return value !== undefined && value.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

export class HttpTransport implements Transport {
  /** The requests in flight, dropped by close(). */
  private readonly live = new Set<AbortController>();

  constructor(
    private readonly cfg: HttpTransportConfig,
    private readonly authentication: Authentication | undefined,
    private readonly fault: HarnessFault,
    private readonly oauth?: OAuthClient,
  ) {}

  async intercept(message: Message, _rpcId: string, deadline: Deadline): Promise<Exchange> {
    deadline.start();
    let credential = await this.credential(deadline.remaining());
    // oauth-unauthenticated-fallback fault: a failed oauth credential is dropped instead of failing.
    if (!credential.ok && this.authentication?.type === 'oauth' && this.fault.is('oauth-unauthenticated-fallback'))
      credential = { ok: true };
    if (!credential.ok) return fail(credential.failure); // fails closed: nothing is sent
    let posted = await this.post(httpBody(message), deadline.remaining(), credential);
    // challenge-unauthenticated-retry fault: a 401 is answered by sending the event again, still without credentials.
    if (
      posted.ok &&
      posted.status === 401 &&
      credential.header === undefined &&
      this.fault.is('challenge-unauthenticated-retry')
    )
      posted = await this.post(httpBody(message), deadline.remaining(), credential);
    if (!posted.ok) return fail(posted.failure, posted.retryable);
    if (posted.status === 401)
      return fail(
        credential.header === undefined
          ? 'HTTP status 401: the endpoint wants a credential and none is configured for it'
          : 'HTTP status 401: the credential was refused',
      );
    if (posted.status !== 200) return fail(`HTTP status ${posted.status}`, posted.status === 503);
    if (!isJsonMediaType(posted.contentType)) {
      return fail(
        `response Content-Type ${JSON.stringify((posted.contentType ?? 'none').slice(0, 80))} is not application/json`,
      );
    }
    const parsed = parseJsonBytes(posted.body);
    if (!parsed.ok) return fail(`response body is not JSON: ${parsed.findings[0]?.message ?? 'invalid'}`);
    const v = parsed.value;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail('response body is not one JSON object');
    return { ok: true, reply: v };
  }

  async observe(message: Message, limitMs: number): Promise<boolean> {
    const credential = await this.credential(limitMs);
    if (!credential.ok) return false;
    const posted = await this.post(httpBody(message), limitMs, credential);
    return posted.ok && posted.status >= 200 && posted.status < 300;
  }

  async close(): Promise<void> {
    // Every request has its own deadline and the run is over: drop whatever is left.
    for (const controller of this.live) controller.abort();
    this.live.clear();
  }

  // ------------------------------------------------------------------ internals

  /** Resolve the credential for this request within `limitMs`; an unresolvable one fails before sending. */
  private async credential(limitMs: number): Promise<Credential> {
    const auth = this.authentication;
    if (auth === undefined) return { ok: true };
    if (auth.type === 'oauth' && this.oauth) {
      const got = await this.oauth.token(auth, limitMs);
      return got.ok ? { ok: true, header: `Bearer ${got.token}`, token: got.token } : got;
    }
    // A bearer-only harness (no OAuth client): the binding fails below, before anything is sent.
    // unsupported-oauth-unauthenticated fault: the binding is dropped and the event sent without a credential.
    if (auth.type === 'oauth' && this.fault.is('unsupported-oauth-unauthenticated')) return { ok: true };
    if (auth.type === 'bearer' && typeof auth.tokenEnv === 'string') {
      const token = process.env[auth.tokenEnv];
      if (token === undefined || token === '')
        return { ok: false, failure: `bearer token variable ${auth.tokenEnv} is not set` };
      return { ok: true, header: `Bearer ${token}`, token };
    }
    const kind = typeof auth.type === 'string' ? auth.type : 'unknown';
    const detail = auth.type === 'bearer' ? 'bearer tokenRef' : kind;
    return {
      ok: false,
      failure: `authentication ${JSON.stringify(detail.slice(0, 40))} is not supported by this harness`,
    };
  }

  private async post(body: string, timeoutMs: number, credential: Extract<Credential, { ok: true }>): Promise<Posted> {
    const headers: Record<string, string> = {
      'content-type': this.fault.is('http-text-plain') ? 'text/plain' : 'application/json',
    };
    if (credential.header !== undefined) headers.authorization = credential.header;
    const until = Date.now() + timeoutMs;
    let url = this.cfg.url;
    for (let hop = 0; ; hop++) {
      if (credential.token !== undefined && this.fault.is('token-leak')) {
        process.stderr.write(`reference-harness: using bearer token ${credential.token}\n`);
      }
      const posted = await this.postOnce(url, body, headers, Math.max(0, until - Date.now()));
      const redirect = posted.ok && posted.status >= 300 && posted.status < 400 && posted.location !== undefined;
      if (redirect && hop < MAX_REDIRECTS_FOLLOWED && this.fault.is('follow-redirects')) {
        url = new URL((posted as { location: string }).location, url).href;
        continue;
      }
      return posted;
    }
  }

  private async postOnce(
    url: string,
    body: string,
    headers: Record<string, string>,
    timeoutMs: number,
  ): Promise<Posted> {
    if (timeoutMs <= 0) return { ok: false, failure: 'deadline exceeded before sending', retryable: false };
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    this.live.add(controller);
    const bytes = Buffer.from(body, 'utf8');
    try {
      const res = await exchange(
        url,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': String(bytes.length), connection: 'close' },
          agent: false,
          signal: controller.signal,
        },
        bytes,
        MAX_BODY_BYTES,
      );
      if (res === 'too-large') return { ok: false, failure: 'response body exceeds the size limit', retryable: false };
      return {
        ok: true,
        status: res.status,
        contentType: header(res.headers, 'content-type'),
        location: header(res.headers, 'location'),
        body: res.body,
      };
    } catch (err) {
      const code = errorCode(err);
      if (timedOut) {
        return { ok: false, failure: 'no reply within the deadline', retryable: false };
      }
      // Only the error code: messages can carry URLs, and a URL may carry credentials.
      return {
        ok: false,
        failure: `HTTP request failed (${code ?? 'error'})`,
        retryable: code !== undefined && RETRYABLE_CODES.has(code),
      };
    } finally {
      clearTimeout(timer);
      this.live.delete(controller);
    }
  }
}
