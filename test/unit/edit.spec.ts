// The modify edit engine (src/protocol/edit.ts): the behaviour cases of
// ../shared/spec-notes/checker.md 4.1 (1-4, 6-14; case 5 is the fixture test at the end),
// every rejection rule R1-R21, immutability of the inputs and atomic, serial responses.
//
// Rule coverage (each rule has at least one test asserting `EditRejected.rule`):
//
// | Rule | Tests                                                                                          |
// |------|------------------------------------------------------------------------------------------------|
// | R1   | R1: effects that are not a list                                                                |
// | R2   | R2: effects holding non-JSON values                                                            |
// | R3   | case 4 invalid target types; case 8 output values; case 12 atomic failure; case 14 non-canonical parts; R3: a later bad member |
// | R4   | case 12 non-modify fails closed; R4: every schema-valid non-modify effect                      |
// | R5   | R5/R21: rules behind the effect schema (permissive stand-in schema)                            |
// | R6   | R6: target absent from the current state                                                       |
// | R7   | case 10 privacy and exact capabilities                                                         |
// | R8   | case 10 privacy and exact capabilities                                                         |
// | R9   | case 10 privacy and exact capabilities                                                         |
// | R10  | case 10 privacy and exact capabilities                                                         |
// | R11  | case 7 elicitation request bounds; R11: boundary capability definitions                        |
// | R12  | case 6 elicitation content                                                                     |
// | R13  | case 6 elicitation content (current answer)                                                    |
// | R14  | case 6 elicitation content                                                                     |
// | R15  | case 7 ordinary content and request types                                                      |
// | R16  | case 4 invalid target types (current workspace [])                                             |
// | R17  | case 8 output canonical replace and append                                                     |
// | R18  | case 10 privacy (hidden parts); case 11 new identity cannot replace hidden text                 |
// | R19  | case 9 attachment preservation, removal and unauthorized swap                                  |
// | R20  | case 9 attachment preservation, removal and unauthorized swap                                  |
// | R21  | R5/R21: rules behind the effect schema (permissive stand-in schema)                            |
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { MODIFY_TARGETS } from '../../src/protocol/catalogue.js';
import {
  applyModifyResponse,
  canonicalListErrors,
  canonicalPartErrors,
  EditRejected,
  permissiveEditContext,
  type EditContext,
} from '../../src/protocol/edit.js';
import { cloneJson, parseJsonBytes } from '../../src/protocol/json.js';
import { ourSchemas, type SchemaSet, type ValidateFunction } from '../../src/protocol/schema-set.js';
import { wireSchemas } from '../../src/protocol/schema-build/index.js';

// ------------------------------------------------------------------ helpers

type Obj = Record<string, unknown>;

const text = (v = 'hello', id = 'p1'): Obj => ({
  id,
  kind: 'text',
  mediaType: 'text/plain',
  selection: 'body',
  text: v,
});
const message = (parts: unknown[] = [text()], id = 'm1'): Obj => ({ id, role: 'user', parts });
const edit = (value: unknown, target = 'prompt', operation = 'replace'): Obj => ({
  type: 'modify',
  target,
  operation,
  value,
});
const attachment = (): Obj => ({
  id: 'a1',
  kind: 'attachment',
  mediaType: 'image/png',
  selection: 'body',
  body: { ref: 'opaque' },
});

const baseCurrent = (): Obj => ({
  prompt: [message()],
  instructions: [text()],
  input: { nested: { a: 1 }, keep: true },
  workspace: {},
  output: [message()],
});

/** Every catalogue target with both operations, body selection, readable and writable; no event. */
function baseContext(over: Partial<EditContext> = {}): EditContext {
  return {
    capabilities: MODIFY_TARGETS.flatMap((t) => [[t, 'replace'] as const, [t, 'merge'] as const]),
    selection: Object.fromEntries(MODIFY_TARGETS.map((t) => [t, 'body' as const])),
    readable: new Set<string>(MODIFY_TARGETS),
    writable: new Set<string>(MODIFY_TARGETS),
    authorizedAttachments: [],
    event: '',
    elicitationMode: '',
    elicitationAction: '',
    ...over,
  };
}

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze((v as Obj)[k]);
  }
  return v;
}

/** Every object and array reachable from a value. */
function objectsIn(v: unknown, into = new Set<object>()): Set<object> {
  if (v !== null && typeof v === 'object' && !into.has(v)) {
    into.add(v);
    for (const k of Object.keys(v)) objectsIn((v as Obj)[k], into);
  }
  return into;
}

/** A deep copy for later comparison; some R2 inputs (functions) cannot be copied at all. */
function snapshotOf(v: unknown): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: cloneJson(v) };
  } catch {
    return { ok: false };
  }
}

/**
 * Runs the engine on deep-frozen inputs (any mutation attempt throws in strict mode) and
 * checks that the inputs still equal their snapshots and the result aliases neither.
 */
function apply(current: Obj, effects: unknown, ctx: EditContext = baseContext()): Obj {
  const before = { current: cloneJson(current), effects: snapshotOf(effects) };
  deepFreeze(current);
  deepFreeze(effects);
  try {
    const result = applyModifyResponse(current, effects, ctx);
    const inputs = objectsIn(effects, objectsIn(current));
    for (const o of objectsIn(result)) expect(inputs.has(o)).toBe(false);
    return result;
  } finally {
    expect(current).toEqual(before.current);
    if (before.effects.ok) expect(effects).toEqual(before.effects.value);
  }
}

/** Expects the call to throw EditRejected with `rule`; returns the error. */
function rejects(current: Obj, effects: unknown, ctx: EditContext, rule: string): EditRejected {
  let caught: unknown;
  try {
    apply(current, effects, ctx);
  } catch (err) {
    caught = err;
  }
  expect(caught, `expected EditRejected ${rule}`).toBeInstanceOf(EditRejected);
  const err = caught as EditRejected;
  expect(err.rule, err.message).toBe(rule);
  expect(err.message.startsWith(`${rule}: `)).toBe(true);
  return err;
}

/** The hidden views of a text part: with text still present (non-canonical) and without (canonical). */
function hiddenViews(): { mode: string; withText: Obj; canonical: Obj }[] {
  return [
    { mode: 'metadata', withText: { ...text(), selection: 'metadata' } },
    { mode: 'omit', withText: { ...text(), selection: 'omit' } },
    { mode: 'gap', withText: { ...text(), gap: { reason: 'permission_withheld' } } },
  ].map(({ mode, withText }) => {
    const { text: _dropped, ...canonical } = withText as Obj;
    return { mode, withText, canonical };
  });
}

/** Our schemas, except that the effect list always passes: reaches the rules R3 normally shadows. */
function permissiveEffectSchemas(): SchemaSet {
  const real = ourSchemas();
  const pass = Object.assign(() => true, { errors: null }) as unknown as ValidateFunction;
  return {
    label: 'ours, effect list unchecked',
    snapshot: real.snapshot,
    isValid: (kind, value) => kind === 'effects' || real.isValid(kind, value),
    firstErrors: (kind, value) => (kind === 'effects' ? undefined : real.firstErrors(kind, value)),
    forKind: (kind) => (kind === 'effects' ? pass : real.forKind(kind)),
    forLocation: (location) => real.forLocation(location),
    branch: (union, index) => real.branch(union, index),
    deref: (node) => real.deref(node),
  };
}

// ------------------------------------------------------------------ checker.md 4.1 cases

test.describe('edit engine: checker.md 4.1 behaviour cases', () => {
  test('case 1: append preserves order and duplicates', () => {
    const current = baseCurrent();
    const out = apply(current, [edit([message()], 'prompt', 'merge'), edit([text()], 'instructions', 'merge')]);
    expect(out.prompt).toEqual([message(), message()]);
    expect(out.instructions).toEqual([text(), text()]);
    expect(current).toEqual(baseCurrent());
    // Untouched targets are carried over as copies.
    expect(out.input).toEqual(baseCurrent().input);
  });

  test('case 2: replace substitutes instead of appending, and returns a deep copy', () => {
    const replacement = [message([text('new')], 'm2')];
    const effects = [edit(replacement)];
    const out = apply(baseCurrent(), effects);
    expect(out.prompt).toEqual(replacement);
    // Mutating the result does not reach the effect value it came from.
    ((out.prompt as Obj[])[0]!.parts as Obj[])[0]!.text = 'changed';
    expect(((effects[0]!.value as Obj[])[0]!.parts as Obj[])[0]!.text).toBe('new');
    expect(apply(baseCurrent(), [edit([])]).prompt).toEqual([]);
  });

  test('case 3: object merge is shallow and preserves null', () => {
    const out = apply(baseCurrent(), [edit({ nested: { b: 2 }, keep: null }, 'input', 'merge')]);
    expect(out.input).toEqual({ nested: { b: 2 }, keep: null });
    expect(Object.hasOwn(out.input as Obj, 'keep')).toBe(true);
    expect(apply(baseCurrent(), [edit({}, 'input')]).input).toEqual({});
  });

  test('case 4: invalid target types are rejected by the effect schema (R3) or the object rule (R16)', () => {
    const bad: [string, unknown][] = [
      ['prompt', 'hello'],
      ['request', {}], // also absent from current
      ['response', [text()]],
      ['content', [text()]],
      ['instructions', [message()]],
      ['summary', 'hello'],
      ['input', []],
      ['workspace', null],
    ];
    for (const [target, value] of bad) rejects(baseCurrent(), [edit(value, target)], baseContext(), 'R3');
    rejects({ ...baseCurrent(), workspace: [] }, [edit({}, 'workspace')], baseContext(), 'R16');
  });

  test('case 6: elicitation content replace, merge and atomic failure (R12, R13, R14)', () => {
    const ctx = baseContext({ event: 'user.elicitation.result', elicitationMode: 'form', elicitationAction: 'accept' });
    const cur = (): Obj => ({ content: { keep: true, choices: ['old'] } });
    expect(apply(cur(), [edit({ choices: ['new'] }, 'content')], ctx).content).toEqual({ choices: ['new'] });
    expect(apply(cur(), [edit({ choices: ['new', 'new'] }, 'content', 'merge')], ctx).content).toEqual({
      keep: true,
      choices: ['new', 'new'],
    });
    expect(apply(cur(), [edit({}, 'content')], ctx).content).toEqual({});

    // A valid first edit does not survive a bad second one.
    const bad: [unknown, string][] = [
      [null, 'R3'], // neither a message list nor an object: the effect schema already says no
      [{ keep: null }, 'R14'],
      [{ bad: [1] }, 'R14'],
      [{ nested: {} }, 'R14'],
    ];
    for (const [value, rule] of bad) {
      const current = cur();
      rejects(current, [edit({ keep: false }, 'content'), edit(value, 'content')], ctx, rule);
      expect(current).toEqual(cur());
    }
    for (const [value, rule] of bad.slice(1)) rejects(cur(), [edit(value, 'content', 'merge')], ctx, rule);

    for (const [mode, action] of [
      ['', ''],
      ['url', 'accept'],
      ['form', 'cancel'],
      ['form', 'decline'],
    ] as const) {
      rejects(cur(), [edit({}, 'content')], { ...ctx, elicitationMode: mode, elicitationAction: action }, 'R12');
    }
    // The current answer must itself be an MCP answer object (R13).
    for (const current of [{ k: null }, { k: [1] }, { k: {} }, [], null]) {
      rejects({ content: current }, [edit({}, 'content')], ctx, 'R13');
      rejects({ content: current }, [edit({ x: 'y' }, 'content', 'merge')], ctx, 'R13');
    }
  });

  test('case 7: ordinary content and request types, elicitation request bounds (R15, R11)', () => {
    const boundaries: [string, string][] = [
      ['user.message.outbound', 'content'],
      ['model.request.before', 'request'],
    ];
    for (const [event, target] of boundaries) {
      const ctx = baseContext({ event });
      for (const op of ['replace', 'merge']) {
        // `content` admits an object in the effect schema, so only the runtime rule R15 stops it.
        const err = rejects(
          { [target]: [message()] },
          [edit({}, target, op)],
          ctx,
          target === 'content' ? 'R15' : 'R3',
        );
        expect(err.effectIndex).toBe(0);
      }
      expect(apply({ [target]: [message()] }, [edit([message()], target)], ctx)[target]).toEqual([message()]);
    }
    const req = baseContext({ event: 'user.elicitation.request' });
    rejects({ request: [message()] }, [edit({}, 'request')], req, 'R3');
    rejects({ request: [message()] }, [edit([message()], 'request')], req, 'R11');
    // A structured current value grants no object semantics outside the elicitation result.
    rejects({ content: {} }, [edit({}, 'content')], baseContext({ event: 'user.message.outbound' }), 'R15');
    rejects({ content: {} }, [edit({}, 'content')], baseContext(), 'R15');
  });

  test('case 8: output canonical replace and append at tool.after (R3, R17)', () => {
    const ctx = baseContext({ event: 'tool.after' });
    const cur = (): Obj => ({ output: [message()] });
    expect(apply(cur(), [edit([], 'output')], ctx).output).toEqual([]);
    expect(apply(cur(), [edit([message()], 'output', 'merge')], ctx).output).toEqual([message(), message()]);
    for (const value of [null, true, 12, 's', [1, 2], {}, [text()]]) {
      for (const op of ['replace', 'merge']) rejects(cur(), [edit(value, 'output', op)], ctx, 'R3');
    }
    for (const current of [null, {}, [text()]]) {
      rejects({ output: current }, [edit([message()], 'output')], ctx, 'R17');
    }
  });

  test('case 9: attachment preservation, removal and unauthorized swap (R19, R20)', () => {
    const cur = (): Obj => ({ prompt: [message([text(), attachment()])] });
    const authorized = baseContext({ authorizedAttachments: [attachment()] });
    const kept = [message([text('edited'), attachment()])];
    const current = cur();
    expect(apply(current, [edit(kept)], authorized).prompt).toEqual(kept);
    expect(apply(cur(), [edit([])], authorized).prompt).toEqual([]);
    expect((((current.prompt as Obj[])[0]!.parts as Obj[])[1]!.body as Obj).ref).toBe('opaque');

    // Being in `current` with a familiar ref is not authority.
    rejects(cur(), [edit(kept)], baseContext(), 'R20');
    rejects(cur(), [edit(kept, 'prompt', 'merge')], baseContext(), 'R20');

    // Editing the attachment in place fails even when both descriptors are authorized.
    const swapped = { ...attachment(), body: { ref: 'other' } };
    const retyped = { ...attachment(), mediaType: 'image/jpeg' };
    for (const changed of [swapped, retyped]) {
      const ctx = baseContext({ authorizedAttachments: [attachment(), changed] });
      rejects(cur(), [edit([message([text(), changed])])], ctx, 'R19');
    }
    // An attachment that also carries text is not canonical at all.
    const withText = { ...attachment(), text: 'bytes' };
    rejects(
      cur(),
      [edit([message([text(), withText])])],
      baseContext({ authorizedAttachments: [attachment(), withText] }),
      'R3',
    );

    // A new attachment id still needs exact authorization; one without a body needs none.
    const fresh = { ...attachment(), id: 'a2' };
    rejects(cur(), [edit([message([fresh])])], authorized, 'R20');
    expect(apply(cur(), [edit([message([fresh])])], baseContext({ authorizedAttachments: [fresh] })).prompt).toEqual([
      message([fresh]),
    ]);
    const { body: _b, ...metadataView } = { ...attachment(), id: 'a3', selection: 'metadata' } as Obj;
    expect(apply(cur(), [edit([message([metadataView])])]).prompt).toEqual([message([metadataView])]);
  });

  test('case 10: privacy and exact capabilities (R7, R8, R9, R10, R18)', () => {
    const effects = (): unknown[] => [edit([message()])];
    rejects(baseCurrent(), effects(), baseContext({ capabilities: [['prompt', 'merge']] }), 'R7');
    rejects(baseCurrent(), effects(), baseContext({ capabilities: [['response', 'replace']] }), 'R7');
    rejects(baseCurrent(), effects(), baseContext({ readable: [] }), 'R9');
    rejects(baseCurrent(), effects(), baseContext({ writable: [] }), 'R10');
    rejects(baseCurrent(), effects(), baseContext({ readable: new Set(['input']) }), 'R9');
    for (const view of ['metadata', 'omit', 'gap'] as const) {
      const selection = { ...baseContext().selection, prompt: view };
      rejects(baseCurrent(), effects(), baseContext({ selection }), 'R8');
    }
    const { prompt: _p, ...noPromptSelection } = baseContext().selection;
    rejects(baseCurrent(), effects(), baseContext({ selection: noPromptSelection }), 'R8');

    for (const { mode, withText, canonical } of hiddenViews()) {
      expect(canonicalPartErrors(withText), mode).not.toEqual([]);
      expect(canonicalPartErrors(canonical), mode).toEqual([]);
      expect(canonicalPartErrors(canonical, true), mode).toEqual([]);
      const err = rejects({ prompt: [message([canonical])] }, effects(), baseContext(), 'R18');
      expect(err.message).toBe('R18: whole-list replacement cannot remove or replace hidden text (prompt)');
    }
  });

  test('case 11: a new identity cannot replace hidden text (R18), append keeps it', () => {
    for (const { mode, canonical: hidden } of hiddenViews()) {
      const scenarios: [string, unknown[], unknown[]][] = [
        ['prompt', [message([hidden])], [message([text('x', 'new')], 'new-message')]],
        ['instructions', [hidden], [text('x', 'new')]],
      ];
      for (const [target, current, incoming] of scenarios) {
        rejects({ [target]: current }, [edit(incoming, target)], baseContext(), 'R18');
        rejects({ [target]: current }, [edit([], target)], baseContext(), 'R18');
        const out = apply({ [target]: current }, [edit(incoming, target, 'merge')]);
        expect(out[target], `${mode} ${target}`).toEqual([...current, ...incoming]);
      }
    }
    // Hidden attachments do not block whole-list replacement.
    const { body: _b, ...hiddenAttachment } = { ...attachment(), selection: 'omit' } as Obj;
    expect(apply({ prompt: [message([hiddenAttachment])] }, [edit([])]).prompt).toEqual([]);
    // Resubmitting a hidden part under its id must leave it exactly as it was (R19).
    const hidden = hiddenViews()[0]!.canonical;
    rejects(
      { instructions: [hidden] },
      [edit([{ ...hidden, sha256: 'a'.repeat(64) }], 'instructions', 'merge')],
      baseContext(),
      'R19',
    );
    expect(apply({ instructions: [hidden] }, [edit([hidden], 'instructions', 'merge')]).instructions).toEqual([
      hidden,
      hidden,
    ]);
  });

  test('case 12: atomic failure and serial chaining', () => {
    const base = baseCurrent();
    rejects(base, [edit([message([text('first')])]), edit('invalid')], baseContext(), 'R3');
    expect(base).toEqual(baseCurrent());

    const accepted = apply(base, [edit([message([text('first')])])]);
    const snapshot = cloneJson(accepted);
    rejects(accepted, [edit([message()], 'prompt', 'merge'), edit('bad')], baseContext(), 'R3');
    expect(accepted).toEqual(snapshot);

    const next = apply(accepted, [edit([message()], 'prompt', 'merge')]);
    expect(next.prompt).toHaveLength(2);
    expect(((next.prompt as Obj[])[0]!.parts as Obj[])[0]!.text).toBe('first');
    expect(accepted).toEqual(snapshot);

    // Serial inside one response: the merge sees the replace before it.
    expect(apply(baseCurrent(), [edit([]), edit([message()], 'prompt', 'merge')]).prompt).toEqual([message()]);
    // A non-modify effect fails the whole response closed.
    const err = rejects(baseCurrent(), [edit([]), { type: 'deny', reason: 'no' }], baseContext(), 'R4');
    expect(err.effectIndex).toBe(1);
  });

  test('case 13: content unions reuse distinct canonical definitions', () => {
    const content = wireSchemas()['content.schema.json'] as {
      $ref: string;
      $defs: Record<string, { oneOf?: { $ref: string }[] }>;
    };
    const eight = [
      'textBodyPart',
      'textGapPart',
      'textMetadataPart',
      'textOmittedPart',
      'attachmentBodyPart',
      'attachmentGapPart',
      'attachmentMetadataPart',
      'attachmentOmittedPart',
    ].map((n) => ({ $ref: `#/$defs/${n}` }));
    expect(content.$ref).toBe('#/$defs/part');
    expect(content.$defs.part!.oneOf).toEqual(eight);
    expect(content.$defs.textPart!.oneOf).toEqual(eight.slice(0, 4));

    const samples: Obj[] = [];
    for (const kind of ['text', 'attachment']) {
      const head = { id: `${kind}-x`, kind, mediaType: kind === 'text' ? 'text/plain' : 'image/png' };
      samples.push(
        kind === 'text'
          ? { ...head, selection: 'body', text: 'hi' }
          : { ...head, selection: 'body', body: { ref: 'r1' } },
        { ...head, selection: 'body', gap: { reason: 'too_large' } },
        { ...head, selection: 'metadata', size: 3, sha256: 'b'.repeat(64) },
        { ...head, selection: 'omit' },
      );
    }
    for (const s of samples) expect(canonicalPartErrors(s), JSON.stringify(s)).toEqual([]);
    const textOnlyByUnion = (p: Obj): boolean => canonicalPartErrors(p).length === 0 && p.kind === 'text';
    for (const s of samples) {
      for (const variant of [s, { ...s, unknown: true }, { ...s, kind: 'json' }]) {
        expect(canonicalPartErrors(variant, true).length === 0, JSON.stringify(variant)).toBe(textOnlyByUnion(variant));
      }
    }
  });

  test('case 14: the canonical schema rejects non-canonical parts (R3)', () => {
    const bad: Obj[] = [
      { ...text(), kind: 'json' },
      { ...text(), role: 'user' },
      { ...text(), parentItemId: 'm1' },
      { ...text(), unknown: true },
      { ...attachment(), mediaType: 'text/plain' },
      { ...attachment(), mediaType: 'application/json' },
      { id: 'p9', kind: 'text', mediaType: 'text/plain', selection: 'metadata', size: -1 },
    ];
    for (const part of bad) {
      expect(canonicalPartErrors(part), JSON.stringify(part)).not.toEqual([]);
      rejects(baseCurrent(), [edit([message([part])])], baseContext({ authorizedAttachments: [part] }), 'R3');
    }
  });
});

// ------------------------------------------------------------------ rules not covered above

test.describe('edit engine: rules', () => {
  test('R1: effects that are not a list', () => {
    for (const effects of [undefined, null, {}, 'modify', 1, { 0: edit([]), length: 1 }]) {
      rejects(baseCurrent(), effects, baseContext(), 'R1');
    }
  });

  test('R2: effects holding non-JSON values', () => {
    const cyclic: Obj = edit([]);
    cyclic.self = cyclic;
    const sparse: unknown[] = [];
    sparse[1] = edit([]);
    const cases: unknown[] = [
      [edit([message([text()])]), edit(Number.NaN)],
      [edit(Number.POSITIVE_INFINITY, 'input')],
      [edit({ x: Number.NEGATIVE_INFINITY }, 'input', 'merge')],
      [edit(undefined)],
      [edit({ f: () => 1 }, 'input')],
      [edit(new Date(0), 'input')],
      [edit({ n: 1n }, 'input')],
      sparse,
    ];
    for (const effects of cases) {
      const err = rejects(baseCurrent(), effects, baseContext(), 'R2');
      if (effects !== sparse) expect(err.effectIndex).toBe((effects as unknown[]).length - 1);
    }
    // A cycle cannot be frozen-and-snapshotted by the helper; call the engine directly.
    let caught: unknown;
    try {
      applyModifyResponse(baseCurrent(), [cyclic], baseContext());
    } catch (err) {
      caught = err;
    }
    expect((caught as EditRejected).rule).toBe('R2');
  });

  test('R3: a later bad member rejects the response before staging', () => {
    const err = rejects(baseCurrent(), [edit([]), edit([], 'prompt', 'delete')], baseContext(), 'R3');
    expect(err.effectIndex).toBe(1);
    rejects(baseCurrent(), [{ ...edit([]), extra: true }], baseContext(), 'R3');
    rejects(baseCurrent(), [{ type: 'modify', target: 'prompt', operation: 'replace' }], baseContext(), 'R3');
    rejects(baseCurrent(), [edit([], 'nonsense')], baseContext(), 'R3');
    rejects(baseCurrent(), [{ type: 'teleport' }], baseContext(), 'R3');
  });

  test('R4: every schema-valid non-modify effect fails closed', () => {
    const others: Obj[] = [
      { type: 'deny', reason: 'no' },
      { type: 'allow' },
      { type: 'ask' },
      { type: 'message', text: 'hi' },
      { type: 'return', value: 1 },
      { type: 'flow', operation: 'stop', reason: 'done' },
      { type: 'flow', operation: 'continue' },
      { type: 'inject', target: 'context', operation: 'append', deliverAt: 'now', value: [message()] },
    ];
    for (const effect of others) {
      const err = rejects(baseCurrent(), [effect], baseContext(), 'R4');
      expect(err.effectIndex).toBe(0);
      expect(err.message).toContain('expected a strict modify effect');
    }
  });

  test('R5/R21: rules behind the effect schema (permissive stand-in schema)', () => {
    const ctx = baseContext({ schemas: permissiveEffectSchemas() });
    rejects(baseCurrent(), [edit([], 42 as unknown as string)], ctx, 'R5');
    rejects(baseCurrent(), [edit([], 'prompt', null as unknown as string)], ctx, 'R5');
    // With type and target still checked at runtime, R4 holds even without the schema.
    rejects(baseCurrent(), [{ ...edit([]), extra: 1 }], ctx, 'R4');
    // R21: merge needs object + object or list + list.
    rejects(baseCurrent(), [edit([], 'input', 'merge')], ctx, 'R21');
    rejects(baseCurrent(), [edit('text', 'input', 'merge')], ctx, 'R21');
    const custom = baseContext({
      schemas: permissiveEffectSchemas(),
      capabilities: [['custom', 'merge']],
      selection: { custom: 'body' },
      readable: ['custom'],
      writable: ['custom'],
    });
    rejects({ custom: [1] }, [edit([2], 'custom', 'merge')], custom, 'R21');
    // A text-part target never reads a non-list value (R15, defence in depth).
    rejects(baseCurrent(), [edit({}, 'instructions', 'merge')], ctx, 'R15');
  });

  test('R6: target absent from the current state', () => {
    rejects(baseCurrent(), [edit([text()], 'summary')], baseContext(), 'R6');
    rejects(baseCurrent(), [edit([message()], 'response', 'merge')], baseContext(), 'R6');
  });

  test('R11: boundary capability definitions decide the target', () => {
    const allowed: [string, string, unknown, unknown][] = [
      ['context.compact.before', 'instructions', [text()], [text('short', 'p2')]],
      ['context.compact.after', 'summary', [text()], [text('sum', 'p2')]],
      ['model.response.after', 'response', [message()], [message()]],
      ['tool.after', 'output', [message()], [message()]],
      ['user.message.outbound', 'content', [message()], [message()]],
      ['model.request.before', 'request', [message()], [message()]],
      ['turn.start', 'prompt', [message()], [message()]],
      ['workspace.change.before', 'workspace', {}, { a: 1 }],
      ['tool.before', 'input', {}, { a: 1 }],
    ];
    for (const [event, target, current, value] of allowed) {
      for (const op of ['replace', 'merge']) {
        expect(
          () => apply({ [target]: current }, [edit(value, target, op)], baseContext({ event })),
          `${event} ${target}`,
        ).not.toThrow();
      }
    }
    expect(
      apply(
        { content: {} },
        [edit({ a: 'b' }, 'content')],
        baseContext({ event: 'user.elicitation.result', elicitationMode: 'form', elicitationAction: 'accept' }),
      ).content,
    ).toEqual({ a: 'b' });

    const refused: [string, string, unknown, unknown][] = [
      ['context.compact.before', 'summary', [text()], [text()]],
      ['context.compact.after', 'instructions', [text()], [text()]],
      ['model.response.after', 'input', {}, {}],
      ['user.elicitation.request', 'request', [message()], [message()]],
      ['tool.after', 'input', {}, {}],
      ['turn.end', 'prompt', [message()], [message()]], // observe-only: no capability definition
      ['no.such.event', 'prompt', [message()], [message()]], // unknown: fails closed
      ['TOOL.AFTER', 'output', [message()], [message()]],
    ];
    for (const [event, target, current, value] of refused) {
      const err = rejects({ [target]: current }, [edit(value, target)], baseContext({ event }), 'R11');
      expect(err.message).toContain('modify target is not supported at this boundary');
    }
  });
});

// ------------------------------------------------------------------ helpers and context

test.describe('edit engine: API surface', () => {
  test('EditRejected carries the rule, the effect index and a readable message', () => {
    const err = rejects(
      baseCurrent(),
      [edit([], 'input', 'merge'), edit([message()], 'prompt', 'merge')],
      baseContext({ capabilities: [['input', 'merge']] }),
      'R3',
    );
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('EditRejected');
    expect(err.effectIndex).toBe(0);
    const r7 = rejects(
      baseCurrent(),
      [edit({}, 'input', 'merge'), edit([message()], 'prompt', 'merge')],
      baseContext({ capabilities: [['input', 'merge']] }),
      'R7',
    );
    expect(r7.effectIndex).toBe(1);
    expect(rejects(baseCurrent(), 'x', baseContext(), 'R1').effectIndex).toBeUndefined();
  });

  test('readable and writable accept arrays as well as sets', () => {
    const ctx = baseContext({ readable: ['prompt'], writable: ['prompt'] });
    expect(apply(baseCurrent(), [edit([])], ctx).prompt).toEqual([]);
  });

  test('an empty response returns a detached copy of current', () => {
    const current = baseCurrent();
    const out = apply(current, []);
    expect(out).toEqual(baseCurrent());
    expect(out).not.toBe(current);
  });

  test('the result never aliases the inputs (deep-frozen inputs stay intact)', () => {
    const current = baseCurrent();
    const effects = [
      edit({ nested: { deep: [1, { x: 2 }] } }, 'input', 'merge'),
      edit([message([text('a')])], 'prompt', 'merge'),
      edit([text('b', 'p2')], 'instructions'),
    ];
    const out = apply(current, effects);
    // The result is ours to change: nothing in it is frozen or shared.
    ((out.input as Obj).nested as Obj).deep = 'changed';
    (out.prompt as unknown[]).push('x');
    (out.workspace as Obj).y = 1;
    expect(current).toEqual(baseCurrent());
    expect((effects[0]!.value as Obj).nested).toEqual({ deep: [1, { x: 2 }] });
  });

  test('permissiveEditContext grants every current key (checker.md 1.6 step 4)', () => {
    const ctx = permissiveEditContext({ event: 'tool.after', current: { output: [], input: {} } });
    expect(ctx.capabilities).toEqual([
      ['output', 'replace'],
      ['output', 'merge'],
      ['input', 'replace'],
      ['input', 'merge'],
    ]);
    expect(ctx.selection).toEqual({ output: 'body', input: 'body' });
    expect([...ctx.readable]).toEqual(['output', 'input']);
    expect([...ctx.writable]).toEqual(['output', 'input']);
    expect(ctx.authorizedAttachments).toEqual([]);
    expect([ctx.event, ctx.elicitationMode, ctx.elicitationAction]).toEqual(['tool.after', '', '']);
    expect(ctx.schemas).toBeUndefined();
    const full = permissiveEditContext({ current: {}, mode: 'form', action: 'accept' }, ourSchemas());
    expect([full.event, full.elicitationMode, full.elicitationAction]).toEqual(['', 'form', 'accept']);
    expect(full.schemas).toBe(ourSchemas());
  });

  test('canonicalListErrors judges both list families', () => {
    expect(canonicalListErrors([message()], 'messages')).toEqual([]);
    expect(canonicalListErrors([text()], 'text-parts')).toEqual([]);
    expect(canonicalListErrors([text()], 'messages')).not.toEqual([]);
    expect(canonicalListErrors([message()], 'text-parts')).not.toEqual([]);
    expect(canonicalListErrors({}, 'messages')).not.toEqual([]);
    expect(canonicalListErrors([message([{ ...text(), role: 'user' }])], 'messages')).not.toEqual([]);
    expect(canonicalListErrors([{ ...message(), role: 'vendor-role' }], 'messages')).not.toEqual([]);
    expect(canonicalListErrors([attachment()], 'text-parts')).not.toEqual([]);
  });
});

// ------------------------------------------------------------------ case 5: contextual fixtures

const SPEC_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/ahp-spec');
const MANIFEST = resolve(SPEC_DIR, 'fixtures/draft/manifest.json');

interface ContextualCase {
  id: string;
  path: string;
  expectedValid: boolean;
  contextualExpectedValid: boolean;
  editContext: { event?: string; current: Obj; mode?: string; action?: string };
}

test.describe('edit engine: contextual fixtures (checker.md 4.1 case 5, 4.3)', () => {
  test('every editContext case agrees with contextualExpectedValid under the permissive host context', () => {
    test.skip(!existsSync(MANIFEST), `upstream snapshot not found at ${SPEC_DIR}`);
    const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as {
      cases: (ContextualCase & { editContext?: unknown })[];
    };
    const cases = manifest.cases.filter((c): c is ContextualCase => c.editContext !== undefined);
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) {
      expect(typeof c.contextualExpectedValid, c.id).toBe('boolean');
      const parsed = parseJsonBytes(readFileSync(resolve(SPEC_DIR, c.path)));
      expect(parsed.ok, c.id).toBe(true);
      if (!parsed.ok) continue;
      const effects = (parsed.value as { result?: { effects?: unknown } }).result?.effects;
      const currentBefore = cloneJson(c.editContext.current);
      let result: Obj | undefined;
      let rejection: unknown;
      try {
        result = applyModifyResponse(c.editContext.current, effects, permissiveEditContext(c.editContext));
      } catch (err) {
        rejection = err;
      }
      expect(c.editContext.current, `${c.id}: editContext.current mutated`).toEqual(currentBefore);
      if (rejection !== undefined) expect(rejection, c.id).toBeInstanceOf(EditRejected);
      expect(result !== undefined, `${c.id}: ${(rejection as Error | undefined)?.message ?? 'accepted'}`).toBe(
        c.contextualExpectedValid,
      );
      // A schema-invalid response is never contextually valid.
      if (!c.expectedValid) expect(c.contextualExpectedValid, c.id).toBe(false);
      if (result === undefined) continue;

      // The accepted candidate is exactly the single effect applied to its target.
      const [effect] = effects as Obj[];
      const target = effect!.target as string;
      const old = currentBefore[target];
      const value = effect!.value;
      const expected =
        effect!.operation === 'replace'
          ? value
          : Array.isArray(old)
            ? [...old, ...(value as unknown[])]
            : { ...(old as Obj), ...(value as Obj) };
      expect(result[target], c.id).toEqual(expected);
    }
  });
});
