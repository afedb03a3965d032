// Canonical content and edits, harness side (issue 14; the seed's "Canonical content and
// edit checks"): per content boundary a harness claims (`harness.boundaries`), one shared
// run (suites/support/content-scenarios.ts) judged three ways:
//   canonical  AHP-CONTENT-001: body-view hooks get the scenario's content, canonical
//   selection  AHP-CONTENT-002: metadata/omit views hide text and bodies everywhere in the
//              frame, and edits from hidden views or of protected content do not apply
//   edits      AHP-EDIT-001: the receiver's marker holds what applyModifyResponse makes of
//              the answers under what the harness advertised, chained serially; after a
//              deny or a fail-closed stop, the observer and each interceptor not yet called
//              get the event as hooks/observe with the settled content
// The effective value is judged from the receiver's marker (the outside oracle), never
// from the adapter's report.
import { BOUNDARIES, contentCheckId, type Boundary } from '../../src/checks/boundaries.js';
import { canonicalListErrors, canonicalPartErrors } from '../../src/protocol/edit.js';
import { deepEqualJson, isObject } from '../../src/protocol/json.js';
import { ourSchemas } from '../../src/protocol/schema-set.js';
import { isWireValid, validate } from '../../src/protocol/validator.js';
import type { SnapshotId } from '../../src/protocol/snapshots.js';
import { check, test, type Judge } from '../support/check.js';
import {
  BODY_HOOKS,
  CONTENT_HOOKS,
  contentScenario,
  HIDDEN_HOOKS,
  HIDDEN_TOKEN,
  OBSERVER,
  stepMarks,
  viewOf,
  type ContentScenario,
} from '../support/content-scenarios.js';
import {
  advertised,
  advertisesModify,
  contentOf,
  expectations,
  partsOf,
  type StepExpectation,
} from '../support/content-oracle.js';
import {
  eventOf,
  eventType,
  frames,
  INTERCEPT,
  messageOf,
  OBSERVE,
  Phases,
  reportedAs,
  requireUsable,
  summary,
} from '../support/harness-observations.js';
import type { HarnessRun, HarnessSession } from '../support/harness-session.js';
import type { WireRecord } from '../../drivers/scripted-backend/script.js';

type Obj = Record<string, unknown>;

interface ContentRun {
  sc: ContentScenario;
  run: HarnessRun;
  exp: StepExpectation[];
}

/** The boundary's shared run, with the preconditions every content check shares. */
async function contentRun(
  harness: HarnessSession,
  judge: Judge,
  b: Boundary,
  snapshot: SnapshotId,
): Promise<ContentRun> {
  const sc = contentScenario(b, snapshot);
  const run = await harness.sharedRun({ label: sc.label, hooks: sc.hooks, steps: sc.steps });
  // The claim lists the boundary: the harness said it supports it, so "unsupported" fails.
  // The report is the adapter's: read it as untrusted (steps may be anything).
  const reported: unknown[] = Array.isArray(run.report?.steps) ? run.report.steps : [];
  const unsupported = sc.steps.filter((s) =>
    reported.some((r) => isObject(r) && r.id === s.id && r.outcome === 'unsupported'),
  );
  if (unsupported.length)
    judge.fail(
      `the adapter reports the ${b.step} steps as unsupported, although the claim lists ${b.event} in harness.boundaries`,
      { sent: { steps: sc.steps }, received: summary(run), expected: `every ${b.step} step runs` },
    );
  requireUsable(judge, run);
  return { sc, run, exp: expectations(run, sc, snapshot) };
}

/** A missing or unreadable marker of a step that should have been delivered. */
function markerProblem(run: HarnessRun, step: string): string | undefined {
  const m = run.effective[step];
  if (m === undefined)
    return `the receiver got nothing for step ${step} (no marker); ${reportedAs(run, step)}; no interceptor denies or fails in this step`;
  if (m.invalid !== undefined)
    return `the marker of step ${step} is not {"effective": ...}: ${m.invalid.slice(0, 200)}`;
  return undefined;
}

/** The frame of a hook for a step, or a phase failure saying it is missing. */
function frameOf(phases: Phases, e: StepExpectation, hook: string) {
  const turn = e.turns.find((t) => t.hook === hook)!;
  if (!turn.frame)
    phases.fail(
      `${e.step.id}`,
      `interceptor ${hook} (${viewOf(hook)} view, fail-open) received no hooks/intercept for this step (frames are matched to steps in order)`,
    );
  return turn;
}

interface Problem {
  message: string;
  evidence?: unknown;
}

const wireList = (findings: { layer: string; path: string; message: string }[]): string =>
  findings
    .filter((x) => x.layer === 'wire')
    .slice(0, 4)
    .map((x) => `${x.path || '/'} ${x.message}`)
    .join('; ');

/**
 * What is wrong with the form of a body-view frame (AHP-CONTENT-001): the intercept against
 * the claim's snapshot, the content at the boundary path canonical (messages or text parts;
 * elicitation: one body text part whose text parses and validates against the pinned MCP
 * contract, mode and action agreeing with the envelope). The canonical check reports these;
 * the edits check reads a value only from a frame without them.
 */
function formProblems(
  b: Boundary,
  f: WireRecord,
  e: StepExpectation,
  snapshot: SnapshotId,
  kind: 'intercept-request' | 'observe-notification' = 'intercept-request',
): Problem[] {
  const problems: Problem[] = [];
  const schemas = ourSchemas(snapshot);
  const findings = validate(kind, messageOf(f), { wireOnly: true, snapshot });
  if (!isWireValid(findings))
    problems.push({
      message: `the ${kind === 'intercept-request' ? 'hooks/intercept' : 'hooks/observe'} is not valid: ${wireList(findings)}`,
      evidence: { received: f.text },
    });
  const { raw, value, parseError } = contentOf(b, f);
  if (b.family === 'messages' || b.family === 'text-parts') {
    const errors = canonicalListErrors(raw, b.family, schemas);
    if (errors.length)
      problems.push({
        message: `${b.path} is not a canonical ${b.family === 'messages' ? 'message' : 'text-part'} list: ${errors.slice(0, 4).join('; ')}`,
        evidence: { received: raw },
      });
    if (b.messageRole && Array.isArray(raw))
      for (const m of raw)
        if (isObject(m) && m.role !== b.messageRole)
          problems.push({
            message: `message ${JSON.stringify(m.id)} has role ${JSON.stringify(m.role)}, not ${b.messageRole}`,
          });
  } else if (b.family === 'mcp-request' || b.family === 'mcp-result') {
    const errors = canonicalPartErrors(raw, true, schemas);
    if (errors.length || !isObject(raw) || raw.selection !== 'body')
      problems.push({
        message: `${b.path} is not one body-selected text part: ${errors.slice(0, 4).join('; ') || JSON.stringify(raw)}`,
        evidence: { received: raw },
      });
    else if (parseError !== undefined)
      problems.push({ message: `the text of ${b.path} is not JSON: ${parseError}`, evidence: { received: raw } });
    else {
      const kind = b.family === 'mcp-request' ? 'mcp-elicitation-request' : 'mcp-elicitation-result';
      const mcp = validate(kind, value, { wireOnly: true, snapshot });
      if (!isWireValid(mcp))
        problems.push({
          message: `the parsed ${b.path} fails the pinned MCP contract: ${wireList(mcp)}`,
          evidence: { received: value },
        });
    }
    const env = eventOf(f)?.elicitation;
    const original = (e.step.content.elicitation ?? {}) as Obj;
    if (!isObject(env) || env.mode !== original.mode || env.server !== original.server)
      problems.push({
        message: `elicitation.mode/server do not agree with the step (${JSON.stringify(original.mode)}, ${JSON.stringify(original.server)})`,
        evidence: { received: env },
      });
    if (b.family === 'mcp-result' && isObject(env)) {
      const action = isObject(value) ? value.action : undefined;
      if (env.action !== original.action || (action !== undefined && action !== env.action))
        problems.push({
          message: `elicitation.action ${JSON.stringify(env.action)} and the result's action ${JSON.stringify(action)} do not agree with the step's ${JSON.stringify(original.action)}`,
        });
    }
  }
  return problems;
}

const tokensIn = (value: unknown): string[] => [...new Set(JSON.stringify(value ?? null).match(HIDDEN_TOKEN) ?? [])];

/** Frames of the boundary event a hook got by `method` that belong to a step (by its marks: any order, any view). */
const stepFrames = (run: HarnessRun, b: Boundary, hook: string, method: string, step: string): WireRecord[] =>
  frames(run, { hook, method }).filter(
    (f) => eventType(f) === b.event && stepMarks(step).some((m) => (f.text ?? '').includes(m)),
  );

/**
 * What is wrong with a frame a metadata or omit hook got (AHP-CONTENT-002): a part that is
 * not its view, or hidden text (`hidden`: the tokens that must not appear) in the frame.
 */
function hiddenViewProblems(b: Boundary, f: WireRecord, hook: string, hidden: readonly string[]): Problem[] {
  const problems: Problem[] = [];
  const { raw } = contentOf(b, f);
  const parts =
    b.family === 'mcp-request' || b.family === 'mcp-result' ? [raw] : b.family === 'workspace' ? [] : partsOf(raw);
  for (const p of parts) {
    if (!isObject(p)) {
      problems.push({ message: `a part at ${b.path} is not an object`, evidence: { received: raw } });
      continue;
    }
    if ('text' in p || 'body' in p || p.selection !== viewOf(hook))
      problems.push({
        message: `part ${JSON.stringify(p.id)} is not a ${viewOf(hook)} view: it carries ${['text', 'body'].filter((k) => k in p).join(' and ') || `selection ${JSON.stringify(p.selection)}`}`,
        evidence: {
          received: p,
          expected: `{id, kind, mediaType, selection: "${viewOf(hook)}"${viewOf(hook) === 'metadata' ? '[, size, sha256]' : ''}}, neither text nor body`,
        },
      });
  }
  const leaked = hidden.filter((t) => (f.text ?? '').includes(t));
  if (leaked.length)
    problems.push({
      message: `hidden content appears in the frame: ${leaked.join(', ')}`,
      evidence: { received: f.text },
    });
  return problems;
}

/**
 * A body-view observation of a step whose content is not the settled value `want` (the
 * target after the accepted responses; the request itself where there is no target). A
 * frame whose form is broken is the canonical check's finding: nothing is read from it.
 */
function observedProblem(b: Boundary, f: WireRecord, e: StepExpectation, snapshot: SnapshotId): Problem | undefined {
  if (formProblems(b, f, e, snapshot, 'observe-notification').length) return undefined;
  const { value } = contentOf(b, f);
  const observed = b.family === 'mcp-result' && isObject(value) ? value.content : value;
  const want = b.target ? e.target : e.step.original;
  if (deepEqualJson(observed, want)) return undefined;
  return {
    message: 'was not sent the content as the chain settled it',
    evidence: { received: observed, expected: want },
  };
}

/**
 * After a deny or a fail-closed stop (c7, c8; spec-events 9, observation disposition): the
 * observer gets the event; an interceptor already called gets no second copy (AHP-REG-002
 * allows no other dispatch). Each interceptor not yet called may get it as hooks/observe in
 * its own view: AHP-REG-002 states it as a best-effort exception and our digest's chain check
 * (spec-core, tool interception) as "may", so its absence is noted, never failed; what it
 * carries is judged like the observer's. Who was called is
 * read from the frames, not assumed: whether a chain stops at all is the tool-interception
 * checks' rule (ti.deny-stops, ti.failure-policy), so a harness that went on calling is
 * judged here only on who observed. Body views carry the settled content (a discarded
 * response's edit never shows).
 */
function judgeStop(
  phases: Phases,
  run: HarnessRun,
  b: Boundary,
  e: StepExpectation,
  snapshot: SnapshotId,
  unobserved: string[],
): void {
  const { at, by } = e.step.stops!;
  const step = e.step.id;
  for (const { name, view } of CONTENT_HOOKS) {
    const called = stepFrames(run, b, name, INTERCEPT, step).length > 0;
    const seen = stepFrames(run, b, name, OBSERVE, step);
    if (called && seen.length)
      phases.fail(
        step,
        `interceptor ${name} was called for this step and then sent the event again as hooks/observe (an interceptor already called gets no second copy)`,
        { received: seen.map((f) => f.text) },
      );
    else if (!called && !seen.length)
      unobserved.push(
        `${step}: ${name} (left uncalled by ${by === 'deny' ? 'a deny' : 'a fail-closed failure'} at ${at})`,
      );
    if (view !== 'body') continue; // hidden views of these observations: the selection check
    for (const f of seen) {
      const p = observedProblem(b, f, e, snapshot);
      if (p) phases.fail(step, `interceptor ${name}'s observation ${p.message}`, p.evidence);
    }
  }
  const observed = stepFrames(run, b, OBSERVER, OBSERVE, step);
  if (observed.length === 0)
    phases.fail(
      step,
      `observer ${OBSERVER} got no hooks/observe of ${b.event} for this step (the chain stopped at ${at})`,
    );
  for (const f of observed) {
    const p = observedProblem(b, f, e, snapshot);
    if (p) phases.fail(step, `observer ${OBSERVER} ${p.message}`, p.evidence);
  }
}

test.describe('content (harness)', () => {
  for (const b of BOUNDARIES) {
    // A boundary's three checks read one shared adapter run (contentRun): in order in one
    // worker (mode 'default', even under fullyParallel), the run is made once per target
    // instead of once per check; the boundaries still spread over the workers.
    test.describe(b.event, () => {
      test.describe.configure({ mode: 'default' });
      test(
        ...check(contentCheckId(b, 'canonical'), async ({ harness, judge, spec, snapshot }) => {
          const { run, exp } = await contentRun(harness, judge, b, snapshot);
          const phases = new Phases();
          for (const e of exp) {
            for (const hook of BODY_HOOKS) {
              const turn = frameOf(phases, e, hook);
              const f = turn.frame;
              if (!f) continue;
              const where = `${e.step.id}, interceptor ${hook}`;
              for (const p of formProblems(b, f, e, snapshot)) phases.fail(where, p.message, p.evidence);
              const { value } = contentOf(b, f);
              // The first interceptor gets the step's content as given; the second the chain's value (edits check).
              const want = hook === 'a' ? e.step.original : undefined;
              // Frames are matched to steps in order; where ids are visible, the first names its step.
              const first = (Array.isArray(value) && isObject(value[0]) ? value[0].id : undefined) as unknown;
              if (typeof first === 'string' && !first.startsWith(`${e.step.id}.`))
                phases.fail(
                  where,
                  `intercept ${e.step.id.split('.').pop()} of this hook carries content of another step (first id ${JSON.stringify(first)}): the steps' events did not come in scenario order`,
                  { received: value },
                );
              else if (want !== undefined && !deepEqualJson(value, want))
                phases.fail(where, `${b.path} is not the step's content (ids, roles, order and text as given)`, {
                  received: value,
                  expected: want,
                });
            }
          }
          phases.judge(judge, spec.expectation, summary(run));
          judge.evidence({
            sent: exp.map((e) => ({ step: e.step.id, content: e.step.content })),
            expected: spec.expectation,
          });
          judge.note(
            `${exp.length} steps: both body-view interceptors got canonical content at ${b.path}, the first exactly the step's content`,
          );
        }),
      );

      test(
        ...check(contentCheckId(b, 'selection'), async ({ harness, judge, spec, snapshot }) => {
          const { run, exp } = await contentRun(harness, judge, b, snapshot);
          const phases = new Phases();
          for (const e of exp) {
            for (const hook of HIDDEN_HOOKS) {
              const where = `${e.step.id}, interceptor ${hook} (${viewOf(hook)} view)`;
              // The hidden texts (and attachment references) appear nowhere in a frame.
              const hiddenIn = (value: unknown): string[] =>
                b.family === 'workspace' ? [] : tokensIn(b.family === 'mcp-request' ? e.step.original : value);
              // Observations after a deny or fail-closed stop (c7, c8) take the hook's view too.
              for (const f of stepFrames(run, b, hook, OBSERVE, e.step.id))
                for (const p of hiddenViewProblems(b, f, hook, hiddenIn(e.target)))
                  phases.fail(`${where}, hooks/observe`, p.message, p.evidence);
              // The chain stops before m and o in c7 and c8: they get no intercept there.
              if (e.step.stops) continue;
              const turn = frameOf(phases, e, hook);
              const f = turn.frame;
              if (!f) continue;
              for (const p of hiddenViewProblems(b, f, hook, hiddenIn(turn.before)))
                phases.fail(where, p.message, p.evidence);
            }
          }
          // Edits from hidden views and of protected content do not reach the receiver.
          const judged = exp.filter((e) => e.step.judgedBy === 'selection');
          for (const e of judged) {
            const problem = markerProblem(run, e.step.id);
            if (problem) phases.fail(e.step.id, problem);
            else if (!deepEqualJson(run.effective[e.step.id]!.effective, e.effective))
              phases.fail(e.step.id, `the receiver did not get the value the rejections leave (${e.step.purpose})`, {
                sent: e.turns
                  .filter((t) => t.effects.length)
                  .map((t) => ({
                    hook: t.hook,
                    view: viewOf(t.hook),
                    effects: t.effects,
                    ruling: t.rejected ?? 'accepted',
                  })),
                received: run.effective[e.step.id]!.effective,
                expected: e.effective,
              });
          }
          phases.judge(judge, spec.expectation, summary(run));
          judge.evidence({ expected: spec.expectation });
          judge.note(
            `${exp.length} steps: the metadata and omit views hid text and bodies, and ${judged.length} steps with hidden-view or protected edits left the value as expected`,
          );
        }),
      );

      test(
        ...check(contentCheckId(b, 'edits'), async ({ harness, judge, spec, snapshot }) => {
          const { run, exp } = await contentRun(harness, judge, b, snapshot);
          const phases = new Phases();
          const unobserved: string[] = [];
          for (const e of exp) {
            for (const hook of BODY_HOOKS) {
              const turn = frameOf(phases, e, hook);
              const f = turn.frame;
              if (!f) continue;
              const where = `${e.step.id}, interceptor ${hook}`;
              const caps = messageOf(f)?.params;
              if (b.target) {
                const ops = advertised(f, b.target);
                if (ops.length < 2)
                  phases.fail(
                    where,
                    `the intercept does not advertise modify of ${b.target} with replace and merge, although the claim says the harness applies them`,
                    {
                      received: isObject(caps) ? caps.capabilities : undefined,
                      expected: { effects: ['modify'], modify: { [b.target]: { replace: true, merge: true } } },
                    },
                  );
              } else if (advertisesModify(f))
                phases.fail(where, `${b.event} advertises modify, but allows no request modification`, {
                  received: isObject(caps) ? caps.capabilities : undefined,
                });
              // Serial chaining: each body-view interceptor is sent the value as the ones before it left it.
              // A frame whose form is broken is the canonical check's finding; no value is read from it.
              if (formProblems(b, f, e, snapshot).length) continue;
              const { value } = contentOf(b, f);
              const shown = b.family === 'mcp-result' && isObject(value) ? value.content : value;
              const before = b.target ? turn.before : e.step.original;
              if (!deepEqualJson(shown, before))
                phases.fail(where, `the interceptor was not sent the value the earlier responses left`, {
                  received: shown,
                  expected: before,
                });
            }
            // Markers of hidden-view and protected-content steps are the selection check's.
            if (e.step.judgedBy !== 'edits') continue;
            if (e.step.stops) {
              judgeStop(phases, run, b, e, snapshot, unobserved);
              continue;
            }
            const problem = markerProblem(run, e.step.id);
            if (problem) {
              phases.fail(e.step.id, problem);
              continue;
            }
            // The observer gets the effective content after the chain (its observation names the step's ids).
            const seen = stepFrames(run, b, OBSERVER, OBSERVE, e.step.id);
            if (seen.length === 0)
              phases.fail(e.step.id, `observer ${OBSERVER} got no hooks/observe of ${b.event} for this step`);
            for (const f of seen) {
              const p = observedProblem(b, f, e, snapshot);
              if (p) phases.fail(e.step.id, `observer ${OBSERVER} ${p.message}`, p.evidence);
            }
            const got = run.effective[e.step.id]!.effective;
            if (!deepEqualJson(got, e.effective))
              phases.fail(e.step.id, `the ${b.receiver} sentinel did not get the effective value (${e.step.purpose})`, {
                sent: e.turns
                  .filter((t) => t.effects.length)
                  .map((t) => ({
                    hook: t.hook,
                    effects: t.effects,
                    ruling: t.rejected ?? (t.frame ? 'accepted' : 'not asked'),
                  })),
                received: got,
                expected: e.effective,
              });
          }
          phases.judge(judge, spec.expectation, summary(run));
          judge.evidence({
            sent: exp.map((e) => ({ step: e.step.id, purpose: e.step.purpose, answers: e.step.answers })),
            expected: JSON.stringify(exp.map((e) => ({ step: e.step.id, effective: e.effective }))),
          });
          const stops = exp.filter((e) => e.step.stops).length;
          judge.note(
            `${exp.length} steps: the ${b.receiver} sentinel got the chained result of the answers every time; after the ${stops} stopped chains the observer observed the settled event and no interceptor already called got a second copy`,
          );
          // Allowed, best effort (AHP-REG-002's exception): noted where the harness did not send it.
          if (unobserved.length)
            judge.note(
              `interceptors left uncalled by a stopped chain that got no hooks/observe of it (allowed: best effort): ${unobserved.join('; ')}`,
            );
        }),
      );
    });
  }
});
