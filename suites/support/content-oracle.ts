// What a content run should have produced, computed from what the harness really did: for
// each step, the frame each interceptor got (n-th intercept of the boundary event = n-th
// step, contract version 2 "Matching frames to steps"), the edit context the harness
// resolved for it (what that frame ADVERTISED and the hook's view), and the effective value
// our applyModifyResponse makes of the scripted answers, chained serially in registration
// order with fail-open rejections keeping the value. Nothing here judges; the checks
// (suites/harness/content.spec.ts) compare.
import type { WireRecord } from '../../drivers/scripted-backend/script.js';
import type { Boundary } from '../../src/checks/boundaries.js';
import { applyModifyResponse, EditRejected, type EditContext } from '../../src/protocol/edit.js';
import { isObject } from '../../src/protocol/json.js';
import { ourSchemas } from '../../src/protocol/schema-set.js';
import type { SnapshotId } from '../../src/protocol/snapshots.js';
import {
  CONTENT_HOOKS,
  viewOf,
  type ContentHook,
  type ContentScenario,
  type ContentStepInfo,
} from './content-scenarios.js';
import type { HarnessRun } from './harness-session.js';
import { eventOf, eventType, frames, INTERCEPT, paramsOf } from './harness-observations.js';

type Obj = Record<string, unknown>;

/** The value at a dotted path of an object (undefined where it stops). */
export function at(value: unknown, path: string): unknown {
  let v: unknown = value;
  for (const k of path.split('.')) {
    if (!isObject(v)) return undefined;
    v = v[k];
  }
  return v;
}

/** The hooks/intercept frames of the boundary event a hook received, in arrival order. */
export function boundaryFrames(run: HarnessRun, b: Boundary, hook: string): WireRecord[] {
  return frames(run, { hook, method: INTERCEPT }).filter((f) => eventType(f) === b.event);
}

/** The value a frame carries at the boundary path; elicitation text parts are parsed (undefined if not JSON). */
export function contentOf(b: Boundary, f: WireRecord): { raw: unknown; value: unknown; parseError?: string } {
  const raw = at(eventOf(f), b.path);
  if (b.family !== 'mcp-request' && b.family !== 'mcp-result') return { raw, value: raw };
  if (!isObject(raw) || typeof raw.text !== 'string') return { raw, value: undefined };
  try {
    return { raw, value: JSON.parse(raw.text) as unknown };
  } catch (e) {
    return { raw, value: undefined, parseError: (e as Error).message };
  }
}

/** The modify operations a frame advertises for a target (capabilities.modify[target]). */
export function advertised(f: WireRecord | undefined, target: string | undefined): ('replace' | 'merge')[] {
  const caps = f ? paramsOf(f)?.capabilities : undefined;
  if (!target || !isObject(caps) || !Array.isArray(caps.effects) || !caps.effects.includes('modify')) return [];
  const t = isObject(caps.modify) ? caps.modify[target] : undefined;
  if (!isObject(t)) return [];
  return (['replace', 'merge'] as const).filter((op) => t[op] === true);
}

/** Does a frame advertise the modify effect at all? */
export function advertisesModify(f: WireRecord | undefined): boolean {
  const caps = f ? paramsOf(f)?.capabilities : undefined;
  return isObject(caps) && Array.isArray(caps.effects) && caps.effects.includes('modify');
}

export interface HookTurn {
  hook: ContentHook;
  frame?: WireRecord;
  /** The value of the target before this hook's response (what a body view must show). */
  before: unknown;
  effects: unknown[];
  context?: EditContext;
  /** Accepted: the value after; rejected: the rule and message. */
  accepted?: unknown;
  rejected?: string;
  /** The hook answered a deny: the chain ends here, the value as it is. */
  denied?: boolean;
}

export interface StepExpectation {
  step: ContentStepInfo;
  turns: HookTurn[];
  /** The target value after the chain. */
  target: unknown;
  /** What the receiver's marker must hold (elicitation result: the whole result object). */
  effective: unknown;
}

/** The target's current value at the start of a step. */
const startValue = (b: Boundary, s: ContentStepInfo): unknown =>
  b.family === 'mcp-result' ? (s.original as Obj).content : s.original;

/**
 * The expected chain of every step. A hook that got no frame for a step does not act (its
 * answer was never asked for); the checks say so separately.
 */
export function expectations(run: HarnessRun, sc: ContentScenario, snapshot: SnapshotId): StepExpectation[] {
  const b = sc.boundary;
  const schemas = ourSchemas(snapshot);
  const byHook = new Map(CONTENT_HOOKS.map(({ name }) => [name, boundaryFrames(run, b, name)]));
  return sc.info.map((s, i) => {
    let value = startValue(b, s);
    let ended = false;
    const turns: HookTurn[] = [];
    for (const { name } of CONTENT_HOOKS) {
      const frame = byHook.get(name)![i];
      const turn: HookTurn = { hook: name, frame, before: value, effects: s.answers[name] };
      turns.push(turn);
      if (ended || !frame || s.answers[name].length === 0) continue;
      // A deny (c8) ends the chain with the value as it is; the later hooks' answers are never asked for.
      if (s.answers[name].some((x) => isObject(x) && x.type === 'deny')) {
        turn.denied = true;
        ended = true;
        continue;
      }
      const target = b.target ?? 'content';
      const context: EditContext = {
        capabilities: advertised(frame, b.target).map((op) => [target, op] as const),
        selection: { [target]: viewOf(name) },
        readable: [target],
        writable: [target],
        authorizedAttachments: attachmentsOf(value),
        event: b.event,
        elicitationMode: 'form',
        elicitationAction: b.family === 'mcp-result' ? String((s.original as Obj).action) : '',
        schemas,
      };
      turn.context = context;
      try {
        value = applyModifyResponse({ [target]: value }, s.answers[name], context)[target];
        turn.accepted = value;
      } catch (e) {
        if (!(e instanceof EditRejected)) throw e;
        // Fail-open: the value goes on unchanged.
        turn.rejected = e.message;
      }
    }
    const effective =
      b.family === 'mcp-result' ? { ...(s.original as Obj), content: value } : b.target ? value : s.original;
    return { step: s, turns, target: value, effective };
  });
}

/** The attachment parts of a message list (the descriptors a hook may resubmit unchanged). */
function attachmentsOf(value: unknown): unknown[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((m) =>
    isObject(m) && Array.isArray(m.parts) ? m.parts.filter((p) => isObject(p) && p.kind === 'attachment') : [],
  );
}

/** Every part of a message list or text-part list (the view a hook got). */
export function partsOf(value: unknown): unknown[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((x) => (isObject(x) && Array.isArray(x.parts) ? (x.parts as unknown[]) : [x]));
}
