// Scenarios several harness checks judge from the same run (HarnessSession.sharedRun): one
// adapter run per target instead of one per check.
import { intercept, observe, tool, type HookPlan, type StepPlan } from './harness-session.js';

/**
 * A session with one interceptor and one observer of every lifecycle event, two tool calls
 * (one input holds a newline, which must stay escaped on the wire).
 */
export function typicalSession(): { label: string; hooks: HookPlan[]; steps: StepPlan[] } {
  return {
    label: 'typical session',
    hooks: [
      { name: 'a', subscriptions: [intercept(['tool.before'])] },
      { name: 'obs', subscriptions: [observe(['session.start', 'tool.before', 'tool.after', 'session.end'])] },
    ],
    steps: [
      { kind: 'session.start' },
      tool('t1', { path: 'notes.txt', text: 'two\nlines' }),
      tool('t2', { n: 2 }),
      { kind: 'session.end' },
    ],
  };
}

export const TYPICAL_TOOL_STEPS = ['t1', 't2'];
