// The harness adapter contract: its schema compiles and the examples in the document are
// valid against it, so the prose and the machine-readable contract cannot drift apart.
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ROOT } from '../support/paths.js';
import { BOUNDARIES } from '../../src/checks/boundaries.js';

const schema = JSON.parse(readFileSync(resolve(ROOT, 'schemas', 'harness-adapter.schema.json'), 'utf8')) as object;
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
ajv.addSchema(schema);
const id = (schema as { $id: string }).$id;
const doc = readFileSync(resolve(ROOT, 'docs', 'harness-adapter.md'), 'utf8');
const examples = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as Record<string, unknown>);

test('the document shows a config, a marker and a report example', () => {
  expect(examples.some((e) => 'scenario' in e)).toBe(true);
  expect(examples.some((e) => 'executedInput' in e)).toBe(true);
  expect(examples.some((e) => 'effective' in e)).toBe(true);
  expect(examples.some((e) => e.adapterContract === 2 && 'scenario' in e)).toBe(true);
  expect(examples.some((e) => 'registration' in e && typeof e.registration === 'string')).toBe(true);
});

test('every config and report example in the document is valid against the contract schema', () => {
  for (const e of examples) {
    if ('executedInput' in e || 'effective' in e) continue;
    const kind = 'scenario' in e ? 'config' : 'report';
    const validate = ajv.getSchema(`${id}#/$defs/${kind}`)!;
    expect(validate(e), `${kind}: ${JSON.stringify(validate.errors)}`).toBe(true);
  }
});

test('a rejected registration needs a reason; an unknown outcome is refused', () => {
  const report = ajv.getSchema(`${id}#/$defs/report`)!;
  const base = { adapterContract: 1, harness: { name: 'h', version: '1' } };
  expect(report({ ...base, registration: 'rejected' })).toBe(false);
  expect(report({ ...base, registration: 'rejected', rejectionReason: 'missing content selection' })).toBe(true);
  expect(report({ ...base, registration: 'accepted', steps: [{ id: 't1', outcome: 'ran-anyway' }] })).toBe(false);
});

test('version 2: content steps need a version 2 config; delivered is a version 2 outcome', () => {
  const config = ajv.getSchema(`${id}#/$defs/config`)!;
  const report = ajv.getSchema(`${id}#/$defs/report`)!;
  const v2 = examples.find((e) => e.adapterContract === 2 && 'scenario' in e)!;
  const kinds = (v2.scenario as { steps: { kind: string }[] }).steps.map((s) => s.kind);
  // The document's example shows every content step kind of the boundary table.
  expect(new Set(kinds)).toEqual(new Set(BOUNDARIES.map((b) => b.step)));
  expect(config(v2)).toBe(true);
  expect(config({ ...v2, adapterContract: 1 })).toBe(false);
  const steps = (v2.scenario as { steps: Record<string, unknown>[] }).steps;
  // A content step without its marker, or with an unknown kind, is not a step.
  const { marker: _marker, ...noMarker } = steps[0]!;
  expect(config({ ...v2, scenario: { ...(v2.scenario as object), steps: [noMarker] } })).toBe(false);
  expect(
    config({ ...v2, scenario: { ...(v2.scenario as object), steps: [{ ...steps[0], kind: 'user.prompt' }] } }),
  ).toBe(false);
  const base = { harness: { name: 'h', version: '1' }, registration: 'accepted' };
  expect(report({ ...base, adapterContract: 2, steps: [{ id: 'c1', outcome: 'delivered' }] })).toBe(true);
  expect(report({ ...base, adapterContract: 1, steps: [{ id: 'c1', outcome: 'delivered' }] })).toBe(false);
  expect(report({ ...base, adapterContract: 2, steps: [{ id: 't1', outcome: 'executed' }] })).toBe(true);
});

test('the config names the claim’s snapshot, in both contract versions: a resolved snapshot, never plain draft', () => {
  const config = ajv.getSchema(`${id}#/$defs/config`)!;
  const configs = examples.filter((e) => 'scenario' in e);
  for (const e of configs) expect(e.snapshot, 'every config example shows it').toMatch(/^draft@[0-9a-f]{7,}$/);
  const v1 = configs.find((e) => e.adapterContract === 1)!;
  expect(config({ ...v1, snapshot: 'draft@1d98c19' })).toBe(true);
  expect(config({ ...v1, snapshot: 'draft' })).toBe(false);
  // Added, not required: a config an earlier runner wrote is still a config.
  const { snapshot: _snapshot, ...earlier } = v1;
  expect(config(earlier)).toBe(true);
});
