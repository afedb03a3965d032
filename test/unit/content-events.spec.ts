// The content sample events (suites/support/content-events.ts): every boundary, view and
// advertisement builds an intercept request valid under both pinned snapshots, with the
// content where the boundary keeps it, and an edit context under which the engine
// accepts a conforming edit and rejects one of hidden content or of the wrong kind.
import { expect, test } from '@playwright/test';
import { BOUNDARIES, type ContentSample } from '../../src/checks/boundaries.js';
import { applyModifyResponse, EditRejected } from '../../src/protocol/edit.js';
import { ourSchemas } from '../../src/protocol/schema-set.js';
import { SNAPSHOT_IDS } from '../../src/protocol/snapshots.js';
import { isWireValid, validate } from '../../src/protocol/validator.js';
import { contentProbe, type ContentProbeOptions } from '../../suites/support/content-events.js';
import { contentEffects } from '../../reference/backend/content.js';
import type { FaultMode } from '../../reference/backend/faults.js';
import { FaultProbe } from '../../reference/fault-probe.js';

type Obj = Record<string, unknown>;
const CONFORMING = new FaultProbe<FaultMode>(undefined);

const OPTIONS: ContentProbeOptions[] = [
  { view: 'body' },
  { view: 'metadata' },
  { view: 'omit' },
  { view: 'body', attachment: true },
  { view: 'metadata', attachment: true },
  { view: 'body', hiddenPart: true },
  { advertised: 'none' },
  { advertised: 'merge' },
  { advertised: 'replace' },
];

const at = (event: Obj, path: string): unknown =>
  path.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Obj)[k] : undefined), event);

for (const b of BOUNDARIES) {
  test(`${b.event}: every probe is a valid intercept under both snapshots`, () => {
    for (const opts of OPTIONS) {
      if (opts.attachment && b.family !== 'messages') continue;
      if (opts.hiddenPart && b.family !== 'text-parts') continue;
      if (!b.target && (opts.advertised === 'merge' || opts.advertised === 'replace')) continue;
      const probe = contentProbe({ event: b.event }, opts);
      for (const snapshot of SNAPSHOT_IDS) {
        const findings = validate('intercept-request', probe.request, { wireOnly: true, snapshot });
        expect(
          isWireValid(findings),
          `${b.event} ${JSON.stringify(opts)} ${snapshot}: ${JSON.stringify(findings)}`,
        ).toBe(true);
      }
      expect(at(probe.event, b.path), `${b.event}: content at ${b.path}`).toBeDefined();
      expect(Object.keys(probe.current)).toEqual(b.target ? [b.target] : []);
    }
  });
}

test('the sample text, tool and elicitation land where the boundary keeps them', () => {
  const inbound = contentProbe({ event: 'user.message.inbound', text: 'hello there' });
  expect(at(inbound.event, 'message.messages')).toEqual([
    {
      id: 'm1',
      role: 'user',
      parts: [{ id: 'p1', kind: 'text', mediaType: 'text/plain', selection: 'body', text: 'hello there' }],
    },
  ]);
  const tool = contentProbe({ event: 'tool.after', tool: { name: 'grep', input: { q: 'x' } } });
  expect((tool.event.tool as Obj).name).toBe('grep');
  expect((at(tool.event, 'items') as Obj[])[0]!.role).toBe('tool');
  const sample: ContentSample = {
    event: 'user.elicitation.result',
    elicitation: { server: 's', content: { answer: 'no' } },
  };
  const result = contentProbe(sample);
  const part = at(result.event, 'elicitation.result') as Obj;
  expect(JSON.parse(part.text as string)).toEqual({ action: 'accept', content: { answer: 'no' } });
  expect(result.current).toEqual({ content: { answer: 'no' } });
  // The hidden view carries neither text nor body.
  const hidden = contentProbe({ event: 'model.request.before' }, { view: 'metadata', attachment: true });
  const parts = (at(hidden.event, 'items') as Obj[])[0]!.parts as Obj[];
  expect(parts.every((p) => !('text' in p) && !('body' in p))).toBe(true);
});

for (const snapshot of SNAPSHOT_IDS) {
  test(`${snapshot}: the reference backend's edits pass the engine where shown, and none is made where hidden`, () => {
    const schemas = ourSchemas(snapshot);
    for (const b of BOUNDARIES) {
      const body = contentProbe({ event: b.event });
      const caps = (body.request.params as Obj).capabilities;
      const effects = contentEffects(body.event as never, caps, b.target ? 'a note' : undefined, CONFORMING);
      expect(effects.length, b.event).toBe(b.target ? 1 : 0);
      expect(() => applyModifyResponse(body.current, effects, { ...body.context, schemas }), b.event).not.toThrow();
      const hidden = contentProbe({ event: b.event }, { view: 'metadata' });
      const hiddenCaps = (hidden.request.params as Obj).capabilities;
      expect(contentEffects(hidden.event as never, hiddenCaps, 'a note', CONFORMING), b.event).toEqual([]);
      // What the edit-hidden fault sends there, a harness rejects.
      const faulty = contentEffects(
        hidden.event as never,
        hiddenCaps,
        'a note',
        new FaultProbe<FaultMode>('edit-hidden'),
      );
      expect(faulty.length, b.event).toBe(1);
      expect(() => applyModifyResponse(hidden.current, faulty, { ...hidden.context, schemas }), b.event).toThrow(
        EditRejected,
      );
    }
  });
}
