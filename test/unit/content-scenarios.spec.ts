// The harness content scenarios (suites/support/content-scenarios.ts) do what their steps
// say when a harness advertises every edit of the target: each step's answers are accepted
// or rejected as designed, so each check has something to catch. The oracle is fed frames
// a conforming harness would send (the chain's value at the boundary path).
import { test, expect } from '@playwright/test';
import { BOUNDARIES, type Boundary } from '../../src/checks/boundaries.js';
import { eventSpec } from '../../src/protocol/catalogue.js';
import { applyModifyResponse, canonicalListErrors } from '../../src/protocol/edit.js';
import { isWireValid, validate } from '../../src/protocol/validator.js';
import { SNAPSHOTS } from '../../src/protocol/snapshots.js';
import { CONTENT_HOOKS, contentScenario, OBSERVER, viewOf } from '../../suites/support/content-scenarios.js';
import { expectations } from '../../suites/support/content-oracle.js';
import type { HarnessRun } from '../../suites/support/harness-session.js';
import type { WireRecord } from '../../drivers/scripted-backend/script.js';

type Obj = Record<string, unknown>;

/** A run whose frames advertise modify of the target and carry a placeholder at the path (the oracle reads only capabilities). */
function fakeRun(b: Boundary, steps: number): HarnessRun {
  const records: WireRecord[] = [];
  for (const { name } of CONTENT_HOOKS)
    for (let i = 0; i < steps; i++) {
      const message = {
        jsonrpc: '2.0',
        id: i + 1,
        method: 'hooks/intercept',
        params: {
          event: { type: b.event },
          capabilities: b.target
            ? { effects: ['modify'], modify: { [b.target]: { replace: true, merge: true } } }
            : { effects: ['deny'] },
        },
      };
      records.push({
        t: i,
        hook: name,
        transport: 'stdio',
        kind: 'frame',
        method: 'hooks/intercept',
        message,
        text: JSON.stringify(message),
      });
    }
  return { records, effective: {}, markers: {} } as unknown as HarnessRun;
}

const ruling = (t: { rejected?: string; accepted?: unknown; denied?: boolean; effects: unknown[] }): string =>
  t.effects.length === 0 ? '-' : t.denied ? 'denied' : t.rejected !== undefined ? 'rejected' : 'accepted';

// What each step is for (content-scenarios.ts): accepted/rejected per hook a, b, z, m, o.
const DESIGN: Record<string, string[]> = {
  c1: ['accepted', 'accepted', '-', '-', '-'],
  c2: ['accepted', 'rejected', '-', '-', '-'],
  c3: ['-', '-', '-', 'rejected', 'rejected'],
  c5: ['rejected', 'rejected', '-', '-', '-'],
  // A modify of a target the intercept did not advertise rejects a's whole response.
  c6: ['rejected', 'accepted', '-', '-', '-'],
  // The fail-closed z's response is rejected: the chain stops there.
  c7: ['-', '-', 'rejected', '-', '-'],
};

for (const snapshot of SNAPSHOTS.map((s) => s.id)) {
  for (const b of BOUNDARIES) {
    test(`${snapshot} ${b.event}: the steps' answers are accepted and rejected as designed`, () => {
      const sc = contentScenario(b, snapshot);
      const exp = expectations(fakeRun(b, sc.info.length), sc, snapshot);
      const got = Object.fromEntries(exp.map((e) => [e.step.id.split('.').pop()!, e.turns.map(ruling)]));
      // The chains that stop come last (their uncalled hooks keep their ordinals), c8 only where deny is allowed.
      const names = Object.keys(got);
      expect(names.slice(-2).filter((n) => n === 'c7' || n === 'c8')).toEqual(
        names.includes('c8') ? ['c7', 'c8'] : ['c7'],
      );
      expect(names.includes('c8')).toBe(eventSpec(b.event)!.effects.includes('deny'));
      if (got.c8) expect(got.c8).toEqual(['-', 'denied', '-', '-', '-']);
      expect(exp.filter((e) => e.step.stops).map((e) => e.step.id.split('.').pop())).toEqual(
        names.filter((n) => n === 'c7' || n === 'c8'),
      );
      if (!b.target) {
        // No request modification: every modify answered is rejected, the request goes on unchanged.
        expect(got.c1).toEqual(['rejected', '-', '-', 'rejected', '-']);
        expect(got.c7).toEqual(DESIGN.c7);
        for (const e of exp) expect(e.effective).toEqual(e.step.original);
        return;
      }
      for (const [step, want] of Object.entries(DESIGN))
        expect(got[step], `${step}: ${JSON.stringify(exp.map((e) => e.turns.map((t) => t.rejected)))}`).toEqual(want);
      // c6 is rejected for its target alone: both effects pass the snapshot's effect schema, and
      // the foreign target's value is of the kind the boundary's own target takes.
      const c6 = sc.info.find((x) => x.id.endsWith('.c6'))!;
      expect(isWireValid(validate('effects', c6.answers.a, { wireOnly: true, snapshot }))).toBe(true);
      const foreign = c6.answers.a[1] as Obj;
      expect(foreign.target).not.toBe(b.target);
      expect(eventSpec(b.event)!.modifyTargets).not.toContain(foreign.target);
      const start = b.family === 'mcp-result' ? (c6.original as Obj).content : c6.original;
      expect(() =>
        applyModifyResponse({ [b.target!]: start }, [{ ...foreign, target: b.target }], {
          ...exp.find((e) => e.step.id === c6.id)!.turns[0]!.context!,
        }),
      ).not.toThrow();
      // c4: the protected edit is rejected; where a valid edit stands beside it, it applies.
      expect(got.c4![0]).toBe('rejected');
      // The chain changes the value where an edit was accepted, and only there.
      for (const e of exp) {
        const changed = e.turns.some((t) => t.accepted !== undefined);
        expect(JSON.stringify(e.effective) !== JSON.stringify(e.step.original)).toBe(changed);
      }
    });
  }
}

test('content steps hand over canonical content with ids that carry the step', () => {
  for (const b of BOUNDARIES) {
    const sc = contentScenario(b, 'draft@2b5da580');
    // The interceptors with their views, then the observer.
    expect(
      sc.hooks.map((h) => [h.name, h.subscriptions[0]!.mode, (h.subscriptions[0]!.content as Obj).default]),
    ).toEqual([...CONTENT_HOOKS.map((h) => [h.name, 'intercept', viewOf(h.name)]), [OBSERVER, 'observe', 'body']]);
    for (const s of sc.info) {
      if (b.family === 'messages' || b.family === 'text-parts') {
        expect(canonicalListErrors(s.original, b.family)).toEqual([]);
        expect(JSON.stringify(s.original)).toContain(`"${s.id}.`);
      }
      expect(sc.steps.find((x) => x.id === s.id)!.kind).toBe(b.step);
    }
  }
});
