// Running the scenario: steps in order, a parallel step's tool calls at the same time.
// One tool call is: tool.before -> intercept chain -> host policy -> (sentinel) ->
// observations of the settled tool.before and of tool.after. AHP only ever restricts:
// a call the chain allows still needs the host's own yes (AHP-SEC-001, AHP-DEC-003).
import { runInterceptChain, SYNTHETIC_DENIAL_REASON } from './chain.js';
import type { HostPolicy, Step, ToolStep } from './config.js';
import { dispatchedTo } from './dispatch.js';
import {
  newCallId,
  newEventId,
  sessionEndEvent,
  sessionStartEvent,
  toolAfterEvent,
  toolBeforeEvent,
  withInput,
} from './events.js';
import type { StepReport } from './report.js';
import type { Run } from './run.js';
import { runSentinel } from './sentinel.js';
import { runContentStep } from './content.js';

/** observer-failure-denies fault: how long an awaited observation may take. */
const AWAITED_OBSERVATION_MS = 1000;
/** await-observers fault: observers are awaited as an SDK without a timeout would (bounded only by this). */
const AWAITED_OBSERVERS_CAP_MS = 30_000;

const HOST_REFUSAL: Record<Exclude<HostPolicy, 'allow'>, string> = {
  'ask-refuse': 'the user refused the call',
  deny: 'the host policy denies the call',
};

/** Run every step; returns the report lines of the tool and content steps, flattened in step order. */
export async function runScenario(run: Run, steps: readonly Step[]): Promise<StepReport[]> {
  const reports: StepReport[] = [];
  for (const step of steps) {
    switch (step.kind) {
      case 'session.start':
        run.observations.publish(sessionStartEvent(run.session, run.fault, run.authentication));
        break;
      case 'session.end':
        run.observations.publish(sessionEndEvent(run.session, step.outcome, run.fault));
        break;
      case 'tool':
        reports.push(await runTool(run, step));
        break;
      case 'parallel':
        reports.push(...(await Promise.all(step.steps.map((s) => runTool(run, s)))));
        break;
      case 'unsupported':
        reports.push({ id: step.id, outcome: 'unsupported', reason: `step kind "${step.declared}" is not supported` });
        break;
      default:
        // Content steps (contract version 2) run one at a time, in order.
        reports.push(await runContentStep(run, step));
        break;
    }
  }
  return reports;
}

async function runTool(run: Run, step: ToolStep): Promise<StepReport> {
  const { fault } = run;
  const ids = { eventId: newEventId(), callId: newCallId() };
  const requested = step.tool.input;
  const before = toolBeforeEvent(run.session, ids, step.tool, fault);

  let report: StepReport;
  let effectiveInput = requested;
  // The observer faults change nothing where no one observes tool.before.
  const observed = dispatchedTo(run, 'tool.before', 'observe').length > 0;
  if (
    observed &&
    fault.is('observer-failure-denies') &&
    !(await run.observations.publishAndWait(before, AWAITED_OBSERVATION_MS))
  ) {
    report = { id: step.id, outcome: 'denied-by-failure-policy', reason: SYNTHETIC_DENIAL_REASON };
  } else {
    const interceptors = dispatchedTo(run, 'tool.before', 'intercept');
    const chain = await runInterceptChain(run, before, interceptors, {
      advertiseNothing: step.host !== 'allow' && fault.is('no-deny-when-host-refuses'),
    });
    effectiveInput = chain.value;
    if (chain.verdict !== 'allowed') {
      report = { id: step.id, outcome: chain.verdict, ...(chain.reason !== undefined ? { reason: chain.reason } : {}) };
    } else if (step.host === 'allow' || (chain.called > 0 && chain.allNoEffect && fault.is('no-effect-grants'))) {
      report = { id: step.id, outcome: 'executed' };
    } else {
      report = { id: step.id, outcome: 'denied-by-host', reason: HOST_REFUSAL[step.host] };
    }
  }
  const executed = report.outcome === 'executed';

  // Observations after settlement carry the effective input (lo.effective-content).
  const observedInput = fault.pick('observe-original-input', effectiveInput, requested);
  if (observed && fault.is('await-observers'))
    await run.observations.publishAndWait(withInput(before, observedInput), AWAITED_OBSERVERS_CAP_MS);
  else if (!(observed && fault.is('observer-failure-denies')))
    run.observations.publish(withInput(before, observedInput));
  if (executed && step.tool.name === run.sentinelTool) {
    try {
      runSentinel(step.marker, effectiveInput);
    } catch (e) {
      run.audit(
        `${step.id}: the sentinel could not write its marker (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  }
  const tool = { name: step.tool.name, input: observedInput };
  run.observations.publish(toolAfterEvent(run.session, ids.callId, tool, executed ? 'executed' : 'denied', fault));
  return report;
}
