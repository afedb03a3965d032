// Our generated schemas: in step with the catalogue, strict-clean, and complete.
import { test, expect } from '@playwright/test';
import { resolve } from 'node:path';
import { snapshotSchemaDir, staleSchemaFiles } from '../../scripts/generate-schemas.js';
import { EVENTS, INTERCEPTABLE_EVENTS, RETURN_EVENTS, CONTINUE_EVENTS } from '../../src/protocol/catalogue.js';
import { kindsOf, KINDS } from '../../src/protocol/kinds.js';
import { ourSchemas, SchemaSetError } from '../../src/protocol/schema-set.js';
import { wireSchemas } from '../../src/protocol/schema-build/index.js';
import { SNAPSHOT_IDS } from '../../src/protocol/snapshots.js';
import { validate } from '../../src/protocol/validator.js';
import { ROOT } from '../support/paths.js';

for (const snapshot of SNAPSHOT_IDS) {
  test(`schemas/${snapshot} on disk equals what the catalogue generates (run npm run gen:schemas)`, () => {
    expect(staleSchemaFiles(snapshotSchemaDir(resolve(ROOT, 'schemas'), snapshot), snapshot)).toEqual([]);
  });

  test(`every ${snapshot} kind compiles under ajv strict mode; the others are not part of it`, () => {
    const has = new Set(kindsOf(snapshot).map((k) => k.kind));
    for (const k of KINDS) {
      if (has.has(k.kind)) expect(() => ourSchemas(snapshot).forKind(k.kind), k.kind).not.toThrow();
      else expect(() => ourSchemas(snapshot).forKind(k.kind), k.kind).toThrow(SchemaSetError);
    }
  });

  test(`every ${snapshot} schema document has our $id, the 2020-12 dialect and a title`, () => {
    for (const [name, doc] of Object.entries(wireSchemas(snapshot))) {
      expect(String(doc.$id)).toBe(`https://ahp-conformance.invalid/schemas/${snapshot}/${name}`);
      expect(doc.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(typeof doc.title).toBe('string');
    }
  });
}

test('configuration kinds exist only where the snapshot has hooks/configuration', () => {
  expect(kindsOf('draft@2b5da580').some((k) => k.kind.startsWith('configuration'))).toBe(false);
  expect(
    kindsOf('draft@1d98c19')
      .filter((k) => k.kind.startsWith('configuration'))
      .map((k) => k.kind),
  ).toEqual(['configuration-request', 'configuration-response', 'configuration']);
  expect(() => ourSchemas('draft@2b5da580').forKind('configuration-request')).toThrow(/not part of draft@2b5da580/);
  // validate says so as one wire finding rather than throwing; the default snapshot is the oldest.
  const req = { jsonrpc: '2.0', id: 1, method: 'hooks/configuration', params: { protocolVersion: 'draft' } };
  expect(validate('configuration-request', req).map((f) => f.code)).toEqual(['kind.not-in-snapshot']);
  expect(validate('configuration-request', req, { snapshot: 'draft@1d98c19' })).toEqual([]);
});

test('the catalogue has the 32 draft events, 19 of them interceptable', () => {
  expect(EVENTS).toHaveLength(32);
  expect(new Set(EVENTS.map((e) => e.type)).size).toBe(32);
  expect(INTERCEPTABLE_EVENTS).toHaveLength(19);
  for (const e of EVENTS) {
    if (!e.interceptable) expect([e.effects, e.modifyTargets, e.flowOperations].flat(), e.type).toEqual([]);
    if (e.modifyTargets.length) expect(e.effects, e.type).toContain('modify');
    if (e.flowOperations.length) expect(e.effects, e.type).toContain('flow');
    expect(
      e.effects.includes('message') || !e.interceptable,
      `${e.type}: message is valid at every interceptable event`,
    ).toBe(true);
  }
});

test('return and continue are allowed only where the capability rules say', () => {
  expect([...RETURN_EVENTS].sort()).toEqual([
    'context.compact.before',
    'model.request.before',
    'tool.before',
    'user.elicitation.request',
  ]);
  expect([...CONTINUE_EVENTS].sort()).toEqual(['tool.after', 'turn.finish.before']);
});
