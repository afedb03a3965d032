// What the sessions see of an implementation that its claim is held against after the run
// (src/results/observed.ts, src/results/over-claim.ts): a harness run's frames (events sent
// and how, what the intercepts advertised, the session.start manifest, whether it used the
// run's authorization server), and a backend's replies (effects returned, hooks/configuration
// answered). Read from what the sessions already hold; nothing here sends anything.
import type { WireRecord } from '../../drivers/scripted-backend/script.js';
import type { Reply } from '../../drivers/channel.js';
import { isObject } from '../../src/protocol/json.js';
import { manifestSummary, mergeObserved, names, type Observed } from '../../src/results/observed.js';

type Obj = Record<string, unknown>;

const INTERCEPT = 'hooks/intercept';
const OBSERVE = 'hooks/observe';
const CONFIGURATION = 'hooks/configuration';

const paramsOf = (m: unknown): Obj | undefined => (isObject(m) && isObject(m.params) ? m.params : undefined);
const eventOf = (m: unknown): Obj | undefined => {
  const e = paramsOf(m)?.event;
  return isObject(e) ? e : undefined;
};
const typeOf = (e: Obj | undefined): string | undefined => (typeof e?.type === 'string' ? e.type : undefined);

/**
 * One harness run: `records` its wire log, `auth` present when the run had OAuth-protected
 * hooks (with what the run's authorization server received).
 */
export function observeHarnessRun(run: {
  records: readonly WireRecord[];
  auth?: { records: readonly unknown[] };
}): Observed {
  let o: Observed = {};
  for (const r of run.records) {
    if (r.kind !== 'frame') continue;
    const event = eventOf(r.message);
    const type = typeOf(event);
    if (!type) continue;
    if (r.method === INTERCEPT) {
      const caps = paramsOf(r.message)?.capabilities;
      o = mergeObserved(o, {
        intercepted: names([type]),
        advertised: { [type]: names(isObject(caps) ? caps.effects : undefined) },
      });
    } else if (r.method === OBSERVE) o = mergeObserved(o, { observed: names([type]) });
    if (type === 'session.start') {
      const manifest = manifestSummary(event!.manifest);
      if (manifest) o = mergeObserved(o, { manifest });
    }
  }
  if (run.auth) o = mergeObserved(o, { oauthRuns: 1, oauthUsed: run.auth.records.length > 0 ? 1 : 0 });
  return o;
}

/** One request the runner sent a backend (as sent) and its reply; undefined when it says nothing of the claim. */
export function observeBackendExchange(sent: unknown, reply: Reply): Observed | undefined {
  if (!isObject(sent)) return undefined;
  const value = reply.kind === 'reply' && isObject(reply.value) ? reply.value : undefined;
  const result = value && isObject(value.result) ? value.result : undefined;
  if (sent.method === INTERCEPT) {
    const type = typeOf(eventOf(sent));
    if (!type || !result || !Array.isArray(result.effects)) return undefined;
    return { returned: { [type]: names(result.effects.map((e) => (isObject(e) ? e.type : undefined))) } };
  }
  if (sent.method === CONFIGURATION) {
    const configuration = result && isObject(result.configuration) ? result.configuration : undefined;
    const subscriptions = Array.isArray(configuration?.subscriptions) ? configuration.subscriptions : [];
    const of = (mode: string): string[] =>
      names(subscriptions.flatMap((s) => (isObject(s) && s.mode === mode && Array.isArray(s.events) ? s.events : [])));
    return {
      configuration: { asked: 1, answered: result ? 1 : 0, intercept: of('intercept'), observe: of('observe') },
    };
  }
  return undefined;
}
