// The reference backend at the content boundaries (src/checks/boundaries.ts): a conforming
// edit of each boundary's target, and the three content fault modes, each applied at
// every boundary. Rules (seed "Canonical content and edit checks" 3-6, "Boundary-specific
// modification values"):
//   - edit only a target whose content is body-selected (some text inline, no gap) and
//     only with an advertised operation; merge (append / shallow merge) is preferred;
//   - replace a list only when it holds no hidden text, and resubmit attachments unchanged;
//   - values of the boundary's kind: message lists (with the event's role), text-part
//     lists, the MCP answer object of an accepted form result, a workspace object;
//   - no modify at user.elicitation.request (no request modification target).
import { boundaryOf, type Boundary } from '../../src/checks/boundaries.js';
import { isObject, type JsonObject, type JsonValue } from '../../src/protocol/json.js';
import type { FaultProbe } from '../fault-probe.js';
import type { FaultMode } from './faults.js';

type Op = 'replace' | 'merge';

/** What the backend sees of the target: its value, whether it is shown in a body view, and what it must not touch. */
interface Seen {
  readonly boundary: Boundary;
  readonly value: JsonValue | undefined;
  /** Some content of the target is inline (body-selected, no gap). */
  readonly body: boolean;
  /** Some text of the target is hidden (metadata/omit/gap): no whole-list replacement. */
  readonly hiddenText: boolean;
  /** Attachment parts: may be kept byte-for-byte, never edited. */
  readonly attachments: boolean;
  readonly mode?: unknown;
  readonly action?: unknown;
}

const partsOf = (v: unknown, family: Boundary['family']): JsonObject[] => {
  if (!Array.isArray(v)) return [];
  if (family === 'text-parts') return v.filter(isObject) as JsonObject[];
  return v.flatMap((m) => (isObject(m) && Array.isArray(m.parts) ? (m.parts.filter(isObject) as JsonObject[]) : []));
};

function at(event: JsonObject, path: string): unknown {
  let v: unknown = event;
  for (const k of path.split('.')) v = isObject(v) ? v[k] : undefined;
  return v;
}

function see(event: JsonObject, b: Boundary): Seen {
  const raw = at(event, b.path);
  if (b.family === 'messages' || b.family === 'text-parts') {
    const parts = partsOf(raw, b.family);
    const text = parts.filter((p) => p.kind === 'text');
    return {
      boundary: b,
      value: raw as JsonValue,
      body: text.some((p) => p.selection === 'body' && !('gap' in p)),
      hiddenText: text.some((p) => p.selection !== 'body' || 'gap' in p),
      attachments: parts.some((p) => p.kind === 'attachment'),
    };
  }
  if (b.family === 'workspace') {
    const gaps = Array.isArray(event.gaps) ? event.gaps : [];
    const gapped = gaps.some((g) => isObject(g) && typeof g.path === 'string' && g.path.startsWith('workspace'));
    const change = isObject(event.workspace) ? event.workspace.change : undefined;
    return { boundary: b, value: change as JsonValue, body: !gapped, hiddenText: gapped, attachments: false };
  }
  // Elicitation: one text part holding serialized MCP JSON; the result's target is its parsed content.
  const part = isObject(raw) ? raw : {};
  const body = part.selection === 'body' && typeof part.text === 'string' && !('gap' in part);
  let parsed: unknown;
  if (body) {
    try {
      parsed = JSON.parse(part.text as string);
    } catch {
      parsed = undefined;
    }
  }
  const elicitation = isObject(event.elicitation) ? event.elicitation : {};
  return {
    boundary: b,
    value: isObject(parsed) && isObject(parsed.content) ? (parsed.content as JsonObject) : undefined,
    body,
    hiddenText: !body,
    attachments: false,
    mode: elicitation.mode,
    action: elicitation.action,
  };
}

/** The advertised operations of the boundary's target. */
function advertisedOps(b: Boundary, capabilities: unknown): Op[] {
  if (!b.target || !isObject(capabilities) || !Array.isArray(capabilities.effects)) return [];
  if (!capabilities.effects.includes('modify') || !isObject(capabilities.modify)) return [];
  const t = capabilities.modify[b.target];
  if (!isObject(t)) return [];
  return (['merge', 'replace'] as const).filter((op) => t[op] === true);
}

/**
 * The full advertisement a harness gives where it applies edits: both operations of the
 * target (at user.elicitation.request, which has none: any effect at all).
 */
function fullyAdvertised(b: Boundary, capabilities: unknown): boolean {
  if (!b.target)
    return isObject(capabilities) && Array.isArray(capabilities.effects) && capabilities.effects.length > 0;
  return advertisedOps(b, capabilities).length === 2;
}

const noteMessage = (b: Boundary, seen: Seen, note: string): JsonObject => {
  const list = Array.isArray(seen.value) ? seen.value : [];
  const last = list[list.length - 1];
  const role = b.messageRole ?? (isObject(last) && typeof last.role === 'string' ? last.role : 'user');
  return {
    id: 'reference-note',
    role,
    parts: [{ id: 'reference-note-text', kind: 'text', mediaType: 'text/plain', selection: 'body', text: note }],
  };
};

const notePart = (note: string): JsonObject => ({
  id: 'reference-note',
  kind: 'text',
  mediaType: 'text/plain',
  selection: 'body',
  text: note,
});

/** The conforming value of one operation on the target, or undefined when that operation cannot be used here. */
function editValue(seen: Seen, op: Op, note: string): JsonValue | undefined {
  const b = seen.boundary;
  const list = Array.isArray(seen.value) ? (seen.value as JsonValue[]) : [];
  switch (b.family) {
    case 'messages':
      // Replacing keeps every current message (attachments byte-for-byte) and appends.
      if (op === 'replace' && seen.hiddenText) return undefined;
      return op === 'merge' ? [noteMessage(b, seen, note)] : [...list, noteMessage(b, seen, note)];
    case 'text-parts':
      if (op === 'replace' && seen.hiddenText) return undefined;
      return op === 'merge' ? [notePart(note)] : [...list, notePart(note)];
    case 'mcp-result': {
      // Only an accepted form result has answer content; values stay of the answer's types.
      if (seen.mode !== 'form' || seen.action !== 'accept' || !isObject(seen.value)) return undefined;
      const content = seen.value as JsonObject;
      const key = Object.keys(content).find((k) => typeof content[k] === 'string');
      const patch: JsonObject = key ? { [key]: `${content[key] as string} (${note})` } : {};
      return op === 'merge' ? patch : { ...content, ...patch };
    }
    case 'workspace':
      // The proposed change, confirmed as it is (a harmless edit of an object target).
      return isObject(seen.value) ? { ...(seen.value as JsonObject) } : undefined;
    default:
      return undefined;
  }
}

const modify = (target: string, operation: Op, value: JsonValue): JsonObject => ({
  type: 'modify',
  target,
  operation,
  value,
});

/** A modify at user.elicitation.request, which has no target: what two faults send there. */
const requestModify = (): JsonObject => modify('content', 'merge', {});

/**
 * The effects for an intercept at a content boundary. `note` is the policy's edit (none:
 * the policy leaves this boundary alone); the faults act whether or not there is one.
 */
export function contentEffects(
  event: JsonObject,
  capabilities: unknown,
  note: string | undefined,
  fault: FaultProbe<FaultMode>,
): JsonObject[] {
  const b = boundaryOf(String(event.type));
  if (!b) return [];
  const seen = see(event, b);
  const full = fullyAdvertised(b, capabilities);
  const clean = seen.body && !seen.hiddenText && !seen.attachments;
  const faultNote = note ?? 'edited by the reference backend';

  // Each fault is asked only where it has an edit of its own to send.
  if (full && clean && fault.is('noncanonical-modify')) return [noncanonical(seen, faultNote)];
  if (!full && seen.body) {
    const merged = unadvertisedMerge(seen, faultNote);
    if (merged && fault.is('unadvertised-modify')) return [merged];
  }
  if (full && !clean) {
    const hidden = editHidden(seen, faultNote);
    if (hidden && fault.is('edit-hidden')) return [hidden];
  }

  if (!b.target || note === undefined || !seen.body) return [];
  for (const op of advertisedOps(b, capabilities)) {
    const value = editValue(seen, op, note);
    if (value !== undefined) return [modify(b.target, op, value)];
  }
  return [];
}

/** noncanonical-modify: a value of the wrong kind for the boundary, with an advertised operation. */
function noncanonical(seen: Seen, note: string): JsonObject {
  const b = seen.boundary;
  if (!b.target) return requestModify();
  switch (b.family) {
    case 'messages':
      // Bare parts where messages belong, each part repeating the role.
      return modify(b.target, 'merge', [{ ...notePart(note), role: b.messageRole ?? 'user' }]);
    case 'text-parts':
      return modify(b.target, 'merge', { text: note });
    case 'mcp-result':
      return modify(b.target, 'merge', [isObject(seen.value) ? seen.value : {}]);
    default:
      return modify(b.target, 'merge', [isObject(seen.value) ? seen.value : {}]);
  }
}

/** unadvertised-modify: a merge of the target whatever is advertised (at the request, which has none, a modify). */
function unadvertisedMerge(seen: Seen, note: string): JsonObject | undefined {
  const b = seen.boundary;
  if (!b.target) return requestModify();
  const value = editValue(seen, 'merge', note);
  return value === undefined ? undefined : modify(b.target, 'merge', value);
}

/** edit-hidden: an edit of content the hook was not shown in full, or of an attachment's reference. */
function editHidden(seen: Seen, note: string): JsonObject | undefined {
  const b = seen.boundary;
  if (!b.target) return seen.body ? undefined : requestModify();
  if (!seen.body) {
    // The hidden view: edit as if the body were shown.
    if (b.family === 'messages') return modify(b.target, 'merge', [noteMessage(b, seen, note)]);
    if (b.family === 'text-parts') return modify(b.target, 'merge', [notePart(note)]);
    if (b.family === 'workspace') return modify(b.target, 'merge', { cwd: '/' });
    return modify(b.target, 'merge', {});
  }
  const list = Array.isArray(seen.value) ? (seen.value as JsonValue[]) : [];
  if (b.family === 'messages' && seen.attachments) {
    // Swap each attachment's reference for another one.
    const swapped = list.map((m) =>
      isObject(m) && Array.isArray(m.parts)
        ? {
            ...m,
            parts: m.parts.map((p) =>
              isObject(p) && p.kind === 'attachment' ? { ...p, body: { ref: 'reference-backend://swapped' } } : p,
            ),
          }
        : m,
    );
    return modify(b.target, 'replace', swapped as JsonValue);
  }
  if (seen.hiddenText) return modify(b.target, 'replace', [notePart(note)]);
  return undefined;
}
