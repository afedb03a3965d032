// Tool Interception profile, backend side.
import { HARMLESS_TOOL, interceptRequest, toolBeforeEvent } from '../../src/checks/probes.js';
import type { Sample } from '../../src/claims/load.js';
import { applyModifyResponse, EditRejected } from '../../src/protocol/edit.js';
import { isWireValid, validate } from '../../src/protocol/validator.js';
import { check, test } from '../support/fixtures.js';
import { clip, isObj, replyObject, successResult } from '../support/expect.js';

type Obj = Record<string, unknown>;

const sampleRequest = (s: Sample, kind: 'deny' | 'modify'): Obj => {
  const effects = s.effects ?? [kind];
  const capabilities: Obj = { effects };
  if (effects.includes('modify')) capabilities.modify = s.modify ?? { input: { replace: true, merge: true } };
  return interceptRequest(toolBeforeEvent(s.tool), capabilities);
};

const effectsOf = (result: Obj): Obj[] => (Array.isArray(result.effects) ? result.effects.filter(isObj) : []);

test(...check('ti.result-valid', async ({ backend, judge }) => {
  const req = interceptRequest(toolBeforeEvent(HARMLESS_TOOL), { effects: ['deny'] });
  const reply = await backend.request(req);
  const v = replyObject(judge, reply, req, 'a success response valid against the intercept-response schema');
  const findings = validate('intercept-response', v, { wireOnly: true });
  if (!isWireValid(findings)) {
    judge.fail(`the reply is not a valid intercept result: ${findings.slice(0, 4).map((f) => `${f.path || '(root)'} ${f.message}`).join('; ')}`);
  }
}));

test(...check('ti.response-id', async ({ backend, judge }) => {
  const req = interceptRequest(toolBeforeEvent(HARMLESS_TOOL));
  const v = replyObject(judge, await backend.request(req), req, `a response with id ${JSON.stringify(req.id)}`);
  if (v.id !== req.id) return judge.fail(`the response id ${JSON.stringify(v.id)} is not the request id ${JSON.stringify(req.id)}`);
}));

test(...check('ti.advertised-effects', async ({ claim, backend, judge }) => {
  const probes: { req: Obj; why: string }[] = [
    { req: interceptRequest(toolBeforeEvent(HARMLESS_TOOL), { effects: ['deny'] }), why: 'a harmless call with deny advertised' },
    // A call the backend would deny, with nothing advertised: returning deny would be unadvertised.
    ...claim.backend!.samples.deny.map((s) => ({ req: interceptRequest(toolBeforeEvent(s.tool), { effects: [] }), why: `deny sample ${s.tool.name} with no effects advertised` })),
    ...claim.backend!.samples.modify.map((s) => ({ req: interceptRequest(toolBeforeEvent(s.tool), { effects: ['deny'] }), why: `modify sample ${s.tool.name} with modify not advertised` })),
  ];
  for (const { req, why } of probes) {
    const reply = await backend.request(req);
    // Declining with a JSON-RPC error is not an unadvertised effect (the harness applies its failure policy).
    if (reply.kind === 'reply' && isObj(reply.value) && isObj(reply.value.error)) {
      judge.note(`${why}: answered with a JSON-RPC error, which returns no effect`);
      continue;
    }
    const result = successResult(judge, reply, req, `only effects from ${JSON.stringify((req.params as Obj).capabilities)}`);
    const advertised = new Set(((req.params as { capabilities: { effects: string[] } }).capabilities.effects));
    const extra = effectsOf(result).map((e) => String(e.type)).filter((t) => !advertised.has(t));
    if (extra.length) return judge.fail(`${why}: returned unadvertised effect${extra.length > 1 ? 's' : ''} ${extra.join(', ')}`);
  }
  if (claim.backend!.samples.deny.length + claim.backend!.samples.modify.length === 0) {
    judge.note('judged on a harmless call only: the claim has no samples to probe with an empty advertisement');
  }
}));

test(...check('ti.deny-samples', async ({ claim, backend, judge }) => {
  const samples = claim.backend!.samples.deny;
  if (samples.length === 0) judge.notApplicable('the claim lists no deny samples, so the deny path was not exercised');
  for (const s of samples) {
    const req = sampleRequest(s, 'deny');
    const result = successResult(judge, await backend.request(req), req, `a valid deny for sample ${s.tool.name}`);
    const deny = effectsOf(result).find((e) => e.type === 'deny');
    if (!deny) return judge.fail(`sample ${s.tool.name}: the claim says it is denied, but the result holds no deny: ${clip(JSON.stringify(result), 200)}`);
    const findings = validate('effect', deny, { wireOnly: true });
    if (!isWireValid(findings)) return judge.fail(`sample ${s.tool.name}: the deny is not valid: ${findings.map((f) => `${f.path || '(root)'} ${f.message}`).join('; ')}`);
  }
  judge.note(`${samples.length} deny sample(s) denied with a valid deny`);
}));

test(...check('ti.modify-samples', async ({ claim, backend, judge }) => {
  const samples = claim.backend!.samples.modify;
  if (samples.length === 0) judge.notApplicable('the claim lists no modify samples, so the modify path was not exercised');
  for (const s of samples) {
    const req = sampleRequest(s, 'modify');
    const result = successResult(judge, await backend.request(req), req, `modify effects the harness can apply for sample ${s.tool.name}`);
    const modifies = effectsOf(result).filter((e) => e.type === 'modify');
    if (modifies.length === 0) return judge.fail(`sample ${s.tool.name}: the claim says it is modified, but the result holds no modify effect: ${clip(JSON.stringify(result), 200)}`);
    // Judge as a harness would: the exact advertised target/operation pairs, body selection, full authority.
    const advert = ((req.params as Obj).capabilities as { modify?: Record<string, { replace?: boolean; merge?: boolean }> }).modify ?? {};
    const pairs = Object.entries(advert).flatMap(([t, ops]) => (['replace', 'merge'] as const).filter((op) => ops[op]).map((op) => [t, op] as const));
    try {
      applyModifyResponse({ input: s.tool.input }, modifies, {
        capabilities: pairs, selection: { input: 'body' }, readable: ['input'], writable: ['input'], event: 'tool.before',
      });
    } catch (err) {
      if (err instanceof EditRejected) return judge.fail(`sample ${s.tool.name}: a harness must reject these modify effects: ${err.message}`, { expected: 'modify effects within the advertised target and operation, with a canonical value' });
      throw err;
    }
  }
  judge.note(`${samples.length} modify sample(s) gave applicable modify effects`);
}));

test(...check('ti.duplicate-delivery', async ({ claim, backend, judge }) => {
  const sample = claim.backend!.samples.deny[0];
  const req = sample ? sampleRequest(sample, 'deny') : interceptRequest(toolBeforeEvent(HARMLESS_TOOL));
  const first = successResult(judge, await backend.request(req), req, 'a success result');
  const second = successResult(judge, await backend.request(req), req, 'the same result for the duplicate');
  const semantic = (r: Obj): string => JSON.stringify(effectsOf(r).map((e) => e.type).sort());
  if (semantic(first) !== semantic(second)) {
    judge.warn(`the duplicate delivery of event ${String(req.id)} got a different result: first ${semantic(first)}, then ${semantic(second)}`);
  }
}));
