// Base Protocol profile, backend side (seed base checks 1, 2, 3, 4, 7 and the secret rule).
import { randomBytes } from 'node:crypto';
import { assertValid, deliberately, HARMLESS_TOOL, interceptRequest, newId, observeNotification, toolBeforeEvent } from '../../src/checks/probes.js';
import { ERROR_CODES, REVERSE_DNS_PATTERN } from '../../src/protocol/catalogue.js';
import { validate } from '../../src/protocol/validator.js';
import { check, test } from '../support/fixtures.js';
import { clip, errorResponse, isObj, replyObject, successResult } from '../support/expect.js';

const harmless = () => interceptRequest(toolBeforeEvent(HARMLESS_TOOL));

test(...check('base.jsonrpc-utf8', async ({ backend, judge }) => {
  const req = harmless();
  const reply = await backend.request(req);
  const v = replyObject(judge, reply, req, 'one UTF-8 JSON-RPC 2.0 response object');
  if (reply.kind === 'reply' && !reply.utf8) return judge.fail('the reply is not valid UTF-8');
  const findings = validate('jsonrpc', v, { wireOnly: true });
  if (findings.length) {
    judge.fail(`the reply is not a JSON-RPC 2.0 response: ${findings.map((f) => `${f.path || '(root)'} ${f.message}`).join('; ')}`);
  }
  if (!('result' in v) && !('error' in v)) return judge.fail('the reply is neither a success nor an error response');
}));

test(...check('base.protocol-version', async ({ backend, judge }) => {
  const req = harmless();
  const result = successResult(judge, await backend.request(req), req, 'a success result carrying protocolVersion "draft"');
  if (result.protocolVersion !== 'draft') {
    judge.fail(`result.protocolVersion must be exactly "draft", got ${JSON.stringify(result.protocolVersion) ?? 'nothing'}`);
  }
}));

test(...check('base.unsupported-version', async ({ backend, judge }) => {
  const req = harmless() as { params: Record<string, unknown> } & Record<string, unknown>;
  req.params.protocolVersion = '1999-01-01';
  const probe = deliberately(req, 'params.protocolVersion is an unsupported snapshot');
  const err = errorResponse(judge, await backend.request(probe), req, ERROR_CODES.unsupportedProtocolVersion);
  judge.note(`answered with error ${String(err.code)} ${JSON.stringify(err.message ?? '')}`);
}));

test(...check('base.unknown-fields', async ({ backend, judge }) => {
  const clean = harmless();
  const cleanResult = successResult(judge, await backend.request(clean), clean, 'a success result for the clean request');
  // Unknown members only where the snapshot leaves objects open: the message, params and the event envelope.
  const noisy = interceptRequest(toolBeforeEvent(HARMLESS_TOOL)) as Record<string, unknown> & { params: Record<string, unknown> & { event: Record<string, unknown> } };
  noisy.xUnknownTopLevel = { nested: true };
  noisy.params.xUnknownParam = 1;
  noisy.params.event.xUnknownEnvelope = 'ignored';
  assertValid('intercept-request', noisy); // still a valid request: these objects are open
  const noisyResult = successResult(judge, await backend.request(noisy), noisy, 'the same result as for the clean request');
  const summary = (r: Record<string, unknown>): string => JSON.stringify({ version: r.protocolVersion, effects: r.effects });
  if (summary(cleanResult) !== summary(noisyResult)) {
    judge.fail(`unknown members changed the result: clean ${clip(summary(cleanResult), 200)}, with unknown members ${clip(summary(noisyResult), 200)}`);
  }
}));

test(...check('base.unknown-event', async ({ backend, judge }) => {
  const req = harmless() as { params: { event: Record<string, unknown> } } & Record<string, unknown>;
  req.params.event.type = 'com.example.unknown.event';
  const err = errorResponse(judge, await backend.request(deliberately(req, 'the event type is not defined by the draft')), req, ERROR_CODES.unsupportedEvent);
  judge.note(`answered with error ${String(err.code)}`);
}));

test(...check('base.extension-keys', async ({ claim, backend, judge }) => {
  // Deny samples are where backends put codes and extensions; a harmless call is judged too.
  const requests = [harmless(), ...claim.backend!.samples.deny.map((s) => interceptRequest(toolBeforeEvent(s.tool), { effects: s.effects ?? ['deny'] }))];
  const pattern = new RegExp(REVERSE_DNS_PATTERN);
  for (const req of requests) {
    const result = successResult(judge, await backend.request(req), req, 'a success result');
    const bad: string[] = [];
    const keys = (o: unknown, where: string): void => {
      if (isObj(o)) for (const k of Object.keys(o)) if (!pattern.test(k)) bad.push(`${where} key "${k}"`);
    };
    keys(result.extensions, 'result.extensions');
    (Array.isArray(result.effects) ? result.effects : []).forEach((e, i) => {
      if (!isObj(e)) return;
      keys(e.extensions, `effects[${i}].extensions`);
      if (e.type === 'deny' && e.code !== undefined && (typeof e.code !== 'string' || !pattern.test(e.code))) bad.push(`effects[${i}].code ${JSON.stringify(e.code)}`);
    });
    if (bad.length) return judge.fail(`not reverse-DNS names: ${bad.join(', ')}`, { expected: 'reverse-DNS names such as com.example.policy' });
  }
}));

test(...check('base.unknown-method', async ({ backend, judge }) => {
  const req = { jsonrpc: '2.0', id: newId('bogus'), method: 'hooks/bogus', params: { protocolVersion: 'draft' } };
  errorResponse(judge, await backend.request(deliberately(req, 'the method is not defined by AHP')), req);
}));

test(...check('base.notification-silence', async ({ backend, judge }) => {
  const base = () => observeNotification(toolBeforeEvent(HARMLESS_TOOL)) as Record<string, unknown> & { params: Record<string, unknown> & { event: Record<string, unknown> } };
  const wrongVersion = base();
  wrongVersion.params.protocolVersion = '1999-01-01';
  const unknownEvent = base();
  unknownEvent.params.event.type = 'com.example.unknown.event';
  const unknownMethod = { ...base(), method: 'hooks/bogus' };
  const probes = [
    deliberately(wrongVersion, 'a notification with an unsupported protocolVersion'),
    deliberately(unknownEvent, 'a notification with an unknown event type'),
    deliberately(unknownMethod, 'a notification for an unknown method'),
  ];
  for (const probe of probes) {
    const outcome = await backend.notify(probe);
    if (outcome.undetermined) return judge.incomplete(`${probe.deliberate}: ${outcome.detail}`, { sent: probe.message, received: outcome.detail, expected: 'no reply at all to a notification' });
    if (!outcome.silent) {
      judge.fail(`${probe.deliberate} got a reply: ${clip(outcome.got ?? outcome.detail, 300)}`, {
        sent: probe.message, received: outcome.got ?? outcome.detail, expected: 'no reply at all to a notification',
      });
    }
  }
}));

test(...check('base.invalid-params', async ({ backend, judge }) => {
  const req = { jsonrpc: '2.0', id: newId('no-event'), method: 'hooks/intercept', params: { protocolVersion: 'draft', capabilities: { effects: ['deny'] } } };
  const reply = await backend.request(deliberately(req, 'params has no event'));
  const v = replyObject(judge, reply, req, 'a JSON-RPC error for params without an event');
  if (!isObj(v.error)) judge.warn(`a request whose params lack the event was answered without an error: ${clip(JSON.stringify(v), 200)}`);
}));

test(...check('base.unparseable-input', async ({ backend, judge }) => {
  const garbage = '{"jsonrpc": "2.0", "id": "x", "method": ';
  const reply = await backend.request(deliberately(garbage, 'the bytes do not parse as JSON'));
  judge.evidence({ sent: garbage, expected: 'no reply, or a JSON-RPC error -32700 with id null' });
  if (reply.kind === 'none') return judge.note('no reply to unparseable input');
  // Over HTTP a non-200 status without a JSON body is a transport-level refusal, not a JSON-RPC reply.
  if (reply.http && reply.http.status !== 200 && reply.value === undefined) return judge.note(`HTTP ${reply.http.status} without a JSON-RPC body`);
  const v = replyObject(judge, reply, garbage, 'no reply, or a JSON-RPC error -32700 with id null');
  const e = v.error as { code?: unknown } | undefined;
  if (!isObj(e) || e.code !== -32700 || v.id !== null) {
    judge.fail(`unparseable input must get no reply or error -32700 with id null, got ${clip(JSON.stringify(v), 200)}`);
  }
}));

test(...check('base.no-secret-leak', async ({ backend, judge }) => {
  // The claim's own token when it configures one, else a canary the backend has no reason to repeat.
  const token = backend.token ?? `ahp-canary-${randomBytes(12).toString('hex')}`;
  backend.transcript.addSecret(token);
  const wrongVersion = harmless() as { params: Record<string, unknown> } & Record<string, unknown>;
  wrongVersion.params.protocolVersion = '1999-01-01';
  const requests = [harmless(), deliberately(wrongVersion, 'an unsupported protocolVersion, to see an error message and data')];
  for (const req of requests) {
    const reply = await backend.request(req, { token });
    const seen = reply.kind === 'reply' ? reply.raw : '';
    const headers = JSON.stringify(reply.http?.headers ?? {});
    if (seen.includes(token) || headers.includes(token)) {
      judge.fail('the bearer token the runner sent came back in the reply', { expected: 'credentials never appear in replies, error messages or error data' });
    }
  }
}));
