// Base Protocol profile, backend side (seed base checks 1, 2, 3, 4, 7 and the secret rule).
import { randomBytes } from 'node:crypto';
import { isObject } from '../../src/protocol/json.js';
import {
  assertValid,
  deliberately,
  HARMLESS_TOOL,
  interceptRequest,
  newId,
  observeNotification,
  sampleRequest,
  toolBeforeEvent,
} from '../../src/checks/probes.js';
import { ERROR_CODES, REVERSE_DNS_PATTERN } from '../../src/protocol/catalogue.js';
import { validate } from '../../src/protocol/validator.js';
import { check, test } from '../support/check.js';
import {
  clip,
  eachProbe,
  errorResponse,
  errorShapeProblem,
  httpOf,
  replyObject,
  successResult,
} from '../support/expect.js';

const harmless = () => interceptRequest(toolBeforeEvent(HARMLESS_TOOL));

test(
  ...check('base.jsonrpc-utf8', async ({ snapshot, backend, judge }) => {
    const req = harmless();
    const reply = await backend.request(req);
    const v = replyObject(judge, reply, req, 'one UTF-8 JSON-RPC 2.0 response object');
    if (reply.kind === 'reply' && !reply.utf8) return judge.fail('the reply is not valid UTF-8');
    const findings = validate('jsonrpc', v, { wireOnly: true, snapshot });
    if (findings.length) {
      judge.fail(
        `the reply is not a JSON-RPC 2.0 response: ${findings.map((f) => `${f.path || '(root)'} ${f.message}`).join('; ')}`,
      );
    }
    if (!('result' in v) && !('error' in v)) return judge.fail('the reply is neither a success nor an error response');
  }),
);

test(
  ...check('base.protocol-version', async ({ backend, judge }) => {
    const req = harmless();
    const result = successResult(
      judge,
      await backend.request(req),
      req,
      'a success result carrying protocolVersion "draft"',
    );
    if (result.protocolVersion !== 'draft') {
      judge.fail(
        `result.protocolVersion must be exactly "draft", got ${JSON.stringify(result.protocolVersion) ?? 'nothing'}`,
      );
    }
  }),
);

test(
  ...check('base.unsupported-version', async ({ backend, judge }) => {
    const req = harmless() as { params: Record<string, unknown> } & Record<string, unknown>;
    req.params.protocolVersion = '1999-01-01';
    const probe = deliberately(req, 'params.protocolVersion is an unsupported snapshot');
    const err = errorResponse(judge, await backend.request(probe), req, ERROR_CODES.unsupportedProtocolVersion);
    judge.note(`answered with error ${String(err.code)} ${JSON.stringify(err.message ?? '')}`);
  }),
);

type Obj = Record<string, unknown>;

/** What a result decides, without free text that may name the event: effect types, with target and operation for modify. */
const decision = (r: Obj): string =>
  JSON.stringify({
    version: r.protocolVersion,
    effects: Array.isArray(r.effects)
      ? r.effects.map((e) =>
          isObject(e) ? [e.type, e.target, e.operation].filter((x) => x !== undefined).join('/') : typeof e,
        )
      : r.effects,
  });

const UNKNOWN = 'xAhpConformanceUnknown';

test(
  ...check('base.unknown-fields', async ({ claim, snapshot, backend, judge }) => {
    // A request the backend decides on where the claim has one: a modify sample (whose
    // advertisement holds one more open object), else a deny sample, else the harmless call.
    const modify = claim.backend!.samples.modify[0];
    const deny = claim.backend!.samples.deny[0];
    const build = (): Obj & {
      params: Obj & { event: Obj & { session: Obj }; capabilities: Obj & { modify?: Record<string, Obj> } };
    } =>
      (modify
        ? sampleRequest(modify, 'modify')
        : deny
          ? sampleRequest(deny, 'deny')
          : interceptRequest(toolBeforeEvent(HARMLESS_TOOL))) as never;
    const clean = build();
    const cleanResult = successResult(
      judge,
      await backend.request(clean),
      clean,
      'a success result for the clean request',
    );
    // Unknown members only where the snapshot leaves objects open (call and tool are closed).
    type Req = ReturnType<typeof build>;
    const places: { where: string; add: (r: Req) => void }[] = [
      {
        where: 'the message',
        add: (r) => {
          r[UNKNOWN] = { nested: true };
        },
      },
      {
        where: 'params',
        add: (r) => {
          r.params[UNKNOWN] = 1;
        },
      },
      {
        where: 'params.event',
        add: (r) => {
          r.params.event[UNKNOWN] = 'ignored';
        },
      },
      {
        where: 'params.event.session',
        add: (r) => {
          r.params.event.session[UNKNOWN] = ['ignored'];
        },
      },
      {
        where: 'params.capabilities',
        add: (r) => {
          r.params.capabilities[UNKNOWN] = { ignored: true };
        },
      },
      ...Object.keys(clean.params.capabilities.modify ?? {}).map((target) => ({
        where: `params.capabilities.modify.${target}`,
        add: (r: Req) => {
          r.params.capabilities.modify![target]![UNKNOWN] = true;
        },
      })),
    ];
    const each = [...places];
    places.push({
      where: 'every open object at once',
      add: (r) => {
        for (const p of each) p.add(r);
      },
    });
    await eachProbe(
      judge,
      places,
      `for each probe, the result of the clean request: ${decision(cleanResult)}`,
      (p) => `an unknown member in ${p.where}`,
      async (p, j) => {
        const noisy = build();
        p.add(noisy);
        assertValid('intercept-request', noisy, snapshot); // still a valid request: these objects are open
        const noisyResult = successResult(
          j,
          await backend.request(noisy),
          noisy,
          'the same result as for the clean request',
        );
        if (decision(cleanResult) !== decision(noisyResult)) {
          j.fail(
            `it changed the result: clean ${clip(decision(cleanResult), 200)}, with the unknown member ${clip(decision(noisyResult), 200)}`,
          );
        }
      },
    );
  }),
);

/** Event types the draft does not define, of several shapes. */
const UNDEFINED_EVENT_TYPES = [
  { type: 'com.example.unknown.event', shape: 'a reverse-DNS extension name' },
  { type: 'tool.somethingNew', shape: 'a new member of the known tool family' },
  { type: 'TOOL.BEFORE', shape: 'a defined name in other case' },
  { type: 'frobnicate', shape: 'a bare word' },
];

test(
  ...check('base.unknown-event', async ({ backend, judge }) => {
    await eachProbe(
      judge,
      UNDEFINED_EVENT_TYPES,
      `a JSON-RPC error with code ${ERROR_CODES.unsupportedEvent} and the request id, for each`,
      (p) => `event type "${p.type}" (${p.shape})`,
      async (p, j) => {
        const req = harmless() as { params: { event: Record<string, unknown> } } & Record<string, unknown>;
        req.params.event.type = p.type;
        const err = errorResponse(
          j,
          await backend.request(deliberately(req, `the event type is not defined by the draft (${p.shape})`)),
          req,
          ERROR_CODES.unsupportedEvent,
        );
        j.note(`answered with error ${String(err.code)}`);
      },
    );
  }),
);

test(
  ...check('base.extension-keys', async ({ claim, backend, judge }) => {
    // Deny samples are where backends put codes and extensions; a harmless call is judged too.
    const requests = [
      harmless(),
      ...claim.backend!.samples.deny.map((s) =>
        interceptRequest(toolBeforeEvent(s.tool), { effects: s.effects ?? ['deny'] }),
      ),
    ];
    const pattern = new RegExp(REVERSE_DNS_PATTERN);
    for (const req of requests) {
      const result = successResult(judge, await backend.request(req), req, 'a success result');
      const bad: string[] = [];
      const keys = (o: unknown, where: string): void => {
        if (isObject(o)) for (const k of Object.keys(o)) if (!pattern.test(k)) bad.push(`${where} key "${k}"`);
      };
      keys(result.extensions, 'result.extensions');
      (Array.isArray(result.effects) ? result.effects : []).forEach((e, i) => {
        if (!isObject(e)) return;
        keys(e.extensions, `effects[${i}].extensions`);
        if (e.type === 'deny' && e.code !== undefined && (typeof e.code !== 'string' || !pattern.test(e.code)))
          bad.push(`effects[${i}].code ${JSON.stringify(e.code)}`);
      });
      if (bad.length)
        return judge.fail(`not reverse-DNS names: ${bad.join(', ')}`, {
          expected: 'reverse-DNS names such as com.example.policy',
        });
    }
  }),
);

test(
  ...check('base.unknown-method', async ({ backend, judge }) => {
    // JSON-RPC ids are strings or integers; both must come back unchanged, 0 included.
    const ids: (string | number)[] = [newId('bogus'), 7, 0];
    await eachProbe(
      judge,
      ids,
      'a JSON-RPC error object (integer code, string message) with the request id, of the same JSON type, for each',
      (id) => `id ${JSON.stringify(id)}`,
      async (id, j) => {
        const req = { jsonrpc: '2.0', id, method: 'hooks/bogus', params: { protocolVersion: 'draft' } };
        errorResponse(j, await backend.request(deliberately(req, 'the method is not defined by AHP')), req);
      },
    );
  }),
);

test(
  ...check('base.notification-silence', async ({ backend, judge }) => {
    type Note = Record<string, unknown> & { params: Record<string, unknown> & { event: Record<string, unknown> } };
    const base = () => observeNotification(toolBeforeEvent(HARMLESS_TOOL)) as Note;
    const wrongVersion = base();
    wrongVersion.params.protocolVersion = '1999-01-01';
    const unknownEvent = base();
    unknownEvent.params.event.type = 'com.example.unknown.event';
    const unknownMethod = { ...base(), method: 'hooks/bogus' };
    // Malformed AHP params in well-formed JSON-RPC notifications: still no reply.
    const noParams = base() as Record<string, unknown>;
    delete noParams.params;
    const noEvent = base();
    delete (noEvent.params as Record<string, unknown>).event;
    const eventNotObject = base();
    (eventNotObject.params as Record<string, unknown>).event = 'tool.before';
    const eventIncomplete = base();
    for (const k of ['source', 'time', 'call', 'tool']) delete eventIncomplete.params.event[k];
    const { id: _id, ...interceptWithoutId } = interceptRequest(toolBeforeEvent(HARMLESS_TOOL));
    const intercepted = interceptWithoutId as Note;
    delete (intercepted.params as Record<string, unknown>).capabilities;
    const probes = [
      deliberately(wrongVersion, 'a notification with an unsupported protocolVersion'),
      deliberately(unknownEvent, 'a notification with an unknown event type'),
      deliberately(unknownMethod, 'a notification for an unknown method'),
      deliberately(noParams, 'a hooks/observe notification without params'),
      deliberately(noEvent, 'a hooks/observe notification whose params have no event'),
      deliberately(eventNotObject, 'a hooks/observe notification whose event is a string'),
      deliberately(
        eventIncomplete,
        'a hooks/observe notification whose tool.before event lacks source, time, call and tool',
      ),
      deliberately(intercepted, 'a hooks/intercept without an id (a notification) and without capabilities'),
    ];
    await eachProbe(
      judge,
      probes,
      'no reply at all to a notification',
      (p) => p.deliberate,
      async (probe, j) => {
        const outcome = await backend.notify(probe);
        j.evidence({ sent: probe.message, received: outcome.got ?? outcome.detail });
        if (outcome.undetermined)
          return j.incomplete(outcome.detail, { sent: probe.message, received: outcome.detail });
        if (!outcome.silent) j.fail(`got a reply: ${clip(outcome.got ?? outcome.detail, 300)}`);
      },
    );
  }),
);

test(
  ...check('base.invalid-params', async ({ backend, judge }) => {
    const req = {
      jsonrpc: '2.0',
      id: newId('no-event'),
      method: 'hooks/intercept',
      params: { protocolVersion: 'draft', capabilities: { effects: ['deny'] } },
    };
    const reply = await backend.request(deliberately(req, 'params has no event'));
    const v = replyObject(judge, reply, req, 'a JSON-RPC error for params without an event');
    if (!isObject(v.error))
      judge.warn(
        `a request whose params lack the event was answered without an error: ${clip(JSON.stringify(v), 200)}`,
      );
  }),
);

test(
  ...check('base.unparseable-input', async ({ backend, judge }) => {
    const garbage = '{"jsonrpc": "2.0", "id": "x", "method": ';
    const reply = await backend.request(deliberately(garbage, 'the bytes do not parse as JSON'));
    judge.evidence({ sent: garbage, expected: 'no reply, or a JSON-RPC error -32700 with id null' });
    if (reply.kind === 'none') return judge.note('no reply to unparseable input');
    // Over HTTP a non-200 status without a JSON body is a transport-level refusal, not a JSON-RPC reply.
    const http = httpOf(reply);
    if (http && http.status !== 200 && reply.value === undefined)
      return judge.note(`HTTP ${http.status} without a JSON-RPC body`);
    const v = replyObject(judge, reply, garbage, 'no reply, or a JSON-RPC error -32700 with id null');
    const e = v.error as { code?: unknown } | undefined;
    if (!isObject(e) || e.code !== -32700 || v.id !== null) {
      judge.fail(
        `unparseable input must get no reply or error -32700 with id null, got ${clip(JSON.stringify(v), 200)}`,
      );
    }
    const shape = errorShapeProblem(e as Record<string, unknown>);
    if (shape) judge.fail(`the -32700 error object is malformed (${shape}): ${clip(JSON.stringify(v), 200)}`);
  }),
);

test(
  ...check('base.no-secret-leak', async ({ backend, judge }) => {
    // The claim's own token when it configures one, else a canary the backend has no reason to repeat.
    const token = backend.token ?? `ahp-canary-${randomBytes(12).toString('hex')}`;
    backend.transcript.addSecret(token);
    const wrongVersion = harmless() as { params: Record<string, unknown> } & Record<string, unknown>;
    wrongVersion.params.protocolVersion = '1999-01-01';
    // And a wrong token: where the backend requires authentication, its refusal (body,
    // challenge) must not quote the credential it refuses either.
    const wrong = `ahp-canary-wrong-${randomBytes(12).toString('hex')}`;
    backend.transcript.addSecret(wrong);
    const requests: [Parameters<typeof backend.request>[0], string][] = [
      [harmless(), token],
      [deliberately(wrongVersion, 'an unsupported protocolVersion, to see an error message and data'), token],
      [harmless(), wrong],
    ];
    for (const [req, sent] of requests) {
      const reply = await backend.request(req, { token: sent });
      const seen = reply.kind === 'reply' ? reply.raw : '';
      const headers = JSON.stringify(httpOf(reply)?.headers ?? {});
      const leaked = [token, wrong].find((t) => seen.includes(t) || headers.includes(t));
      if (leaked) {
        judge.fail(
          leaked === token
            ? 'the bearer token the runner sent came back in the reply'
            : 'the wrong token the runner sent came back in the reply to it',
          { expected: 'credentials never appear in replies, error messages or error data' },
        );
      }
    }
  }),
);
