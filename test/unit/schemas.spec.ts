// Our generated schemas: in step with the catalogue, strict-clean, and complete.
import { test, expect } from '@playwright/test';
import { resolve } from 'node:path';
import { staleSchemaFiles } from '../../scripts/generate-schemas.js';
import { EVENTS, INTERCEPTABLE_EVENTS, RETURN_EVENTS, CONTINUE_EVENTS } from '../../src/protocol/catalogue.js';
import { KINDS } from '../../src/protocol/kinds.js';
import { ourSchemas } from '../../src/protocol/schema-set.js';
import { wireSchemas } from '../../src/protocol/schema-build/index.js';
import { ROOT } from '../support/paths.js';

test('schemas/draft on disk equals what the catalogue generates (run npm run gen:schemas)', () => {
  expect(staleSchemaFiles(resolve(ROOT, 'schemas', 'draft'))).toEqual([]);
});

test('every kind compiles under ajv strict mode', () => {
  for (const k of KINDS) expect(() => ourSchemas().forKind(k.kind), k.kind).not.toThrow();
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

test('every schema document has our $id, the 2020-12 dialect and a title', () => {
  for (const [name, doc] of Object.entries(wireSchemas())) {
    expect(String(doc.$id)).toMatch(new RegExp(`/schemas/draft/${name.replace('.', '\\.')}$`));
    expect(doc.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(typeof doc.title).toBe('string');
  }
});
