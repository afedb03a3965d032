// The canonical event of a content boundary, built from a backend's content sample
// (`backend.samples.content`, src/checks/boundaries.ts), and the intercept the runner sends
// with it while playing the harness. Each probe also carries what a host would know when
// it applies the answer: the current value of the boundary's modify target and the
// host-resolved EditContext (src/protocol/edit.ts), so a check judges every modify the way
// a conforming harness would.
//
// Shapes: event.schema.json of both pinned snapshots (the event definitions of the ten
// boundaries), content.schema.json (parts and messages), mcp-elicitation.schema.json (the
// serialized MCP JSON of elicitation text parts); seed "Canonical content and edit checks"
// 1-4 and 8, ../shared/spec-notes/spec-events.md sections 5, 7 and 8.
import type { EditContext, SelectionView } from '../../src/protocol/edit.js';
import { boundaryOf, type Boundary, type BoundaryEvent, type ContentSample } from '../../src/checks/boundaries.js';
import { assertValid, envelope, interceptRequest, newId } from '../../src/checks/probes.js';
import type { SnapshotId } from '../../src/protocol/snapshots.js';

type Obj = Record<string, unknown>;

/**
 * How the content is shown to the hook: `body` inline text; `metadata` and `omit` views
 * carry text parts without text and attachment parts without body (the target is then not
 * body-selected).
 */
export type ContentView = 'body' | 'metadata' | 'omit';

/** Which modify operations of the boundary's target are advertised ('none': modify is not advertised). */
export type Advertised = 'both' | 'merge' | 'replace' | 'none';

export interface ContentProbeOptions {
  view?: ContentView;
  /** Message lists: one more part, an attachment `{ref}` (body view) next to the text. */
  attachment?: boolean;
  /** Text-part lists: one more text part, hidden (metadata view) next to the body text. */
  hiddenPart?: boolean;
  advertised?: Advertised;
}

export interface ContentProbe {
  readonly boundary: Boundary;
  readonly request: Obj;
  readonly event: Obj;
  /** The host's current target values ({} where the boundary has no target). */
  readonly current: Record<string, unknown>;
  /** The host-resolved edit context of this invocation (without schemas: the check adds its snapshot's). */
  readonly context: EditContext;
  /** Words for evidence: which view and advertisement this probe uses. */
  readonly label: string;
}

export const DEFAULT_TEXT = 'Please summarise the notes of the conformance run.';
const DEFAULT_TOOL = { name: 'read_notes', input: { path: 'notes.txt' } };
const DEFAULT_SERVER = 'ahp-conformance-mcp';
/** A one-string-field form: the smallest MCP form request (requestedSchema of a formRequest). */
const DEFAULT_FORM = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
const DEFAULT_ANSWER = { answer: 'yes' };
const DEFAULT_WORKSPACE = { kind: 'cwd' as const, change: { cwd: '/work/project' } };
/** An opaque reference a harness would hand out for stored bytes: immutable, never inline. */
export const ATTACHMENT_REF = 'ahp-conformance://attachments/diagram-1';

function textPart(id: string, text: string, view: ContentView): Obj {
  const part: Obj = { id, kind: 'text', mediaType: 'text/plain', selection: view };
  if (view === 'body') part.text = text;
  return part;
}

function attachmentPart(id: string, view: ContentView): Obj {
  const part: Obj = { id, kind: 'attachment', mediaType: 'image/png', selection: view };
  if (view === 'body') part.body = { ref: ATTACHMENT_REF };
  return part;
}

/** The role of the sample's messages: fixed by the event, else what the boundary carries. */
const roleOf = (event: BoundaryEvent): string =>
  boundaryOf(event)?.messageRole ??
  (event === 'tool.after' ? 'tool' : event === 'model.response.after' ? 'assistant' : 'user');

/** The form request of an elicitation sample (MCP ElicitRequestParams, form mode). */
export function formRequestOf(sample: ContentSample): Obj {
  const e = sample.elicitation ?? {};
  return {
    mode: 'form',
    message: e.message ?? 'Do you want to continue?',
    requestedSchema: e.requestedSchema ?? DEFAULT_FORM,
  };
}

/** The MCP ElicitResult of an elicitation result sample (content only on accept). */
export function elicitResultOf(sample: ContentSample): Obj {
  const action = sample.elicitation?.action ?? 'accept';
  return action === 'accept' ? { action, content: sample.elicitation?.content ?? DEFAULT_ANSWER } : { action };
}

/** The advertisement of a probe: modify of the boundary's target with the chosen operations. */
function capabilitiesOf(b: Boundary, advertised: Advertised): Obj {
  if (!b.target) {
    // No modify target (user.elicitation.request): the full advertisement names what a
    // harness can enforce there; the narrowed one advertises nothing.
    return advertised === 'none' ? { effects: [] } : { effects: ['deny', 'message'] };
  }
  if (advertised === 'none') return { effects: [] };
  return {
    effects: ['modify'],
    modify: { [b.target]: { replace: advertised !== 'merge', merge: advertised !== 'replace' } },
  };
}

function pairsOf(b: Boundary, advertised: Advertised): EditContext['capabilities'] {
  if (!b.target || advertised === 'none') return [];
  return (['replace', 'merge'] as const)
    .filter((op) => advertised === 'both' || advertised === op)
    .map((op) => [b.target!, op] as const);
}

/**
 * The event, request, current target value and edit context of one probe of a sample.
 * `snapshot` validates the request (a runner bug otherwise); without it, every snapshot's.
 */
export function contentProbe(
  sample: ContentSample,
  opts: ContentProbeOptions = {},
  snapshot?: SnapshotId,
): ContentProbe {
  const b = boundaryOf(sample.event);
  if (!b) throw new Error(`not a content boundary: ${sample.event}`);
  const view = opts.view ?? 'body';
  const advertised = opts.advertised ?? 'both';
  const id = newId();
  const text = sample.text ?? DEFAULT_TEXT;
  const event: Obj = envelope(b.event, id);
  let current: unknown;
  let selection: SelectionView = view;
  const authorizedAttachments: Obj[] = [];
  let elicitationMode = '';
  let elicitationAction = '';

  if (b.family === 'messages') {
    const parts = [textPart('p1', text, view)];
    if (opts.attachment) {
      const a = attachmentPart('a1', view);
      parts.push(a);
      if (view === 'body') authorizedAttachments.push(a);
    }
    const messages = [{ id: 'm1', role: roleOf(b.event), parts }];
    current = messages;
    switch (b.event) {
      case 'user.message.inbound':
        event.message = { channel: 'cli', sender: 'user', messages };
        break;
      case 'user.message.outbound':
        event.message = { channel: 'cli', messages };
        break;
      case 'model.request.before':
        Object.assign(event, {
          model: { id: 'conformance-model', provider: 'ahp-conformance' },
          attempt: { id: `attempt-${id}`, number: 1 },
          params: {},
          items: messages,
        });
        break;
      case 'model.response.after':
        Object.assign(event, {
          model: { id: 'conformance-model', provider: 'ahp-conformance' },
          attempt: { id: `attempt-${id}`, number: 1 },
          execution: { status: 'executed' },
          items: messages,
          finishReason: 'stop',
        });
        break;
      case 'tool.after': {
        const tool = sample.tool ?? DEFAULT_TOOL;
        Object.assign(event, {
          outcome: 'ok',
          execution: { status: 'executed' },
          call: { id: `call-${id}` },
          tool: { name: tool.name, input: tool.input, origin: 'native' },
          path: tool.name,
          items: messages,
        });
        break;
      }
      default:
        throw new Error(`no message-list event builder for ${b.event}`);
    }
  } else if (b.family === 'text-parts') {
    const parts = [textPart('t1', text, view)];
    // A body-selected target may still hold a part its category hides (seed edit check 3).
    if (opts.hiddenPart) parts.push(textPart('t2', '', 'metadata'));
    current = parts;
    if (b.event === 'context.compact.before')
      Object.assign(event, { trigger: 'manual', items: [], instructions: parts });
    else Object.assign(event, { summary: parts, removed: [], execution: { status: 'executed' } });
  } else if (b.family === 'mcp-request') {
    const server = sample.elicitation?.server ?? DEFAULT_SERVER;
    event.elicitation = { server, mode: 'form', request: textPart('e1', JSON.stringify(formRequestOf(sample)), view) };
    elicitationMode = 'form';
  } else if (b.family === 'mcp-result') {
    const server = sample.elicitation?.server ?? DEFAULT_SERVER;
    const result = elicitResultOf(sample);
    event.elicitation = {
      server,
      mode: 'form',
      action: result.action,
      result: textPart('e1', JSON.stringify(result), view),
    };
    // The target is the parsed answer object (seed "Boundary-specific modification values").
    current = result.content ?? null;
    elicitationMode = 'form';
    elicitationAction = String(result.action);
  } else {
    const w = sample.workspace ?? DEFAULT_WORKSPACE;
    if (view === 'body') {
      event.workspace = { kind: w.kind ?? 'cwd', change: w.change };
      current = w.change;
    } else {
      // An object target has no text parts to hide: the hidden view withholds the change
      // and says so with a gap (the host's view of the target is then 'gap', not 'body').
      event.workspace = { kind: w.kind ?? 'cwd', change: { workspaceRoots: [] } };
      event.gaps = [{ path: 'workspace.change', reason: 'withheld from this hook (metadata view)' }];
      current = w.change;
      selection = 'gap';
    }
  }

  const request = interceptRequest(event, capabilitiesOf(b, advertised));
  if (snapshot) assertValid('intercept-request', request, snapshot);
  const targets = b.target ? [b.target] : [];
  const context: EditContext = {
    capabilities: pairsOf(b, advertised),
    selection: Object.fromEntries(targets.map((t) => [t, selection])),
    readable: targets,
    writable: targets,
    authorizedAttachments,
    event: b.event,
    elicitationMode,
    elicitationAction,
  };
  const label = [
    b.family === 'workspace' && view !== 'body' ? 'the change withheld behind a gap' : `${view} view`,
    opts.attachment ? 'with an attachment' : '',
    opts.hiddenPart ? 'with a hidden text part' : '',
    advertised === 'none' ? 'modify not advertised' : advertised === 'both' ? '' : `only ${advertised} advertised`,
  ]
    .filter(Boolean)
    .join(', ');
  return { boundary: b, request, event, current: b.target ? { [b.target]: current } : {}, context, label };
}
