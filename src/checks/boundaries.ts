// The content boundaries the runner exercises live (issue 14): the one table of which
// event is a boundary, which modify target it exposes, where that content sits in the
// event, and who receives the effective value after the intercept chain (the outside
// oracle a harness's adapter records it from, docs/harness-adapter.md). Catalogue rows,
// claim fields, scenario builders, sample events and the reference implementations all
// read it from here.
//
// The seed's "Canonical content and edit checks" apply "for supported events and
// advertised edit capabilities", so a boundary is exercised only where a claim says so:
// a harness lists the boundary events it supports (`harness.boundaries`), a backend gives
// content samples (`backend.samples.content`). tool.before's `input` is not in this table:
// the tool-interception checks already judge it through the sentinel tool.
import { eventSpec, type ModifyTarget } from '../protocol/catalogue.js';

export const BOUNDARY_EVENTS = [
  'user.message.inbound',
  'user.message.outbound',
  'model.request.before',
  'model.response.after',
  'tool.after',
  'context.compact.before',
  'context.compact.after',
  'user.elicitation.request',
  'user.elicitation.result',
  'workspace.change.before',
] as const;
export type BoundaryEvent = (typeof BOUNDARY_EVENTS)[number];

/** Who receives the effective value after the chain: the sentinel that records it. */
export type Receiver =
  | 'model' // the sentinel model: the messages it is really sent
  | 'user' // the sentinel user channel: what the user is really shown
  | 'conversation' // the messages the harness keeps and goes on with
  | 'compactor' // the sentinel compaction model: the instructions it is really given
  | 'elicitation-client' // the sentinel elicitation client: the request it is really shown
  | 'elicitation-server' // the MCP server that asked: the result it really gets
  | 'workspace'; // the sentinel workspace: the change really applied

/** The JSON family of the content at the boundary. */
export type BoundaryFamily = 'messages' | 'text-parts' | 'mcp-request' | 'mcp-result' | 'workspace';

export interface Boundary {
  readonly event: BoundaryEvent;
  /** Short name used in check ids (`content.<slug>.<aspect>`) and titles. */
  readonly slug: string;
  /** Words for titles: "at <label>". */
  readonly label: string;
  /** The modify target the boundary exposes (none at user.elicitation.request: no request modification). */
  readonly target?: ModifyTarget;
  /** Where the content sits in the event (dotted path). */
  readonly path: string;
  readonly family: BoundaryFamily;
  /** The role every message of the content has, where the event fixes it. */
  readonly messageRole?: 'user' | 'assistant';
  readonly receiver: Receiver;
  /** The adapter contract v2 step kind that makes a harness emit this event (docs/harness-adapter.md). */
  readonly step: ContentStepKind;
}

/** Content step kinds of adapter contract version 2, one per boundary. */
export type ContentStepKind =
  | 'user.message.inbound'
  | 'user.message.outbound'
  | 'model.request'
  | 'model.response'
  | 'tool.output'
  | 'context.compact.before'
  | 'context.compact.after'
  | 'user.elicitation.request'
  | 'user.elicitation.result'
  | 'workspace.change';

const b = (x: Omit<Boundary, 'target'>): Boundary => {
  const target = eventSpec(x.event)?.modifyTargets[0];
  return target ? { ...x, target } : x;
};

export const BOUNDARIES: readonly Boundary[] = [
  b({
    event: 'user.message.inbound',
    slug: 'user-inbound',
    step: 'user.message.inbound',
    label: 'an inbound user message',
    path: 'message.messages',
    family: 'messages',
    messageRole: 'user',
    receiver: 'model',
  }),
  b({
    event: 'user.message.outbound',
    slug: 'user-outbound',
    step: 'user.message.outbound',
    label: 'an outbound user message',
    path: 'message.messages',
    family: 'messages',
    messageRole: 'assistant',
    receiver: 'user',
  }),
  b({
    event: 'model.request.before',
    slug: 'model-request',
    step: 'model.request',
    label: 'a model request',
    path: 'items',
    family: 'messages',
    receiver: 'model',
  }),
  b({
    event: 'model.response.after',
    slug: 'model-response',
    step: 'model.response',
    label: 'a model response',
    path: 'items',
    family: 'messages',
    receiver: 'conversation',
  }),
  b({
    event: 'tool.after',
    slug: 'tool-output',
    step: 'tool.output',
    label: 'a tool output',
    path: 'items',
    family: 'messages',
    receiver: 'model',
  }),
  b({
    event: 'context.compact.before',
    slug: 'compact-instructions',
    step: 'context.compact.before',
    label: 'compaction instructions',
    path: 'instructions',
    family: 'text-parts',
    receiver: 'compactor',
  }),
  b({
    event: 'context.compact.after',
    slug: 'compact-summary',
    step: 'context.compact.after',
    label: 'a compaction summary',
    path: 'summary',
    family: 'text-parts',
    receiver: 'conversation',
  }),
  b({
    event: 'user.elicitation.request',
    slug: 'elicitation-request',
    step: 'user.elicitation.request',
    label: 'an elicitation request',
    path: 'elicitation.request',
    family: 'mcp-request',
    receiver: 'elicitation-client',
  }),
  b({
    event: 'user.elicitation.result',
    slug: 'elicitation-result',
    step: 'user.elicitation.result',
    label: 'an elicitation result',
    path: 'elicitation.result',
    family: 'mcp-result',
    receiver: 'elicitation-server',
  }),
  b({
    event: 'workspace.change.before',
    slug: 'workspace-change',
    step: 'workspace.change',
    label: 'a workspace change',
    path: 'workspace.change',
    family: 'workspace',
    receiver: 'workspace',
  }),
];

const byEvent = new Map(BOUNDARIES.map((x) => [x.event, x]));

export function boundaryOf(event: string): Boundary | undefined {
  return byEvent.get(event as BoundaryEvent);
}

export const CONTENT_STEP_KINDS: readonly ContentStepKind[] = BOUNDARIES.map((x) => x.step);

export const isContentStepKind = (kind: string): kind is ContentStepKind =>
  (CONTENT_STEP_KINDS as readonly string[]).includes(kind);

export const isBoundaryEvent = (event: string): event is BoundaryEvent => byEvent.has(event as BoundaryEvent);

/**
 * A backend's content sample (`backend.samples.content` in a claim): content at one
 * boundary the backend acts on. The runner builds the canonical event from it
 * (suites/support/content-events.ts) and judges every modify it gets against the pending
 * boundary. Unset fields get the builder's defaults.
 */
export interface ContentSample {
  event: BoundaryEvent;
  /** The text of the content (message-list and text-part boundaries). */
  text?: string;
  /** tool.after: the call whose output the text is. */
  tool?: { name: string; input: Record<string, unknown> };
  /** user.elicitation.*: an MCP form elicitation and (result) the user's answer. */
  elicitation?: {
    server?: string;
    message?: string;
    requestedSchema?: Record<string, unknown>;
    action?: 'accept' | 'decline' | 'cancel';
    content?: Record<string, unknown>;
  };
  /** workspace.change.before: the proposed change. */
  workspace?: { kind?: 'cwd' | 'roots' | 'switch'; change: { cwd?: string; workspaceRoots?: string[] } };
}

/** The three content checks of a boundary, per role (ids `content.<slug>.<aspect>`). */
export const HARNESS_ASPECTS = ['canonical', 'selection', 'edits'] as const;
export const BACKEND_ASPECTS = ['canonical-edits', 'hidden-untouched', 'advertised-edits'] as const;
export type HarnessAspect = (typeof HARNESS_ASPECTS)[number];
export type BackendAspect = (typeof BACKEND_ASPECTS)[number];

export const contentCheckId = (boundary: Boundary, aspect: HarnessAspect | BackendAspect): string =>
  `content.${boundary.slug}.${aspect}`;
