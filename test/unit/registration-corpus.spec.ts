// The invalid-registration corpus of base.registration-validated contains only documents
// our wire validator rejects (no rule invented beyond the snapshot), each applied to a
// registration that is itself valid, for both transports.
import { test, expect } from '@playwright/test';
import {
  appliesTo,
  JUDGED_SNAPSHOT,
  REGISTRATION_CORPUS,
  REGISTRATION_CORPUS_ALL,
  SNAPSHOTS,
} from '../../src/checks/registration-corpus.js';
import { isWireValid, validate } from '../../src/protocol/validator.js';

function base(transport: 'stdio' | 'http'): Record<string, unknown> {
  const t = (name: string) =>
    transport === 'stdio'
      ? { type: 'stdio', command: '/usr/bin/node', args: ['backend.js', '--hook', name], lifecycle: 'persistent' }
      : { type: 'http', url: `http://127.0.0.1:9/hooks/${name}?via=ahp-conformance` };
  return {
    protocolVersion: 'draft',
    hooks: [
      {
        id: 'dev.ahp-conformance.a',
        transport: t('a'),
        subscriptions: [
          {
            events: ['tool.before'],
            mode: 'intercept',
            timeoutMs: 2000,
            failurePolicy: 'fail-open',
            content: { default: 'body' },
          },
        ],
      },
      {
        id: 'dev.ahp-conformance.obs',
        transport: t('obs'),
        subscriptions: [
          { events: ['session.start', 'tool.after', 'session.end'], mode: 'observe', content: { default: 'body' } },
        ],
      },
    ],
  };
}

for (const transport of ['stdio', 'http'] as const) {
  test(`the corpus base registration is valid (${transport})`, () => {
    expect(validate('registration', base(transport), { wireOnly: true })).toEqual([]);
  });
  for (const entry of REGISTRATION_CORPUS) {
    test(`corpus ${entry.id} is invalid under our validator (${transport})`, () => {
      const doc = structuredClone(base(transport));
      entry.mutate(doc);
      expect(isWireValid(validate('registration', doc, { wireOnly: true })), entry.why).toBe(false);
    });
  }
}

test('corpus ids are unique', () => {
  expect(new Set(REGISTRATION_CORPUS.map((e) => e.id)).size).toBe(REGISTRATION_CORPUS.length);
});

test("corpus entries carry snapshot applicability: only the judged snapshot's invalid documents are sent", () => {
  const missing = REGISTRATION_CORPUS_ALL.find((e) => e.id === 'subscriptions-missing');
  expect(missing?.invalidIn).toEqual([SNAPSHOTS.draft]);
  expect(JUDGED_SNAPSHOT).toBe(SNAPSHOTS.draft);
  expect(REGISTRATION_CORPUS.map((e) => e.id)).toContain('subscriptions-missing');
  expect(appliesTo(missing!.invalidIn, SNAPSHOTS.newer)).toBe(false);
  for (const e of REGISTRATION_CORPUS_ALL) expect(REGISTRATION_CORPUS.includes(e)).toBe(appliesTo(e.invalidIn));
});
