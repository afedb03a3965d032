// The content scenarios of the harness role (issue 14; adapter contract version 2,
// docs/harness-adapter.md "Content steps"): per boundary of src/checks/boundaries.ts, ONE
// run that the boundary's three checks share (canonical, selection, edits). Five
// interceptors in registration order: `a` and `b` see the body (fail-open), `z` the body
// (fail-closed; it answers nothing until c7), `m` a metadata view and `o` an omit view
// (fail-open); an observer `w`. Steps, each answered by ordinal (the n-th intercept of a
// hook belongs to the n-th step it is called for):
//   c1 chain       a: a valid replace, b: a valid merge (b is sent the value as a edited it)
//   c2 atomic      a: a valid merge, b: a valid merge then an invalid effect (b's response
//                  is rejected whole; a's stays: a later fail-open rejection undoes nothing)
//   c3 hidden      m and o answer edits from their hidden views (must not apply)
//   c4 protected   attachment-byte edit and unauthorized reference (messages), or what the
//                  family protects, beside a valid edit
//   c5 kind        edits with a value of the other kind (object for a list target, list
//                  for an object target, messages for elicitation content)
//   c6 target      a: a valid edit of the boundary's target beside a modify naming a target
//                  the intercept did not advertise (spec-events 10.5: the whole response is
//                  rejected), b: a valid merge
//   c7 fail-closed z answers a rejected response (a valid edit, then an invalid one): the
//                  chain stops; m and o are not called
//   c8 deny        b denies (only where the event allows deny): z, m and o are not called
// The elicitation request (no target) has c1, c2, c7 and c8. c7 and c8 come last, so the
// hooks they leave uncalled keep their ordinals for the steps before. After c7 and c8 the
// observer gets the event as hooks/observe with the settled content, and each interceptor not
// yet called may (best effort, in its own view; observation disposition; the edits check).
// The answers are data; the expected effective values are never written here: the checks
// compute them with applyModifyResponse from these answers and what the harness really
// advertised (suites/support/content-oracle.ts).
//
// Every text the scenario authors carries a token `ahp-hidden-...`, so the selection check
// can search a hidden view's raw frame for any of them, whatever the JSON escaping.
import type { Answer } from '../../drivers/scripted-backend/script.js';
import type { Boundary, BoundaryFamily } from '../../src/checks/boundaries.js';
import { eventSpec, type ModifyTarget } from '../../src/protocol/catalogue.js';
import type { SelectionView } from '../../src/protocol/edit.js';
import type { SnapshotId } from '../../src/protocol/snapshots.js';
import { isWireValid, validate } from '../../src/protocol/validator.js';
import { intercept, observe, SENTINEL_TOOL, type ContentStepPlan, type HookPlan } from './harness-session.js';

type Obj = Record<string, unknown>;

/** The interceptors of a content run, in registration order, the view each subscribes with and its failure policy. */
export const CONTENT_HOOKS = [
  { name: 'a', view: 'body', failurePolicy: 'fail-open' },
  { name: 'b', view: 'body', failurePolicy: 'fail-open' },
  { name: 'z', view: 'body', failurePolicy: 'fail-closed' },
  { name: 'm', view: 'metadata', failurePolicy: 'fail-open' },
  { name: 'o', view: 'omit', failurePolicy: 'fail-open' },
] as const satisfies readonly { name: string; view: SelectionView; failurePolicy: 'fail-open' | 'fail-closed' }[];
export type ContentHook = (typeof CONTENT_HOOKS)[number]['name'];
/** The body-view interceptors whose frames the canonical and edits checks judge (z only ends chains). */
export const BODY_HOOKS: readonly ContentHook[] = ['a', 'b'];
export const HIDDEN_HOOKS: readonly ContentHook[] = ['m', 'o'];
/** The observer of the boundary event (body view): it gets the effective content after the chain. */
export const OBSERVER = 'w';
export const viewOf = (hook: string): SelectionView => CONTENT_HOOKS.find((h) => h.name === hook)?.view ?? 'body';

export const HIDDEN_TOKEN = /ahp-hidden-[A-Za-z0-9-]+/g;

export interface ContentStepInfo {
  id: string;
  /** What the step exercises, for messages. */
  purpose: string;
  /** The content the step hands the harness (the members of the contract step). */
  content: Obj;
  /** The value at the boundary path as a body-view hook first in the chain must get it (elicitation: the parsed MCP object). */
  original: unknown;
  /** Each hook's answer (effects) to this step's intercept. */
  answers: Record<ContentHook, unknown[]>;
  /**
   * The check that judges this step's marker: `edits` (chaining, atomicity, value kinds:
   * AHP-EDIT-001) or `selection` (hidden views and protected attachments: AHP-CONTENT-002),
   * so a harness that breaks one rule fails that rule's check only.
   */
  judgedBy: 'edits' | 'selection';
  /** Where a conforming chain stops (c7: z fails under fail-closed; c8: b denies); the rest are not called. */
  stops?: { at: ContentHook; by: 'fail-closed' | 'deny' };
}

export interface ContentScenario {
  boundary: Boundary;
  label: string;
  hooks: HookPlan[];
  steps: ContentStepPlan[];
  info: ContentStepInfo[];
}

const SERVER = 'ahp-sentinel-mcp';
const MODEL = { provider: 'ahp-sentinel', id: 'sentinel-model' };
/** The steps of a boundary (see the head of the file): c8 only where the event allows deny. */
function stepNames(b: Boundary): string[] {
  const edits = b.target ? ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'] : ['c1', 'c2'];
  return [...edits, 'c7', ...(eventSpec(b.event)?.effects.includes('deny') ? ['c8'] : [])];
}
const token = (step: string, what: string): string => `ahp-hidden-${step.replace(/\./g, '-')}-${what}`;
/**
 * What marks a frame as one of a step's whatever the family: its message and part ids
 * (`<step>.`), its texts' tokens, its workspace paths (`/<step>/`). Observations are
 * matched to steps by these, since notifications may arrive in any order.
 */
export const stepMarks = (step: string): string[] => [`"${step}.`, token(step, ''), `/${step}/`];

const text = (id: string, t: string): Obj => ({
  id,
  kind: 'text',
  mediaType: 'text/plain',
  selection: 'body',
  text: t,
});
const attachment = (id: string, ref: string): Obj => ({
  id,
  kind: 'attachment',
  mediaType: 'image/png',
  selection: 'body',
  body: { ref },
});

function messageRole(b: Boundary): string {
  if (b.messageRole) return b.messageRole;
  if (b.event === 'model.response.after') return 'assistant';
  if (b.event === 'tool.after') return 'tool';
  return 'user';
}

/** A canonical message list of a step: two text parts around an attachment reference. */
function messages(b: Boundary, step: string): Obj[] {
  return [
    {
      id: `${step}.m1`,
      role: messageRole(b),
      parts: [
        text(`${step}.p1`, `First text of ${step}: ${token(step, 'p1')}`),
        attachment(`${step}.p2`, token(step, 'ref2')),
        text(`${step}.p3`, `Second text of ${step}: ${token(step, 'p3')}`),
      ],
    },
  ];
}

const textParts = (step: string): Obj[] => [
  text(`${step}.p1`, `First instruction of ${step}: ${token(step, 'p1')}`),
  text(`${step}.p2`, `Second instruction of ${step}: ${token(step, 'p2')}`),
];

const modify = (target: string, operation: 'replace' | 'merge', value: unknown): Obj => ({
  type: 'modify',
  target,
  operation,
  value,
});

/** One more message (or part) of a hook's edit, with an id of its own. */
const extraMessage = (b: Boundary, step: string, who: string): Obj => ({
  id: `${step}.${who}`,
  role: messageRole(b),
  parts: [text(`${step}.${who}.p1`, `Added by ${who}: ${token(step, who)}`)],
});

/** The answers of the five steps for a list or object family (see the head of the file). */
function answersFor(
  b: Boundary,
  family: BoundaryFamily,
  step: string,
  index: number,
  original: unknown,
  snapshot: SnapshotId,
): Record<ContentHook, unknown[]> {
  const none = { a: [], b: [], z: [], m: [], o: [] } as Record<ContentHook, unknown[]>;
  const t = b.target;
  if (!t) {
    // user.elicitation.request: no request modification; any modify answered must not apply.
    const value = [extraMessage(b, step, 'x')];
    return index === 0
      ? { ...none, a: [modify('content', 'replace', value)], m: [modify('content', 'merge', value)] }
      : none;
  }
  if (family === 'messages') {
    const list = original as Obj[];
    const m1 = list[0]!;
    const parts = m1.parts as Obj[];
    const extra = (who: string): Obj[] => [extraMessage(b, step, who)];
    switch (index) {
      case 0: {
        // Edited text, the attachment kept unchanged (authorized), parts reordered.
        const edited = { ...m1, parts: [parts[2], parts[1], text(`${step}.p1`, `Edited by a: ${token(step, 'a')}`)] };
        return { ...none, a: [modify(t, 'replace', [edited])], b: [modify(t, 'merge', extra('b'))] };
      }
      case 1:
        return {
          ...none,
          a: [modify(t, 'merge', extra('a'))],
          b: [modify(t, 'merge', extra('b')), modify(t, 'merge', { text: `not a message list ${token(step, 'bad')}` })],
        };
      case 2:
        return { ...none, m: [modify(t, 'merge', extra('m'))], o: [modify(t, 'replace', extra('o'))] };
      case 3: {
        // Attachment bytes edited in place (same id, other reference), and an unauthorized reference.
        const bytes = { ...m1, parts: [parts[0], attachment(`${step}.p2`, token(step, 'forged'))] };
        const foreign = { ...m1, parts: [...parts, attachment(`${step}.p9`, token(step, 'foreign'))] };
        return { ...none, a: [modify(t, 'replace', [bytes])], b: [modify(t, 'replace', [foreign])] };
      }
      default:
        // A bare part list and an object are not message lists.
        return { ...none, a: [modify(t, 'merge', [parts[0]])], b: [modify(t, 'replace', { id: `${step}.obj` })] };
    }
  }
  if (family === 'text-parts') {
    const parts = original as Obj[];
    const extra = (who: string): Obj[] => [text(`${step}.${who}`, `Added by ${who}: ${token(step, who)}`)];
    switch (index) {
      case 0:
        return {
          ...none,
          a: [modify(t, 'replace', [parts[1], text(`${step}.p1`, `Edited by a: ${token(step, 'a')}`)])],
          b: [modify(t, 'merge', extra('b'))],
        };
      case 1:
        return {
          ...none,
          a: [modify(t, 'merge', extra('a'))],
          b: [modify(t, 'merge', extra('b')), modify(t, 'merge', { bad: true })],
        };
      case 2:
        return { ...none, m: [modify(t, 'merge', extra('m'))], o: [modify(t, 'replace', extra('o'))] };
      case 3:
        // An attachment is no text part; a valid append beside it still applies.
        return {
          ...none,
          a: [modify(t, 'replace', [parts[0], attachment(`${step}.p9`, token(step, 'foreign'))])],
          b: [modify(t, 'merge', extra('b'))],
        };
      default:
        return {
          ...none,
          a: [modify(t, 'merge', messages(b, `${step}.x`))],
          b: [modify(t, 'replace', { id: `${step}.obj` })],
        };
    }
  }
  if (family === 'mcp-result') {
    switch (index) {
      case 0:
        return {
          ...none,
          a: [modify(t, 'replace', { name: `edited by a ${token(step, 'a')}`, count: 4, ok: true })],
          b: [modify(t, 'merge', { ok: false, note: `merged by b ${token(step, 'b')}` })],
        };
      case 1:
        return {
          ...none,
          a: [modify(t, 'merge', { note: `merged by a ${token(step, 'a')}` })],
          b: [modify(t, 'merge', { count: 9 }), modify(t, 'merge', { nested: { not: 'flat' } })],
        };
      case 2:
        return { ...none, m: [modify(t, 'merge', { count: 7 })], o: [modify(t, 'replace', { name: 'o' })] };
      case 3:
        return {
          ...none,
          a: [modify(t, 'replace', { nested: { not: 'flat' } })],
          b: [modify(t, 'merge', { count: 5 })],
        };
      default:
        return { ...none, a: [modify(t, 'replace', messages(b, `${step}.x`))], b: [modify(t, 'merge', [1, 2])] };
    }
  }
  // workspace: an object target; merge is shallow and keeps a literal null.
  switch (index) {
    case 0:
      return {
        ...none,
        a: [modify(t, 'replace', { cwd: `/ahp-sentinel/${step}/a`, workspaceRoots: [`/ahp-sentinel/${step}/a`] })],
        b: [nullMerge(snapshot, t, { cwd: `/ahp-sentinel/${step}/b` })],
      };
    case 1:
      return {
        ...none,
        a: [modify(t, 'merge', { cwd: `/ahp-sentinel/${step}/a` })],
        b: [modify(t, 'merge', { cwd: `/ahp-sentinel/${step}/b` }), modify(t, 'merge', ['not', 'an', 'object'])],
      };
    case 2:
      return { ...none, m: [modify(t, 'merge', { cwd: '/m' })], o: [modify(t, 'replace', { cwd: '/o' })] };
    case 3:
      return {
        ...none,
        a: [modify(t, 'replace', 'not an object')],
        b: [modify(t, 'merge', { workspaceRoots: [`/ahp-sentinel/${step}/b`] })],
      };
    default:
      return { ...none, a: [modify(t, 'merge', messages(b, `${step}.x`))], b: [modify(t, 'replace', [])] };
  }
}

/**
 * A shallow object merge that sets a key to a literal null (kept, not a deletion), where
 * the snapshot's effect schema admits a null there (draft@2b5da580); draft@1d98c19 types
 * every workspace key, so there the merge carries the other keys only.
 */
function nullMerge(snapshot: SnapshotId, target: string, rest: Obj): Obj {
  const withNull = modify(target, 'merge', { workspaceRoots: null, ...rest });
  return isWireValid(validate('effects', [withNull], { wireOnly: true, snapshot }))
    ? withNull
    : modify(target, 'merge', rest);
}

/**
 * A modify target the boundary's event does not have, so no intercept of it can advertise
 * it, with a value of the kind the boundary's own target takes: a harness that applies a
 * modify whatever target it names would apply it.
 */
function foreignTarget(b: Boundary, step: string): { target: ModifyTarget; value: unknown } {
  switch (b.family) {
    case 'messages':
      return { target: b.target === 'output' ? 'response' : 'output', value: [extraMessage(b, step, 't')] };
    case 'text-parts':
      return {
        target: b.target === 'instructions' ? 'summary' : 'instructions',
        value: [text(`${step}.t`, `Retargeted: ${token(step, 't')}`)],
      };
    case 'mcp-result':
      return { target: 'input', value: { name: `retargeted ${token(step, 't')}`, count: 2, ok: true } };
    default:
      return { target: 'input', value: { cwd: `/ahp-sentinel/${step}/t` } };
  }
}

/** c6 (see the head of the file): a's response names a target the intercept did not advertise. */
function targetAnswers(b: Boundary, step: string): Record<ContentHook, unknown[]> {
  const t = b.target!;
  const own: Record<BoundaryFamily, unknown> = {
    messages: [extraMessage(b, step, 'a')],
    'text-parts': [text(`${step}.a`, `Added by a: ${token(step, 'a')}`)],
    'mcp-result': { count: 6 },
    workspace: { cwd: `/ahp-sentinel/${step}/a` },
    'mcp-request': undefined,
  };
  const b2: Record<BoundaryFamily, unknown> = {
    ...own,
    messages: [extraMessage(b, step, 'b')],
    'text-parts': [text(`${step}.b`, `Added by b: ${token(step, 'b')}`)],
    'mcp-result': { ok: false },
    workspace: { workspaceRoots: [`/ahp-sentinel/${step}/b`] },
  };
  const foreign = foreignTarget(b, step);
  return {
    a: [modify(t, 'merge', own[b.family]), modify(foreign.target, 'replace', foreign.value)],
    b: [modify(t, 'merge', b2[b.family])],
    z: [],
    m: [],
    o: [],
  };
}

/** c7: z's response is rejected whole (a valid edit, then an invalid one); no target: an unadvertised modify. */
function failClosedAnswers(b: Boundary, step: string): Record<ContentHook, unknown[]> {
  const t = b.target;
  const none = { a: [], b: [], z: [], m: [], o: [] } as Record<ContentHook, unknown[]>;
  if (!t) return { ...none, z: [modify('content', 'replace', [extraMessage(b, step, 'z')])] };
  const z: Record<Exclude<BoundaryFamily, 'mcp-request'>, unknown[]> = {
    messages: [
      modify(t, 'merge', [extraMessage(b, step, 'z')]),
      modify(t, 'merge', { text: `not a message list ${token(step, 'bad')}` }),
    ],
    'text-parts': [
      modify(t, 'merge', [text(`${step}.z`, `Added by z: ${token(step, 'z')}`)]),
      modify(t, 'merge', { bad: true }),
    ],
    'mcp-result': [modify(t, 'merge', { count: 8 }), modify(t, 'merge', { nested: { not: 'flat' } })],
    workspace: [modify(t, 'merge', { cwd: `/ahp-sentinel/${step}/z` }), modify(t, 'merge', ['not', 'an', 'object'])],
  };
  return { ...none, z: z[b.family as Exclude<BoundaryFamily, 'mcp-request'>] };
}

/** c8: b denies. */
const denyAnswers = (): Record<ContentHook, unknown[]> => ({
  a: [],
  b: [{ type: 'deny', reason: 'denied by the ahp-conformance content scenario' }],
  z: [],
  m: [],
  o: [],
});

const PURPOSES = [
  'two accepted edits chain (b is sent the value as a edited it)',
  'a response with an invalid later effect is rejected whole; the earlier accepted response stays',
  'edits from the metadata and omit views are not applied',
  'edits of protected content (attachment bytes, unauthorized references, or values the target does not take) are not applied; a valid edit beside them is',
  'edits with a value of the wrong kind for the target are not applied',
  'a response with a modify of a target the intercept did not advertise is rejected whole; the next accepted response applies',
];
const STOP_PURPOSES = {
  c7: 'the fail-closed interceptor z fails: the chain stops; the observer (and, best effort, the interceptors not yet called: m, o) observe the event with the settled content',
  c8: 'b denies: the chain stops; the observer (and, best effort, the interceptors not yet called: z, m, o) observe the event with the settled content',
};

/** The content of a step (the contract's members for the step kind) and the value at the boundary path. */
function stepContent(b: Boundary, step: string): { content: Obj; original: unknown } {
  switch (b.step) {
    case 'user.message.inbound': {
      const list = messages(b, step);
      return { content: { message: { channel: 'ahp-sentinel', sender: 'ahp-user', messages: list } }, original: list };
    }
    case 'user.message.outbound': {
      const list = messages(b, step);
      return { content: { message: { channel: 'ahp-sentinel', messages: list } }, original: list };
    }
    case 'model.request':
    case 'model.response': {
      const list = messages(b, step);
      return { content: { model: MODEL, messages: list }, original: list };
    }
    case 'tool.output': {
      const list = messages(b, step);
      return { content: { tool: { name: SENTINEL_TOOL, input: { probe: step } }, output: list }, original: list };
    }
    case 'context.compact.before': {
      const parts = textParts(step);
      return {
        content: { items: messages({ ...b, messageRole: 'user' }, `${step}.items`), instructions: parts },
        original: parts,
      };
    }
    case 'context.compact.after': {
      const parts = textParts(step);
      return { content: { summary: parts, removed: [{ id: `${step}.gone` }] }, original: parts };
    }
    case 'user.elicitation.request': {
      const request = {
        message: `Please confirm ${token(step, 'message')}`,
        requestedSchema: {
          type: 'object',
          properties: { name: { type: 'string' }, count: { type: 'number' }, ok: { type: 'boolean' } },
          required: ['name'],
        },
      };
      return { content: { elicitation: { server: SERVER, mode: 'form', request } }, original: request };
    }
    case 'user.elicitation.result': {
      const result = { action: 'accept', content: { name: `answer ${token(step, 'name')}`, count: 3, ok: true } };
      return { content: { elicitation: { server: SERVER, mode: 'form', action: 'accept', result } }, original: result };
    }
    case 'workspace.change': {
      const change = { cwd: `/ahp-sentinel/${step}/cwd`, workspaceRoots: [`/ahp-sentinel/${step}/root`] };
      return {
        content: { workspace: { kind: 'switch', change, prior: { cwd: '/ahp-sentinel/prior' } } },
        original: change,
      };
    }
  }
}

/** The one run of a boundary that its three harness checks share. */
export function contentScenario(b: Boundary, snapshot: SnapshotId): ContentScenario {
  // The elicitation request has no target: two steps (a modify answered, then none) show it.
  const info: ContentStepInfo[] = stepNames(b).map((name, i) => {
    // Step ids carry the boundary so a frame of another run can never pass for one of this run.
    const id = `${b.slug}.${name}`;
    const { content, original } = stepContent(b, id);
    // The target's current value the answers are written against (elicitation: the answer content).
    const current = b.family === 'mcp-result' ? (original as Obj).content : original;
    const common = { id, content, original };
    if (name === 'c7' || name === 'c8')
      return {
        ...common,
        purpose: STOP_PURPOSES[name],
        answers: name === 'c7' ? failClosedAnswers(b, id) : denyAnswers(),
        judgedBy: 'edits',
        stops: name === 'c7' ? { at: 'z', by: 'fail-closed' } : { at: 'b', by: 'deny' },
      };
    if (name === 'c6') return { ...common, purpose: PURPOSES[5]!, answers: targetAnswers(b, id), judgedBy: 'edits' };
    return {
      ...common,
      purpose: b.target ? PURPOSES[i]! : i === 0 ? 'a modify answered at the request is not applied' : 'no effects',
      answers: answersFor(b, b.family, id, i, current, snapshot),
      // No target at the request: whatever view answered, not applying a modify is the edits rule.
      judgedBy: b.target && (i === 2 || i === 3) ? 'selection' : 'edits',
    };
  });
  const hooks: HookPlan[] = [
    ...CONTENT_HOOKS.map(({ name, view, failurePolicy }) => ({
      name,
      subscriptions: [intercept([b.event], { failurePolicy, content: { default: view } })],
      // By ordinal: the steps that stop before this hook come last, so they never shift its answers.
      script: { intercept: info.map((s): Answer => ({ effects: s.answers[name] })) },
    })),
    { name: OBSERVER, subscriptions: [observe([b.event])] },
  ];
  return {
    boundary: b,
    label: `content at ${b.label}: interceptors a, b (body), z (body, fail-closed), m (metadata), o (omit); observer w`,
    hooks,
    steps: info.map((s) => ({ kind: b.step, id: s.id, content: s.content })),
    info,
  };
}
