// What the backend authentication checks share (suites/backend/auth.spec.ts, oauth.spec.ts):
// the harmless probe, the wrong credentials, and how a refusal is judged and shown.
import { randomBytes } from 'node:crypto';
import { HARMLESS_TOOL, interceptRequest, toolBeforeEvent } from '../../src/checks/probes.js';
import { isObject } from '../../src/protocol/json.js';
import type { BackendSession, Reply } from './backend-session.js';
import type { Judge } from './check.js';
import { describeReply, httpOf, received } from './expect.js';

export type Obj = Record<string, unknown>;

export const harmless = (): Obj => interceptRequest(toolBeforeEvent(HARMLESS_TOOL));

/** A token the backend cannot know, registered for redaction like a real one. */
export function wrongToken(backend: BackendSession): string {
  const t = `ahp-wrong-${randomBytes(16).toString('hex')}`;
  backend.transcript.addSecret(t);
  return t;
}

/** The token the runner holds for this backend; without one the check cannot probe. */
export function tokenOf(backend: BackendSession, judge: Judge): string {
  if (!backend.token)
    judge.incomplete(
      'the runner holds no token for this backend (backend.http.auth.tokenEnv is unset, or no OAuth token was obtained)',
    );
  return backend.token!;
}

/** A JSON-RPC result in the reply: the backend processed the event. */
export const processed = (r: Reply): boolean => r.kind === 'reply' && isObject(r.value) && 'result' in r.value;

export interface Probe {
  readonly what: string;
  readonly sent: unknown;
  readonly reply: Reply;
}

/**
 * Judges one probe that must be refused: no JSON-RPC result, and one of `statuses`.
 * Returns what is wrong, or undefined.
 */
export function refusal(p: Probe, statuses: readonly number[]): string | undefined {
  const status = httpOf(p.reply)?.status;
  if (processed(p.reply)) return `${p.what}: the backend processed it (HTTP ${status ?? '?'} with a JSON-RPC result)`;
  if (status === undefined) return `${p.what}: no HTTP response (${describeReply(p.reply)})`;
  if (!statuses.includes(status)) return `${p.what}: HTTP ${status}, expected ${statuses.join(' or ')}`;
  return undefined;
}

export const evidenceOf = (probes: readonly Probe[], expected: string) => ({
  sent: probes.map((p) => ({ what: p.what, message: p.sent })),
  received: probes.map((p) => ({ what: p.what, reply: received(p.reply) })),
  expected,
});
