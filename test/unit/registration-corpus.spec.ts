// The invalid-registration corpus of base.registration-validated contains only documents
// our wire validator rejects under each snapshot that holds them invalid (no rule invented
// beyond the snapshot), and accepts under the others, each applied to a registration that is
// itself valid, for both transports.
import { test, expect } from '@playwright/test';
import {
  appliesTo,
  REGISTRATION_CORPUS_ALL,
  REGISTRATION_CORPUS_MAX,
  registrationCorpus,
} from '../../src/checks/registration-corpus.js';
import { SNAPSHOT_IDS } from '../../src/protocol/snapshots.js';

const REGISTRATION_CORPUS = registrationCorpus('draft@2b5da580');
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
  for (const snapshot of SNAPSHOT_IDS) {
    test(`the corpus base registration is valid (${transport}, ${snapshot})`, () => {
      expect(validate('registration', base(transport), { wireOnly: true, snapshot })).toEqual([]);
    });
    for (const entry of REGISTRATION_CORPUS_ALL) {
      const invalid = appliesTo(entry.invalidIn, snapshot);
      test(`corpus ${entry.id} is ${invalid ? 'invalid' : 'valid'} under our validator (${transport}, ${snapshot})`, () => {
        const doc = structuredClone(base(transport));
        entry.mutate(doc);
        expect(isWireValid(validate('registration', doc, { wireOnly: true, snapshot })), entry.why).toBe(!invalid);
      });
    }
  }
}

test('corpus ids are unique', () => {
  expect(new Set(REGISTRATION_CORPUS.map((e) => e.id)).size).toBe(REGISTRATION_CORPUS.length);
});

test("corpus entries carry snapshot applicability: a claim's snapshot selects the documents it holds invalid", () => {
  const missing = REGISTRATION_CORPUS_ALL.find((e) => e.id === 'subscriptions-missing');
  expect(missing?.invalidIn).toEqual(['draft@2b5da580']);
  expect(registrationCorpus('draft@2b5da580').map((e) => e.id)).toContain('subscriptions-missing');
  expect(registrationCorpus('draft@1d98c19').map((e) => e.id)).not.toContain('subscriptions-missing');
  expect(appliesTo(missing!.invalidIn, 'draft@1d98c19')).toBe(false);
  for (const snapshot of SNAPSHOT_IDS)
    for (const e of REGISTRATION_CORPUS_ALL)
      expect(registrationCorpus(snapshot).includes(e)).toBe(appliesTo(e.invalidIn, snapshot));
  // The newer snapshot only relaxes: its corpus is part of the older one's.
  for (const e of registrationCorpus('draft@1d98c19')) expect(REGISTRATION_CORPUS).toContain(e);
  expect(REGISTRATION_CORPUS_MAX).toBe(REGISTRATION_CORPUS.length);
});
