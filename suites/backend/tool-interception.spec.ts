// Tool Interception profile, backend side.
import {
  HARMLESS_TOOL,
  interceptRequest,
  sampleRequest,
  toolBeforeEvent,
  type SampleCall,
} from '../../src/checks/probes.js';
import { isObject } from '../../src/protocol/json.js';
import { applyModifyResponse, EditRejected } from '../../src/protocol/edit.js';
import { isWireValid, validate } from '../../src/protocol/validator.js';
import { check, test } from '../support/check.js';
import {
  clip,
  describeReply,
  eachProbe,
  received,
  replyObject,
  requireWholeReply,
  successResult,
} from '../support/expect.js';

type Obj = Record<string, unknown>;

const effectsOf = (result: Obj): Obj[] => (Array.isArray(result.effects) ? result.effects.filter(isObject) : []);

test(
  ...check('ti.result-valid', async ({ snapshot, backend, judge }) => {
    const req = interceptRequest(toolBeforeEvent(HARMLESS_TOOL), { effects: ['deny'] });
    const reply = await backend.request(req);
    const v = replyObject(judge, reply, req, 'a success response valid against the intercept-response schema');
    // By the claim's snapshot: draft@1d98c19 lets a result leave out effects and keeps
    // manifest and configuration out of every result; draft@2b5da580 requires effects.
    const findings = validate('intercept-response', v, { wireOnly: true, snapshot });
    if (!isWireValid(findings)) {
      judge.fail(
        `the reply is not a valid intercept result: ${findings
          .slice(0, 4)
          .map((f) => `${f.path || '(root)'} ${f.message}`)
          .join('; ')}`,
      );
    }
  }),
);

test(
  ...check('ti.response-id', async ({ backend, judge }) => {
    const req = interceptRequest(toolBeforeEvent(HARMLESS_TOOL));
    const v = replyObject(judge, await backend.request(req), req, `a response with id ${JSON.stringify(req.id)}`);
    if (v.id !== req.id)
      return judge.fail(`the response id ${JSON.stringify(v.id)} is not the request id ${JSON.stringify(req.id)}`);
  }),
);

test(
  ...check('ti.advertised-effects', async ({ claim, snapshot, backend, judge }) => {
    const probes: { req: Obj; why: string }[] = [
      {
        req: interceptRequest(toolBeforeEvent(HARMLESS_TOOL), { effects: ['deny'] }),
        why: 'a harmless call with deny advertised',
      },
      // A call the backend would deny, with nothing advertised: returning deny would be unadvertised.
      ...claim.backend!.samples.deny.map((s) => ({
        req: interceptRequest(toolBeforeEvent(s.tool), { effects: [] }),
        why: `deny sample ${s.tool.name} with no effects advertised`,
      })),
      ...claim.backend!.samples.modify.map((s) => ({
        req: interceptRequest(toolBeforeEvent(s.tool), { effects: ['deny'] }),
        why: `modify sample ${s.tool.name} with modify not advertised`,
      })),
    ];
    for (const { req, why } of probes) {
      const reply = await backend.request(req);
      // Declining with a JSON-RPC error is not an unadvertised effect (the harness applies its failure policy).
      if (reply.kind === 'reply' && isObject(reply.value) && isObject(reply.value.error)) {
        judge.note(`${why}: answered with a JSON-RPC error, which returns no effect`);
        continue;
      }
      const result = successResult(
        judge,
        reply,
        req,
        `only effects from ${JSON.stringify((req.params as Obj).capabilities)}`,
      );
      const advertised = new Set((req.params as { capabilities: { effects: string[] } }).capabilities.effects);
      const extra = effectsOf(result)
        .map((e) => String(e.type))
        .filter((t) => !advertised.has(t));
      if (extra.length)
        return judge.fail(`${why}: returned unadvertised effect${extra.length > 1 ? 's' : ''} ${extra.join(', ')}`);
      requireWholeReply(judge, reply, req, snapshot, `${why}: `);
    }
    if (claim.backend!.samples.deny.length + claim.backend!.samples.modify.length === 0) {
      judge.note('judged on a harmless call only: the claim has no samples to probe with an empty advertisement');
    }
  }),
);

test(
  ...check('ti.deny-samples', async ({ claim, snapshot, backend, judge }) => {
    const samples = claim.backend!.samples.deny;
    if (samples.length === 0)
      judge.notApplicable('the claim lists no deny samples, so the deny path was not exercised');
    for (const s of samples) {
      const req = sampleRequest(s, 'deny');
      const reply = await backend.request(req);
      const result = successResult(
        judge,
        reply,
        req,
        `a valid deny for sample ${s.tool.name}, in a reply valid as a whole for ${snapshot}`,
      );
      const deny = effectsOf(result).find((e) => e.type === 'deny');
      if (!deny)
        return judge.fail(
          `sample ${s.tool.name}: the claim says it is denied, but the result holds no deny: ${clip(JSON.stringify(result), 200)}`,
        );
      const findings = validate('effect', deny, { wireOnly: true, snapshot });
      if (!isWireValid(findings))
        return judge.fail(
          `sample ${s.tool.name}: the deny is not valid: ${findings.map((f) => `${f.path || '(root)'} ${f.message}`).join('; ')}`,
        );
      // A valid deny in a reply a harness cannot accept (a wrong protocolVersion, jsonrpc or id) denies nothing.
      requireWholeReply(judge, reply, req, snapshot, `sample ${s.tool.name}: `);
    }
    judge.note(`${samples.length} deny sample(s) denied with a valid deny, each reply valid as a whole`);
  }),
);

test(
  ...check('ti.modify-samples', async ({ claim, snapshot, backend, judge }) => {
    const samples = claim.backend!.samples.modify;
    if (samples.length === 0)
      judge.notApplicable('the claim lists no modify samples, so the modify path was not exercised');
    for (const s of samples) {
      const req = sampleRequest(s, 'modify');
      const reply = await backend.request(req);
      const result = successResult(
        judge,
        reply,
        req,
        `modify effects the harness can apply for sample ${s.tool.name}, in a reply valid as a whole for ${snapshot}`,
      );
      const modifies = effectsOf(result).filter((e) => e.type === 'modify');
      if (modifies.length === 0)
        return judge.fail(
          `sample ${s.tool.name}: the claim says it is modified, but the result holds no modify effect: ${clip(JSON.stringify(result), 200)}`,
        );
      // Judge as a harness would: the exact advertised target/operation pairs, body selection, full authority.
      const advert =
        ((req.params as Obj).capabilities as { modify?: Record<string, { replace?: boolean; merge?: boolean }> })
          .modify ?? {};
      const pairs = Object.entries(advert).flatMap(([t, ops]) =>
        (['replace', 'merge'] as const).filter((op) => ops[op]).map((op) => [t, op] as const),
      );
      try {
        applyModifyResponse({ input: s.tool.input }, modifies, {
          capabilities: pairs,
          selection: { input: 'body' },
          readable: ['input'],
          writable: ['input'],
          event: 'tool.before',
        });
      } catch (err) {
        if (err instanceof EditRejected)
          return judge.fail(`sample ${s.tool.name}: a harness must reject these modify effects: ${err.message}`, {
            expected: 'modify effects within the advertised target and operation, with a canonical value',
          });
        throw err;
      }
      requireWholeReply(judge, reply, req, snapshot, `sample ${s.tool.name}: `);
    }
    judge.note(`${samples.length} modify sample(s) gave applicable modify effects, each reply valid as a whole`);
  }),
);

test(
  ...check('ti.duplicate-delivery', async ({ claim, backend, judge }) => {
    const sample = claim.backend!.samples.deny[0];
    const req = sample ? sampleRequest(sample, 'deny') : interceptRequest(toolBeforeEvent(HARMLESS_TOOL));
    const first = successResult(judge, await backend.request(req), req, 'a success result');
    const reply = await backend.request(req);
    const v = reply.kind === 'reply' && isObject(reply.value) ? reply.value : undefined;
    if (!v || !isObject(v.result)) {
      // An error or silence for the duplicate is a MUST failure, judged by ti.duplicate-answered.
      return judge.incomplete(
        `the duplicate got no success result to compare with the first (${describeReply(reply)}); ti.duplicate-answered judges that`,
        {
          sent: req,
          received: received(reply),
          expected: 'a success result for the duplicate, semantically equal to the first',
        },
      );
    }
    judge.evidence({
      sent: req,
      received: received(reply),
      expected: 'semantically equal results for both deliveries',
    });
    const second = v.result;
    const semantic = (r: Obj): string =>
      JSON.stringify(
        effectsOf(r)
          .map((e) => e.type)
          .sort(),
      );
    if (semantic(first) !== semantic(second)) {
      judge.warn(
        `the duplicate delivery of event ${String(req.id)} got a different result: first ${semantic(first)}, then ${semantic(second)}`,
      );
    }
  }),
);

test(
  ...check('ti.duplicate-answered', async ({ claim, backend, judge }) => {
    const sample = claim.backend!.samples.deny[0];
    const req = sample ? sampleRequest(sample, 'deny') : interceptRequest(toolBeforeEvent(HARMLESS_TOOL));
    const first = await backend.request(req);
    const v = first.kind === 'reply' && isObject(first.value) ? first.value : undefined;
    if (!v || !isObject(v.result)) {
      return judge.incomplete(
        `the first delivery got no success result (${describeReply(first)}), so tolerance of a duplicate cannot be judged; ti.result-valid judges the first reply`,
        {
          sent: req,
          received: received(first),
          expected: 'a success result for the first delivery',
        },
      );
    }
    successResult(
      judge,
      await backend.request(req),
      req,
      'a success result for the duplicate delivery (the same request again), as for the first',
    );
  }),
);

/** What a result decides: effect types, with target and operation for modify (free text such as a reason may name the event). */
const decision = (r: Obj): string =>
  JSON.stringify(
    Array.isArray(r.effects)
      ? r.effects.map((e) =>
          isObject(e) ? [e.type, e.target, e.operation].filter((x) => x !== undefined).join('/') : typeof e,
        )
      : r.effects,
  );

test(
  ...check('ti.state-independent', async ({ claim, backend, judge }) => {
    const deny = claim.backend!.samples.deny[0];
    const modify = claim.backend!.samples.modify[0];
    const kinds = [
      { label: 'the harmless call', build: () => interceptRequest(toolBeforeEvent(HARMLESS_TOOL)) },
      ...(deny ? [{ label: `deny sample ${deny.tool.name}`, build: () => sampleRequest(deny, 'deny') }] : []),
      ...(modify ? [{ label: `modify sample ${modify.tool.name}`, build: () => sampleRequest(modify, 'modify') }] : []),
    ];
    if (kinds.length === 1) judge.note('the claim lists no samples: only the harmless call was asked again');
    // First round: each call decided once, in one process.
    const first = new Map<string, string>();
    for (const k of kinds) {
      const req = k.build();
      first.set(
        k.label,
        decision(successResult(judge, await backend.request(req), req, `a success result for ${k.label}`)),
      );
    }
    // Second round, in reverse order, each as a new call (new event and call id): the same
    // call content right after its own decision, and the harmless call right after a deny.
    // Then the deny and modify calls once more, as new calls whose advertisement no longer
    // holds the effect they got: capability gating holds per request, whatever was decided
    // for the call before (a remembered decision replayed would be unadvertised). allow is
    // advertised there (and deny for the modify call), so a backend that allows or denies
    // passes as well as one answering with no effect; a JSON-RPC error returns no effect.
    type Probe =
      | { kind: 'again'; label: string; build: () => Obj }
      | { kind: 'gated'; label: string; tool: SampleCall['tool']; effects: string[]; lacks: string };
    const probes: Probe[] = [
      ...[...kinds].reverse().map((k) => ({ kind: 'again' as const, ...k })),
      ...(deny
        ? [
            {
              kind: 'gated' as const,
              label: `deny sample ${deny.tool.name}`,
              tool: deny.tool,
              effects: ['allow'],
              lacks: 'deny',
            },
          ]
        : []),
      ...(modify
        ? [
            {
              kind: 'gated' as const,
              label: `modify sample ${modify.tool.name}`,
              tool: modify.tool,
              effects: ['allow', 'deny'],
              lacks: 'modify',
            },
          ]
        : []),
    ];
    await eachProbe(
      judge,
      probes,
      "for each call asked again, the effect types it got the first time in this process; for each asked again without its effect advertised, only effects of that request's capabilities.effects",
      (p) =>
        p.kind === 'again'
          ? `${p.label}, asked again as a new call`
          : `${p.label}, asked again with ${p.lacks} no longer advertised (capabilities.effects ${JSON.stringify(p.effects)})`,
      async (p, j) => {
        if (p.kind === 'again') {
          const req = p.build();
          const again = decision(
            successResult(
              j,
              await backend.request(req),
              req,
              `the effect types of the first time: ${first.get(p.label)}`,
            ),
          );
          if (again !== first.get(p.label))
            j.fail(
              `got ${clip(again, 200)} after the earlier decisions, ${clip(first.get(p.label)!, 200)} the first time`,
            );
          return;
        }
        const req = interceptRequest(toolBeforeEvent(p.tool), { effects: p.effects });
        const reply = await backend.request(req);
        if (reply.kind === 'reply' && isObject(reply.value) && isObject(reply.value.error)) {
          j.evidence({ sent: req, received: received(reply) });
          return j.note('answered with a JSON-RPC error, which returns no effect');
        }
        const result = successResult(j, reply, req, `only effects from ${JSON.stringify(p.effects)}`);
        const extra = effectsOf(result)
          .map((e) => String(e.type))
          .filter((t) => !p.effects.includes(t));
        if (extra.length)
          j.fail(
            `returned unadvertised effect${extra.length > 1 ? 's' : ''} ${extra.join(', ')} after the call was decided with ${p.lacks} advertised`,
          );
      },
    );
  }),
);
