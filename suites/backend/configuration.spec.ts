// hooks/configuration, backend side (draft@1d98c19: server-driven subscription configuration).
//
// What is published for 1d98c19 is its schemas (../shared/ahp-spec-1d98c19/schema/draft/
// configuration-request, configuration-response and configuration.schema.json) and the
// official SDKs generated from it; its prose is not (../shared/ahp-spec-1d98c19/PROVENANCE.md).
// Nothing on the wire says whether a backend serves the method (capabilities describe a
// harness), so the claim says it (`backend.configuration`) and the plan runs one check of two.
import { configurationRequest } from '../../src/checks/probes.js';
import { isObject } from '../../src/protocol/json.js';
import { isWireValid, validate } from '../../src/protocol/validator.js';
import { check, test } from '../support/check.js';
import { clip, describeReply, errorShapeProblem, quoted, received, replyObject } from '../support/expect.js';

type Obj = Record<string, unknown>;

/** A subscription, in a few words, for the note of a passed check. */
const summary = (s: unknown): string =>
  isObject(s) && Array.isArray(s.events) ? `${String(s.mode)} ${s.events.map(String).join(', ')}` : quoted(s);

test(
  ...check('base.configuration', async ({ snapshot, backend, judge }) => {
    // A MUST of the wire, not a new rule: the claim says the backend serves the method, and a
    // reply to it is a message of the snapshot, valid only against its configuration-response
    // schema (as ti.result-valid judges an intercept result against intercept-response).
    const req = configurationRequest(snapshot);
    const expected = `a success response with id ${quoted(req.id)}, valid against the ${snapshot} configuration-response schema`;
    const v = replyObject(judge, await backend.request(req), req, expected);
    if (isObject(v.error))
      return judge.fail(
        `the claim says the backend serves hooks/configuration (backend.configuration), but it answered with JSON-RPC error ${quoted(v.error.code)} ${quoted(v.error.message ?? '')}`,
      );
    const findings = validate('configuration-response', v, { wireOnly: true, snapshot });
    if (!isWireValid(findings))
      return judge.fail(
        `the reply is not a valid configuration result: ${findings
          .slice(0, 4)
          .map((f) => `${f.path || '(root)'} ${f.message}`)
          .join('; ')}`,
      );
    if (v.id !== req.id) return judge.fail(`the response id ${quoted(v.id)} is not the request id ${quoted(req.id)}`);
    const subscriptions = ((v.result as Obj).configuration as { subscriptions: unknown[] }).subscriptions;
    judge.note(`${subscriptions.length} subscription(s): ${subscriptions.map(summary).join('; ')}`);
  }),
);

test(
  ...check('base.configuration-unoffered', async ({ snapshot, backend, judge }) => {
    // SHOULD, chosen here: no 1d98c19 text says what a backend that serves no configuration
    // answers. JSON-RPC 2.0 names -32601 for a method the server does not offer, and both
    // official SDKs answer so when the application declared none: rust-sdk README.md@1e96a302
    // (0.10.1), "Shared subscription configuration"; python-sdk 0.10.1
    // agenthooksprotocol/server/hooks.py, Engine.process. Every shortfall is a warning.
    const req = configurationRequest(snapshot);
    const expected = `a JSON-RPC error -32601 (method not found) with id ${quoted(req.id)}`;
    const reply = await backend.request(req);
    judge.evidence({ sent: req, received: received(reply), expected });
    if (reply.kind === 'none' || reply.parseError !== undefined || !isObject(reply.value))
      return judge.warn(`expected ${expected}, got ${describeReply(reply)}`);
    const v = reply.value;
    if (!isObject(v.error))
      return judge.warn(
        `expected ${expected}, got ${'result' in v ? 'a success result' : 'a response without an error object'}: ${clip(quoted(v), 200)}; a backend that serves hooks/configuration says so in its claim (backend.configuration)`,
      );
    const shape = errorShapeProblem(v.error);
    if (shape) return judge.warn(`expected ${expected}, got a malformed error object (${shape})`);
    if (v.error.code !== -32601)
      return judge.warn(`expected ${expected}, got error code ${quoted(v.error.code)} (${quoted(v.error.message)})`);
    if (v.id !== req.id) return judge.warn(`expected ${expected}, got the error with id ${quoted(v.id)}`);
  }),
);
