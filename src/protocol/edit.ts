// The modify edit engine: applies one intercept response's `modify` effects to the
// host's current target values under an explicit, host-resolved EditContext.
//
// Semantics follow ../shared/spec-notes/checker.md section 2 (algorithm steps 1-13,
// rules R1-R21) and the seed's "Canonical content and edit checks". It is a focused
// test helper, not a general effect executor: any non-modify effect fails closed.
// Every shape question is answered by the validator against the pinned schemas, so no
// content shape is written down twice.
//
// Guarantees: `current` and `effects` are never mutated; the result is a detached deep
// copy that aliases neither; a response is atomic (the first broken rule throws
// EditRejected and nothing is returned); effects apply serially inside one response, and
// callers chain responses by passing the last accepted candidate back in.
import { TARGET_FAMILY, type ModifyTarget } from './catalogue.js';
import { cloneJson, deepEqualJson, isObject, isPlainJson } from './json.js';
import { kindEntry } from './kinds.js';
import { ourSchemas, type SchemaSet } from './schema-set.js';
import { isWireValid, validate, type Finding } from './validator.js';

export type SelectionView = 'body' | 'metadata' | 'omit' | 'gap';

export interface EditContext {
  /** Exact (target, operation) pairs advertised to, and available for, this invocation. */
  capabilities: ReadonlyArray<readonly [target: string, operation: 'replace' | 'merge']>;
  /** Host-resolved view of each target; only 'body' allows editing. */
  selection: Readonly<Record<string, SelectionView>>;
  readable: ReadonlySet<string> | readonly string[];
  writable: ReadonlySet<string> | readonly string[];
  /** Exact attachment part descriptors this invocation may (re)submit unchanged. */
  authorizedAttachments?: readonly unknown[];
  /** Host-resolved boundary event; '' or absent turns boundary checks off. */
  event?: string;
  /** 'form' | 'url' | '' (elicitation boundaries). */
  elicitationMode?: string;
  /** 'accept' | 'decline' | 'cancel' | '' (elicitation boundaries). */
  elicitationAction?: string;
  /** Which schemas judge shapes (default: ours). */
  schemas?: SchemaSet;
}

export class EditRejected extends Error {
  readonly rule: string;
  readonly effectIndex?: number;
  constructor(rule: string, message: string, effectIndex?: number) {
    super(`${rule}: ${message}`);
    this.name = 'EditRejected';
    this.rule = rule;
    if (effectIndex !== undefined) this.effectIndex = effectIndex;
  }
}

type Json = unknown;
type JsonObject = Record<string, unknown>;

const ELICITATION_RESULT = 'user.elicitation.result';

function wireFindings(kind: string, value: unknown, schemas: SchemaSet): Finding[] {
  return validate(kind, value, { schemas, wireOnly: true }).filter((f) => f.layer === 'wire');
}

function describeFindings(findings: readonly Finding[]): string {
  return findings.map((f) => `${f.path || '(root)'}: ${f.message}`).join('; ');
}

function has(collection: ReadonlySet<string> | readonly string[], item: string): boolean {
  return collection instanceof Set ? collection.has(item) : (collection as readonly string[]).includes(item);
}

/** Assigns an own data property, also for the key "__proto__". */
function setOwn(obj: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

// ------------------------------------------------------------------ canonical helpers

/** checker.md 3.2: one part against the whole content-part union, or the text-part union. */
export function canonicalPartErrors(part: unknown, textOnly = false, schemas: SchemaSet = ourSchemas()): string[] {
  const findings = wireFindings(textOnly ? 'text-part' : 'content-part', part, schemas);
  return findings.map((f) => `${f.path || '(root)'}: ${f.message}`);
}

/** The list-level version: a canonical message list or a canonical text-part list. */
export function canonicalListErrors(
  value: unknown,
  family: 'messages' | 'text-parts',
  schemas: SchemaSet = ourSchemas(),
): string[] {
  const findings = wireFindings(family === 'messages' ? 'content-messages' : 'text-parts', value, schemas);
  return findings.map((f) => `${f.path || '(root)'}: ${f.message}`);
}

// ------------------------------------------------------------------ permissive context

/**
 * checker.md 1.6 step 4: the host context a contextual fixture is judged under. Every key
 * of `current` is a target with both operations, body selection, readable and writable;
 * the event, mode and action come from the fixture ('' when absent).
 */
export function permissiveEditContext(
  editContext: { event?: string; current: Record<string, unknown>; mode?: string; action?: string },
  schemas?: SchemaSet,
): EditContext {
  const keys = Object.keys(editContext.current);
  const ctx: EditContext = {
    capabilities: keys.flatMap((k) => [[k, 'replace'] as const, [k, 'merge'] as const]),
    selection: Object.fromEntries(keys.map((k) => [k, 'body' as const])),
    readable: new Set(keys),
    writable: new Set(keys),
    authorizedAttachments: [],
    event: editContext.event ?? '',
    elicitationMode: editContext.mode ?? '',
    elicitationAction: editContext.action ?? '',
  };
  if (schemas) ctx.schemas = schemas;
  return ctx;
}

// ------------------------------------------------------------------ the engine

type ListFamily = 'messages' | 'text-parts';

/** Flattens a canonical list into its parts: every part of every message, or the list itself. */
function flattenParts(list: unknown[], family: ListFamily): JsonObject[] {
  if (family === 'text-parts') return list as JsonObject[];
  return (list as JsonObject[]).flatMap((m) => m.parts as JsonObject[]);
}

/** Hidden text: a text part the hook cannot see in full (metadata/omit view, or a gap). */
function isHiddenText(part: JsonObject): boolean {
  return part.kind === 'text' && (part.selection !== 'body' || 'gap' in part);
}

/** Protected: an attachment, or any part that is not a plain body-selected view. */
function isProtected(part: JsonObject): boolean {
  return part.kind !== 'text' || part.selection !== 'body' || 'gap' in part;
}

/**
 * Applies one response's effects to `current` under `ctx` (checker.md 2.3). Returns the
 * new candidate; throws EditRejected (with the rule id) and stages nothing on any failure.
 */
export function applyModifyResponse(
  current: Readonly<Record<string, unknown>>,
  effects: unknown,
  ctx: EditContext,
): Record<string, unknown> {
  const schemas = ctx.schemas ?? ourSchemas();

  // ---- A. Whole-response pre-checks: nothing is staged before all three pass.

  // R1: the response carries an ordered list of effects.
  if (!Array.isArray(effects)) throw new EditRejected('R1', 'effects must be a list');

  // R2: only plain JSON can be validated and staged (no NaN, Infinity, undefined, cycles...).
  for (let i = 0; i < effects.length; i++) {
    if (!Object.hasOwn(effects, i) || !isPlainJson(effects[i])) {
      throw new EditRejected('R2', `effect ${i} is not a plain JSON value (non-finite number or non-JSON data)`, i);
    }
  }
  if (!isPlainJson(effects)) throw new EditRejected('R2', 'effects is not a plain JSON list');

  // R3: the whole list against the canonical effect schema, so one bad member (even a
  // later one) rejects the response before any effect is staged.
  const r3 = wireFindings('effects', effects, schemas);
  if (r3.length > 0) {
    const m = /^\/(\d+)(?:\/|$)/.exec(r3[0]!.path);
    throw new EditRejected(
      'R3',
      `effects fail the canonical effect schema: ${describeFindings(r3)}`,
      m ? Number(m[1]) : undefined,
    );
  }

  // ---- B. Staging on a private deep copy; each effect sees the ones before it.
  const staged: JsonObject = {};
  for (const key of Object.keys(current)) setOwn(staged, key, cloneJson(current[key]));

  effects.forEach((effect: Json, index) => {
    stageOne(staged, effect, index, ctx, schemas);
  });

  // 13. The candidate is ours alone: built from copies of `current` and of effect values.
  return staged;
}

function stageOne(staged: JsonObject, effect: Json, index: number, ctx: EditContext, schemas: SchemaSet): void {
  const reject = (rule: string, message: string): never => {
    throw new EditRejected(rule, message, index);
  };

  // R4: only a strict modify effect is executable here; deny/allow/flow/inject/return/
  // message are schema-valid but this engine is not a general executor, so fail closed.
  const keys = isObject(effect) ? Object.keys(effect).sort().join(',') : '';
  if (!isObject(effect) || keys !== 'operation,target,type,value' || effect.type !== 'modify') {
    reject('R4', `effect ${index}: expected a strict modify effect {type:"modify", target, operation, value}`);
  }
  const e = effect as JsonObject;

  // R5: target and operation name things; anything else cannot be authorized.
  if (typeof e.target !== 'string' || typeof e.operation !== 'string') {
    reject('R5', `effect ${index}: target and operation must be strings`);
  }
  const target = e.target as string;
  const operation = e.operation as string;
  const value = e.value;
  const where = `(${target})`;

  // R6: a target the host did not make available cannot be edited (or created).
  if (!Object.hasOwn(staged, target)) reject('R6', `target is not available in the current state ${where}`);

  // R7: the exact (target, operation) pair must be advertised; neighbouring grants do not count.
  if (!ctx.capabilities.some(([t, o]) => t === target && o === operation)) {
    reject('R7', `no capability for ${operation} of this target ${where}`);
  }

  // R8-R10: inline text does not bypass selection or host authorization.
  const view = Object.hasOwn(ctx.selection, target) ? ctx.selection[target] : undefined;
  if (view !== 'body')
    reject('R8', `target selection is ${JSON.stringify(view ?? 'unset')}, only "body" allows editing ${where}`);
  if (!has(ctx.readable, target)) reject('R9', `target is not readable ${where}`);
  if (!has(ctx.writable, target)) reject('R10', `target is not writable ${where}`);

  // R11: the boundary, never the effect, decides whether this target may be modified. A
  // minimal advertisement granting just this pair must satisfy the event's capability
  // definition; an unknown or observe-only event has none, so it fails closed.
  const event = ctx.event ?? '';
  if (event !== '') {
    const kind = `capabilities:${event}`;
    const advertisement = {
      effects: ['modify'],
      modify: { [target]: { replace: operation === 'replace', merge: operation === 'merge' } },
    };
    let problem: string | undefined;
    if (!kindEntry(kind)) {
      problem = `event ${JSON.stringify(event)} has no capability definition`;
    } else {
      try {
        const findings = wireFindings(kind, advertisement, schemas);
        if (!isWireValid(findings)) problem = describeFindings(findings);
      } catch (err) {
        problem = `capability definition for ${JSON.stringify(event)} is unavailable: ${(err as Error).message}`;
      }
    }
    if (problem !== undefined) reject('R11', `modify target is not supported at this boundary ${where}: ${problem}`);
  }

  // Only catalogue targets have a family (a looser snapshot schema could let others through).
  const family = Object.hasOwn(TARGET_FAMILY, target) ? TARGET_FAMILY[target as ModifyTarget] : undefined;
  const previous = staged[target];
  let listFamily: ListFamily | undefined;

  if (event === ELICITATION_RESULT && target === 'content') {
    // R12: structured answer content exists only for an accepted form result.
    if (ctx.elicitationMode !== 'form' || ctx.elicitationAction !== 'accept') {
      reject(
        'R12',
        `elicitation content can be edited only for mode "form" and action "accept", ` +
          `not ${JSON.stringify(ctx.elicitationMode ?? '')}/${JSON.stringify(ctx.elicitationAction ?? '')} ${where}`,
      );
    }
    // R13/R14: both sides must be the pinned MCP answer object (flat values), for either operation.
    const before = wireFindings('mcp-elicitation-content', previous, schemas);
    if (before.length > 0)
      reject('R13', `current elicitation content is not an MCP answer object ${where}: ${describeFindings(before)}`);
    const after = wireFindings('mcp-elicitation-content', value, schemas);
    if (after.length > 0)
      reject('R14', `new elicitation content is not an MCP answer object ${where}: ${describeFindings(after)}`);
  } else if (family === 'messages' || family === 'messages-or-object') {
    // R15: outside the elicitation answer, `content` and the other message targets take
    // canonical message lists only; the effect schema alone would let an object through
    // for `content`, and a structured current value grants nothing.
    const errors = canonicalListErrors(value, 'messages', schemas);
    if (errors.length > 0) reject('R15', `value is not a canonical message list ${where}: ${errors.join('; ')}`);
    listFamily = 'messages';
  } else if (family === 'text-parts') {
    // R15 (defence in depth, beyond checker.md): the effect schema (R3) already types
    // text-part values; re-checking keeps the list protections below from ever reading
    // a non-list when a looser snapshot schema judges R3.
    const errors = canonicalListErrors(value, 'text-parts', schemas);
    if (errors.length > 0) reject('R15', `value is not a canonical text-part list ${where}: ${errors.join('; ')}`);
    listFamily = 'text-parts';
  }

  // R16: object targets edit an actual object; a list or null current value is not one.
  if (family === 'object' && !isObject(previous)) {
    reject('R16', `actual ${target} target must be an object ${where}`);
  }

  if (listFamily !== undefined) {
    // R17: list protections reason about the current parts, so the current value must
    // itself be a canonical list of the same family.
    const currentErrors = canonicalListErrors(previous, listFamily, schemas);
    if (currentErrors.length > 0)
      reject('R17', `actual target is not a canonical list ${where}: ${currentErrors.join('; ')}`);
    const oldParts = flattenParts(previous as unknown[], listFamily);
    const newParts = flattenParts(value as unknown[], listFamily);

    // R18: replacing the whole list would drop or overwrite text the hook never saw, even
    // with [] or brand-new ids; append keeps it. Hidden attachments do not block this.
    if (operation === 'replace' && oldParts.some(isHiddenText)) {
      reject('R18', `whole-list replacement cannot remove or replace hidden text ${where}`);
    }

    // R19: a part id that names an attachment or an unselected/gapped part can only be
    // resubmitted byte-for-byte unchanged (keep or drop, never edit in place).
    const oldById = new Map<unknown, JsonObject[]>();
    for (const p of oldParts) {
      const list = oldById.get(p.id);
      if (list) list.push(p);
      else oldById.set(p.id, [p]);
    }
    for (const p of newParts) {
      for (const old of oldById.get(p.id) ?? []) {
        if (isProtected(old) && !deepEqualJson(p, old)) {
          reject('R19', `cannot edit an attachment or unselected part (part ${JSON.stringify(p.id)}) ${where}`);
        }
      }
    }

    // R20: an attachment body is an opaque reference; only the exact descriptors the host
    // authorized may be (re)submitted. Being in `current` or a familiar ref is no authority.
    if (listFamily === 'messages') {
      const authorized = ctx.authorizedAttachments ?? [];
      for (const p of newParts) {
        if (p.kind === 'attachment' && 'body' in p && !authorized.some((a) => deepEqualJson(a, p))) {
          reject('R20', `attachment descriptor is not authorized unchanged (part ${JSON.stringify(p.id)}) ${where}`);
        }
      }
    }
  }

  // 12. Apply. Values are deep-copied so the candidate never aliases the effects.
  if (operation === 'replace') {
    setOwn(staged, target, cloneJson(value));
    return;
  }
  if (operation === 'merge') {
    if (isObject(previous) && isObject(value)) {
      // Shallow merge: top-level keys overwrite, nested values are replaced whole, and a
      // literal null is stored (it is not a deletion).
      const merged: JsonObject = {};
      for (const k of Object.keys(previous)) setOwn(merged, k, previous[k]);
      for (const k of Object.keys(value)) setOwn(merged, k, cloneJson(value[k]));
      setOwn(staged, target, merged);
      return;
    }
    if (listFamily !== undefined && Array.isArray(previous) && Array.isArray(value)) {
      // Append in order; duplicates (even duplicate ids) are kept.
      setOwn(staged, target, [...previous, ...cloneJson(value)]);
      return;
    }
  }
  // R21: no other combination has a defined merge.
  reject('R21', `merge requires matching objects or canonical lists ${where}`);
}
