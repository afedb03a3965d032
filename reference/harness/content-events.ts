// The content boundaries of adapter contract version 2 (docs/harness-adapter.md, "Content
// steps"): for each content step kind, the boundary event the harness emits, the editable
// state behind it (`{<target>: value}`, the `current` of applyModifyResponse), the event
// built from that state in one hook's view, and the value the step's receiver records.
// Builders are pure (apart from fresh ids and the clock) and exported so the self-test can
// check each against the event schemas of both snapshots.
//
// Views (AHP-CONTENT-002): a subscription's `content.default` is the view it gets of every
// part; metadata and omit views carry neither `text` nor `body`, and the hidden text is put
// nowhere else in the event. Structured values (the MCP elicitation request and result)
// travel as ONE body text part holding their JSON text (seed, "Canonical content and edit
// checks"), which takes the view like any other part.
import { boundaryOf, type Boundary, type BoundaryEvent } from '../../src/checks/boundaries.js';
import { cloneJson, isObject, type JsonObject, type JsonValue } from '../../src/protocol/json.js';
import type { ContentStep, ContentStepKind, ScenarioSession } from './config.js';
import { envelope, newCallId, newEventId, type AhpEvent } from './events.js';

export { boundaryCapabilities } from './events.js';
import type { HarnessFault } from './faults.js';
import type { ContentView } from './registration.js';

/** The boundary event each content step kind emits (contract v2 table). */
export const STEP_EVENT: Record<ContentStepKind, BoundaryEvent> = {
  'user.message.inbound': 'user.message.inbound',
  'user.message.outbound': 'user.message.outbound',
  'model.request': 'model.request.before',
  'model.response': 'model.response.after',
  'tool.output': 'tool.after',
  'context.compact.before': 'context.compact.before',
  'context.compact.after': 'context.compact.after',
  'user.elicitation.request': 'user.elicitation.request',
  'user.elicitation.result': 'user.elicitation.result',
  'workspace.change': 'workspace.change.before',
};

/** The editable state of a boundary: its target's current value (none at user.elicitation.request). */
export type ContentState = Record<string, unknown>;

export interface ContentBoundary {
  readonly step: ContentStep;
  readonly boundary: Boundary;
  /** The state before any hook: `{<target>: value}` (elicitation request: `{request: object}`, not a target). */
  readonly initial: ContentState;
  /** The event of this boundary carrying `state`, as a hook with `view` is sent it. */
  event(state: ContentState, view: ContentView): AhpEvent;
  /** What the receiver records in the marker: the effective value. */
  effective(state: ContentState): JsonValue;
  /** user.elicitation.*: the MCP mode and action the edit engine needs. */
  readonly elicitation?: { readonly mode: string; readonly action: string };
}

export class ContentStepError extends Error {}
function need(cond: unknown, message: string): asserts cond {
  if (!cond) throw new ContentStepError(message);
}

// ------------------------------------------------------------------ views

type Part = Record<string, unknown>;

/** One part as a hook with `view` sees it: identity and type only unless the view is body. */
export function viewPart(part: Part, view: ContentView): Part {
  if (view === 'body') return cloneJson(part);
  return { id: part.id, kind: part.kind, mediaType: part.mediaType, selection: view };
}

export function viewParts(parts: readonly Part[], view: ContentView): Part[] {
  return parts.map((p) => viewPart(p, view));
}

export function viewMessages(messages: readonly Part[], view: ContentView): Part[] {
  return messages.map((m) => ({ ...cloneJson(m), parts: viewParts(m.parts as Part[], view) }));
}

// ------------------------------------------------------------------ the noncanonical-content fault

/** noncanonical-content fault: parts repeat their message's role (body views only). */
const rolesOnParts = (messages: Part[]): Part[] =>
  messages.map((m) => ({ ...m, parts: (m.parts as Part[]).map((p) => ({ ...p, role: m.role })) }));
/** noncanonical-content fault: text parts without mediaType. */
const withoutMediaType = (parts: Part[]): Part[] =>
  parts.map((p) => Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'mediaType')));

// ------------------------------------------------------------------ builders

const textPart = (id: string, text: string): Part => ({
  id,
  kind: 'text',
  mediaType: 'text/plain',
  selection: 'body',
  text,
});

const list = (v: unknown, where: string): Part[] => {
  need(Array.isArray(v) && v.every(isObject), `${where} must be a list of objects`);
  return v as Part[];
};
const obj = (v: unknown, where: string): Record<string, unknown> => {
  need(isObject(v), `${where} must be an object`);
  return v;
};
const str = (v: unknown, where: string): string => {
  need(typeof v === 'string' && v.length > 0, `${where} must be a non-empty string`);
  return v;
};

/**
 * The boundary of one content step. Throws ContentStepError when the step lacks what its
 * kind needs (the step is then reported unsupported with the reason).
 */
export function contentBoundary(step: ContentStep, session: ScenarioSession, fault: HarnessFault): ContentBoundary {
  const type = STEP_EVENT[step.kind];
  const boundary = boundaryOf(type)!;
  const target = boundary.target;
  const body = step.body;
  const where = `step ${step.id}`;
  // One event id for the whole chain and its observations, as at tool.before.
  const id = newEventId();
  const base = (): AhpEvent => envelope(type, session, fault, id);
  const broken = fault.is('noncanonical-content');
  /** A message list in `view` (and, under the fault, with roles on parts where it is body). */
  const messagesIn = (messages: unknown, view: ContentView): Part[] => {
    const viewed = viewMessages(messages as Part[], view);
    return broken && view === 'body' ? rolesOnParts(viewed) : viewed;
  };
  const textPartsIn = (parts: unknown, view: ContentView): Part[] => {
    const viewed = viewParts(parts as Part[], view);
    return broken && view === 'body' ? withoutMediaType(viewed) : viewed;
  };
  /** A structured value as one text part of its JSON text (under the fault: a JSON part). */
  const jsonPartIn = (value: unknown, view: ContentView): Part => {
    const part = viewPart(textPart(`${step.id}.p1`, JSON.stringify(value)), view);
    return broken && view === 'body' ? { ...part, mediaType: 'application/json' } : part;
  };
  const fromTarget = (state: ContentState): JsonValue => cloneJson(state[target!]) as JsonValue;

  switch (step.kind) {
    case 'user.message.inbound':
    case 'user.message.outbound': {
      const message = obj(body.message, `${where}.message`);
      const channel = str(message.channel, `${where}.message.channel`);
      const inbound = step.kind === 'user.message.inbound';
      const sender = inbound ? str(message.sender, `${where}.message.sender`) : undefined;
      return {
        step,
        boundary,
        initial: { [target!]: list(message.messages, `${where}.message.messages`) },
        event: (state, view) => ({
          ...base(),
          message: {
            channel,
            ...(sender !== undefined ? { sender } : {}),
            messages: messagesIn(state[target!], view),
          },
        }),
        effective: fromTarget,
      };
    }
    case 'model.request':
    case 'model.response': {
      const model = obj(body.model, `${where}.model`);
      const modelId = str(model.id, `${where}.model.id`);
      // The event requires a provider; the sentinel model is its own.
      const provider = typeof model.provider === 'string' && model.provider !== '' ? model.provider : 'sentinel';
      const attempt = { id: `${step.id}.attempt-1`, number: 1 };
      const request = step.kind === 'model.request';
      return {
        step,
        boundary,
        initial: { [target!]: list(body.messages, `${where}.messages`) },
        event: (state, view) => ({
          ...base(),
          model: { id: modelId, provider },
          attempt,
          ...(request ? { params: {} } : { execution: { status: 'executed' }, finishReason: 'stop' }),
          items: messagesIn(state[target!], view),
        }),
        effective: fromTarget,
      };
    }
    case 'tool.output': {
      const tool = obj(body.tool, `${where}.tool`);
      const name = str(tool.name, `${where}.tool.name`);
      const input = obj(tool.input, `${where}.tool.input`);
      const callId = newCallId();
      return {
        step,
        boundary,
        initial: { [target!]: list(body.output, `${where}.output`) },
        event: (state, view) => ({
          ...base(),
          outcome: 'ok',
          execution: { status: 'executed' },
          call: { id: callId },
          tool: { name, input: cloneJson(input), origin: 'native' },
          path: name,
          items: messagesIn(state[target!], view),
        }),
        effective: fromTarget,
      };
    }
    case 'context.compact.before': {
      const items = list(body.items ?? [], `${where}.items`);
      return {
        step,
        boundary,
        initial: { [target!]: list(body.instructions, `${where}.instructions`) },
        event: (state, view) => ({
          ...base(),
          trigger: 'manual',
          // The conversation being compacted is content too: it takes the same view.
          items: messagesIn(items, view),
          instructions: textPartsIn(state[target!], view),
        }),
        effective: fromTarget,
      };
    }
    case 'context.compact.after': {
      const removed = list(body.removed ?? [], `${where}.removed`).map((r) => ({
        id: str(r.id, `${where}.removed[].id`),
      }));
      return {
        step,
        boundary,
        initial: { [target!]: list(body.summary, `${where}.summary`) },
        event: (state, view) => ({
          ...base(),
          summary: textPartsIn(state[target!], view),
          removed,
          execution: { status: 'executed' },
        }),
        effective: fromTarget,
      };
    }
    case 'user.elicitation.request': {
      const e = obj(body.elicitation, `${where}.elicitation`);
      const server = str(e.server, `${where}.elicitation.server`);
      const mode = str(e.mode, `${where}.elicitation.mode`);
      const request = obj(e.request, `${where}.elicitation.request`);
      return {
        step,
        boundary,
        // Not a modify target (no request modification): the request is kept here only
        // for what the elicitation-request-modify fault does to it.
        initial: { request: cloneJson(request) },
        event: (state, view) => ({
          ...base(),
          elicitation: { server, mode, request: jsonPartIn(state.request, view) },
        }),
        effective: (state) => cloneJson(state.request) as JsonValue,
        elicitation: { mode, action: '' },
      };
    }
    case 'user.elicitation.result': {
      const e = obj(body.elicitation, `${where}.elicitation`);
      const server = str(e.server, `${where}.elicitation.server`);
      const mode = str(e.mode, `${where}.elicitation.mode`);
      const action = str(e.action, `${where}.elicitation.action`);
      const result = obj(e.result, `${where}.elicitation.result`);
      // The editable `content` is the answer object; without one there is nothing to edit.
      const resultWith = (state: ContentState): Record<string, unknown> => {
        const { content: _dropped, ...rest } = result;
        return target! in state ? { ...rest, content: state[target!] } : rest;
      };
      return {
        step,
        boundary,
        initial: 'content' in result ? { [target!]: cloneJson(result.content) } : {},
        event: (state, view) => ({
          ...base(),
          elicitation: { server, mode, action, result: jsonPartIn(resultWith(state), view) },
        }),
        // What the server gets: the result re-serialized after the edits, parsed.
        effective: (state) => JSON.parse(JSON.stringify(resultWith(state))) as JsonValue,
        elicitation: { mode, action },
      };
    }
    case 'workspace.change': {
      const w = obj(body.workspace, `${where}.workspace`);
      const kind = str(w.kind, `${where}.workspace.kind`);
      const change = obj(w.change, `${where}.workspace.change`);
      const prior = w.prior === undefined ? undefined : obj(w.prior, `${where}.workspace.prior`);
      return {
        step,
        boundary,
        initial: { [target!]: cloneJson(change) },
        // A change is an object, not parts: the view decides only whether the hook may edit.
        event: (state) => ({
          ...base(),
          workspace: {
            kind,
            change: broken ? jsonPartIn(state[target!], 'body') : (cloneJson(state[target!]) as JsonObject),
            ...(prior !== undefined ? { prior: cloneJson(prior) } : {}),
          },
        }),
        effective: fromTarget,
      };
    }
  }
}
