// One content step of adapter contract version 2: the boundary event goes through the
// intercept chain (chain.ts: the same order, failures, deadlines, retries and failure
// policies as tool.before), each interceptor sent the content in its own view; replies are
// applied with the edit engine (src/protocol/edit.ts) under the context the host resolves
// for that interceptor; the receiver records the effective value; observers get it after.
//
// Host-resolved context per interceptor (contract v2, "Applying answers"): capabilities =
// what the intercept advertised; selection[target] = the hook's view (only body edits);
// readable/writable = the target; authorized attachments = the attachment parts of the
// current value; event, elicitation mode and action from the boundary.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { applyModifyResponse, EditRejected, type EditContext } from '../../src/protocol/edit.js';
import { cloneJson, isObject, type JsonValue } from '../../src/protocol/json.js';
import { ourSchemas } from '../../src/protocol/schema-set.js';
import { runChain } from './chain.js';
import type { ContentStep } from './config.js';
import {
  boundaryCapabilities,
  contentBoundary,
  ContentStepError,
  type ContentBoundary,
  type ContentState,
} from './content-events.js';
import { dispatchedTo, type Recipient } from './dispatch.js';
import type { HarnessFault } from './faults.js';
import type { ContentView } from './registration.js';
import { effectsProblem, replyEffects, type Judgement } from './reply.js';
import type { StepReport } from './report.js';
import type { Run } from './run.js';
import { hasFileAttachments, prepareAttachments, type Prepared } from './upload.js';

export async function runContentStep(run: Run, given: ContentStep): Promise<StepReport> {
  let content: ContentBoundary;
  let step = given;
  let later: Extract<Prepared, { ok: true }>['later'] = [];
  try {
    content = contentBoundary(step, run.session, run.fault);
  } catch (e) {
    if (e instanceof ContentStepError) return { id: step.id, outcome: 'unsupported', reason: e.message };
    throw e;
  }
  const type = content.boundary.event;
  const capabilities = boundaryCapabilities(content.boundary);
  const viewOf = (r: Recipient): ContentView => effectiveView(r.subscription.view, run.fault);
  const interceptors = dispatchedTo(run, type, 'intercept');
  // Attachments given as files (upload steps): uploaded, inlined or gapped before any event is built.
  if (hasFileAttachments(step.body)) {
    const prepared = await prepareAttachments(step.body, interceptors, run.fault);
    if (!prepared.ok) {
      run.audit(`${step.id}: ${prepared.reason}; the failure policy is fail-closed`);
      return { id: step.id, outcome: 'denied-by-failure-policy', reason: prepared.reason };
    }
    step = { ...step, body: prepared.body };
    later = prepared.later;
    content = contentBoundary(step, run.session, run.fault);
  }
  const chain = await runChain<ContentState>(
    run,
    interceptors,
    {
      initial: content.initial,
      eventFor: (state, r) => content.event(state, viewOf(r)),
      judge: (reply, rpcId, state, r) =>
        judgeContentReply(reply, rpcId, state, content, capabilities.effects as string[], viewOf(r), run),
    },
    { capabilities },
  );

  let report: StepReport;
  // upload-after-event fault: the uploads come only now, after the event went out.
  for (const u of later) {
    const result = await u();
    const policy = interceptors.find((r) => r.subscription.upload)?.subscription.failurePolicy;
    if (!result.ok && policy === 'fail-closed')
      return { id: step.id, outcome: 'denied-by-failure-policy', reason: `upload failed: ${result.reason}` };
  }
  if (chain.verdict === 'allowed') {
    try {
      writeMarker(step.marker, content.effective(chain.value));
      report = { id: step.id, outcome: 'delivered' };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'error';
      run.audit(`${step.id}: the receiver could not write its marker (${code})`);
      report = { id: step.id, outcome: 'not-run', reason: `the receiver could not record the value (${code})` };
    }
  } else {
    report = { id: step.id, outcome: chain.verdict, ...(chain.reason !== undefined ? { reason: chain.reason } : {}) };
  }
  // Observers get the content as it settled, each in its own view.
  run.observations.publishViews(type, (r) => content.event(chain.value, viewOf(r)));
  // After a deny or a fail-closed stop, each interceptor not yet called observes the settled
  // event once, in its own view (spec-events 9, observation disposition: best effort, allowed by
  // AHP-REG-002's exception; the ones called get no second copy). short-circuit-second-copy
  // fault: the interceptors already called get it too.
  if (chain.verdict !== 'allowed') {
    const to = run.fault.pick('short-circuit-second-copy', interceptors.slice(chain.called), interceptors);
    if (to.length > 0) run.observations.publishTo(to, (r) => content.event(chain.value, viewOf(r)));
  }
  return report;
}

/** hidden-text-leak fault: every hook is treated as if it had the body view. */
const effectiveView = (view: ContentView, fault: HarnessFault): ContentView =>
  fault.pick<ContentView>('hidden-text-leak', view, 'body');

/** The receiver's record: `{effective}`, written then renamed so it appears whole. */
export function writeMarker(marker: string, effective: JsonValue): void {
  mkdirSync(dirname(marker), { recursive: true });
  const tmp = `${marker}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ effective }) + '\n');
  renameSync(tmp, marker);
}

/** The attachment parts of a message list (the only descriptors a hook may resubmit). */
function attachmentsOf(value: unknown): unknown[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((m) =>
    isObject(m) && Array.isArray(m.parts) ? m.parts.filter((p) => isObject(p) && p.kind === 'attachment') : [],
  );
}

/** The edit context the host resolves for one interceptor (see the top of this file). */
export function contentEditContext(
  content: ContentBoundary,
  state: ContentState,
  advertised: readonly string[],
  view: ContentView,
  run: Pick<Run, 'snapshot'>,
): EditContext {
  const target = content.boundary.target;
  const targets = target !== undefined ? [target] : [];
  return {
    capabilities: advertised.includes('modify')
      ? targets.flatMap((t) => [[t, 'replace'] as const, [t, 'merge'] as const])
      : [],
    selection: Object.fromEntries(targets.map((t) => [t, view])),
    readable: targets,
    writable: targets,
    authorizedAttachments: target !== undefined ? attachmentsOf(state[target]) : [],
    event: content.boundary.event,
    elicitationMode: content.elicitation?.mode ?? '',
    elicitationAction: content.elicitation?.action ?? '',
    schemas: ourSchemas(run.snapshot),
  };
}

/**
 * One reply at a content boundary: the JSON-RPC and result checks every reply gets, then
 * the effect list against what this boundary advertised, then the modifies applied as one
 * response (atomic: any rejected effect rejects the whole response, an operational failure).
 */
export function judgeContentReply(
  reply: JsonValue,
  rpcId: string,
  state: ContentState,
  content: ContentBoundary,
  advertised: readonly string[],
  view: ContentView,
  run: Pick<Run, 'snapshot' | 'fault'>,
): Judgement<ContentState> {
  const listed = replyEffects(reply, rpcId, run.fault, run.snapshot);
  if (!listed.ok) return listed;
  if (listed.effects === undefined) return { ok: true, decision: { kind: 'no-effect' } };
  const effects = listed.effects;
  // elicitation-request-modify fault: a modify at the request is taken although never advertised.
  const requestModify = content.boundary.target === undefined && run.fault.is('elicitation-request-modify');
  const enforced = requestModify ? [...advertised, 'modify'] : advertised;
  const ctx = contentEditContext(content, state, advertised, view, run);
  const rejected = (failure: string): Judgement<ContentState> => {
    // non-atomic-edits fault: the valid effects before the rejected one stay applied.
    const partial = run.fault.is('non-atomic-edits') ? validPrefix(effects, state, ctx, run, enforced) : undefined;
    return partial !== undefined ? { ok: false, failure, partial } : { ok: false, failure };
  };
  const problem = effectsProblem(effects, run.snapshot, enforced);
  if (problem !== undefined) return rejected(problem);

  const modifies = (effects as Record<string, unknown>[]).filter((e) => e.type === 'modify');
  // modify-any-target fault: a modify naming a target this intercept did not advertise is
  // applied to the boundary's own target (the edit engine rejects the whole response: R6/R7).
  const target = content.boundary.target;
  const applied =
    target !== undefined && modifies.some((m) => m.target !== target) && run.fault.is('modify-any-target')
      ? modifies.map((m) => ({ ...m, target }))
      : modifies;
  let next = state;
  if (modifies.length > 0) {
    if (requestModify) next = modifyRequestLoosely(state, modifies);
    else {
      try {
        next = applyModifyResponse(state, applied, ctx);
      } catch (e) {
        if (!(e instanceof EditRejected)) throw e;
        return rejected(`modify rejected (${e.rule}): ${e.message.slice(0, 160)}`);
      }
    }
  }
  const deny = effects.find((e) => isObject(e) && e.type === 'deny') as Record<string, unknown> | undefined;
  if (deny) return { ok: true, decision: { kind: 'deny', reason: String(deny.reason) } };
  if (modifies.length > 0) return { ok: true, decision: { kind: 'modify', value: next } };
  return { ok: true, decision: { kind: 'no-effect' } };
}

/**
 * non-atomic-edits fault: the state after the longest run of leading modify effects that
 * would be accepted on their own, or undefined when not even the first one is.
 */
function validPrefix(
  effects: readonly JsonValue[],
  state: ContentState,
  ctx: EditContext,
  run: Pick<Run, 'snapshot'>,
  enforced: readonly string[],
): ContentState | undefined {
  let applied: ContentState | undefined;
  for (let n = 1; n < effects.length; n++) {
    const prefix = effects.slice(0, n);
    if (!prefix.every((e) => isObject(e) && e.type === 'modify')) break;
    if (effectsProblem(prefix as JsonValue[], run.snapshot, enforced) !== undefined) break;
    try {
      applied = applyModifyResponse(state, prefix, ctx);
    } catch {
      break;
    }
  }
  return applied;
}

/**
 * elicitation-request-modify fault: whatever a modify says, it changes the request shown:
 * an object is merged in (replace: becomes it); a list of parts or messages gives its first
 * text, used as the request if it is a JSON object, else as the request's message.
 */
function modifyRequestLoosely(state: ContentState, modifies: readonly Record<string, unknown>[]): ContentState {
  let request = cloneJson(state.request) as Record<string, unknown>;
  for (const m of modifies) {
    const value = m.value;
    if (isObject(value)) {
      request = m.operation === 'replace' ? cloneJson(value) : { ...request, ...cloneJson(value) };
      continue;
    }
    const text = firstText(value);
    if (text === undefined) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    request = isObject(parsed) ? parsed : { ...request, message: text };
  }
  return { ...state, request };
}

function firstText(value: unknown): string | undefined {
  if (!Array.isArray(value)) return undefined;
  for (const item of value) {
    if (!isObject(item)) continue;
    if (typeof item.text === 'string') return item.text;
    const inner = firstText(item.parts);
    if (inner !== undefined) return inner;
  }
  return undefined;
}
