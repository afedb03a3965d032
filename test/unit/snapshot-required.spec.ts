// A snapshot's schemas may require what our profile layer only recommends (an event's
// `harness`): `validate --spec` reports it once, as the wire error, not again as a warning.
import { test, expect } from '@playwright/test';
import type { ErrorObject } from 'ajv';
import { ourSchemas, type SchemaSet } from '../../src/protocol/schema-set.js';
import { validate } from '../../src/protocol/validator.js';

const request = {
  jsonrpc: '2.0',
  id: 'evt-1',
  method: 'hooks/intercept',
  params: {
    protocolVersion: 'draft',
    capabilities: { effects: ['deny'] },
    event: {
      id: 'evt-1',
      source: 'ahp://harness/test',
      type: 'tool.before',
      time: '2026-11-30T12:00:00Z',
      call: { id: 'call-1' },
      tool: { name: 'shell', input: { command: 'ls' }, origin: 'native' },
      path: 'shell',
    },
  },
};

/** Our schemas, except that they also require `harness` in the event, as a snapshot may. */
function requiringHarness(): SchemaSet {
  const ours = ourSchemas();
  const missing = {
    keyword: 'required',
    instancePath: '/params/event',
    schemaPath: '#/required',
    params: { missingProperty: 'harness' },
    message: "must have required property 'harness'",
  } as ErrorObject;
  return { ...ours, label: 'strict', isValid: () => false, firstErrors: () => [missing] };
}

test('without the snapshot: one profile warning for the missing harness', () => {
  const findings = validate('intercept-request', request);
  expect(findings.filter((f) => f.path === '/params/event/harness')).toHaveLength(1);
  expect(findings.every((f) => f.layer === 'profile')).toBe(true);
});

test('a snapshot that requires it: the wire error alone', () => {
  const findings = validate('intercept-request', request, { schemas: requiringHarness(), explain: false });
  const harness = findings.filter((f) => f.message.includes('harness') || f.path.endsWith('/harness'));
  expect(harness).toHaveLength(1);
  expect(harness[0]).toMatchObject({ layer: 'wire', code: 'schema.required', path: '/params/event' });
});
