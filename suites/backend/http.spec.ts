// HTTP binding profile, backend side (AHP-HTTP-001).
import {
  HARMLESS_TOOL,
  deliberately,
  interceptRequest,
  newId,
  observeNotification,
  toolBeforeEvent,
} from '../../src/checks/probes.js';
import { isObject } from '../../src/protocol/json.js';
import { check, test } from '../support/check.js';
import { clip, describeReply, httpOf, replyObject } from '../support/expect.js';

const isJsonMediaType = (contentType: string): boolean => /^application\/json\s*(;.*)?$/i.test(contentType.trim());

test(
  ...check('http.intercept-response', async ({ backend, judge }) => {
    const req = interceptRequest(toolBeforeEvent(HARMLESS_TOOL));
    const reply = await backend.request(req);
    const v = replyObject(judge, reply, req, 'HTTP 200, Content-Type application/json, one JSON-RPC response object');
    const http = httpOf(reply)!;
    if (http.status !== 200) return judge.fail(`status ${http.status}, expected 200`);
    if (!isJsonMediaType(http.contentType))
      return judge.fail(`Content-Type ${JSON.stringify(http.contentType)}, expected application/json`);
    if (!('result' in v) && !('error' in v))
      return judge.fail(`the body is not a JSON-RPC response: ${clip(JSON.stringify(v), 200)}`);
  }),
);

test(
  ...check('http.observe-empty', async ({ backend, judge }) => {
    const note = observeNotification(toolBeforeEvent(HARMLESS_TOOL));
    const outcome = await backend.notify(note);
    const status = httpOf(outcome.reply)?.status;
    judge.evidence({
      sent: note,
      received: describeReply(outcome.reply),
      expected: 'HTTP 202 or 204 with an empty body',
    });
    if (status === undefined) return judge.fail(`no HTTP response: ${outcome.detail}`);
    if (status !== 202 && status !== 204) return judge.fail(`status ${status}, expected 202 or 204`);
    if (!outcome.silent) return judge.fail(`the notification got a body: ${clip(outcome.got ?? '', 200)}`);
  }),
);

test(
  ...check('http.error-status', async ({ backend, judge }) => {
    const req = { jsonrpc: '2.0', id: newId('bogus'), method: 'hooks/bogus', params: { protocolVersion: 'draft' } };
    const reply = await backend.request(deliberately(req, 'an unknown method, to see how errors travel'));
    const v = replyObject(judge, reply, req, 'a JSON-RPC error response with HTTP status 200');
    if (!isObject(v.error)) return judge.note('no JSON-RPC error came back to judge (see base.unknown-method)');
    const status = httpOf(reply)?.status;
    if (status !== 200)
      judge.warn(
        `the JSON-RPC error came with HTTP status ${status}; harnesses treat any non-200 status as a transport failure`,
      );
  }),
);
