// Small builders and assertions shared by the validator unit tests. The sample
// messages are written by hand for these tests; nothing here is read from fixtures.
import { expect } from '@playwright/test';
import { isWireValid, type Finding } from '../../src/protocol/validator.js';

export type Obj = Record<string, unknown>;

export const HARNESS = { name: 'unit-harness', version: '0.0.1' };
export const TIME = '2026-09-15T12:00:00Z';

/** A bare event: the id/source/type/time envelope plus harness metadata and the given members. */
export function makeEvent(type: string, members: Obj = {}): Obj {
  return { id: 'evt-1', source: 'urn:unit:harness', type, time: TIME, harness: { ...HARNESS }, ...members };
}

/** A `hooks/observe` notification around an event. */
export function observeOf(event: Obj): Obj {
  return { jsonrpc: '2.0', method: 'hooks/observe', params: { protocolVersion: 'draft', event } };
}

/** A `hooks/intercept` request whose id mirrors the event id. */
export function interceptOf(event: Obj, capabilities: Obj, params: Obj = {}): Obj {
  return {
    jsonrpc: '2.0',
    id: event.id,
    method: 'hooks/intercept',
    params: { protocolVersion: 'draft', event, capabilities, ...params },
  };
}

/** A `hooks/intercept` success response carrying these effects. */
export function interceptResultOf(effects: unknown[], id: unknown = 'evt-1'): Obj {
  return { jsonrpc: '2.0', id, result: { protocolVersion: 'draft', effects } };
}

/** A selected inline text part. */
export function textBody(text: string, id = 'part-1'): Obj {
  return { id, kind: 'text', mediaType: 'text/plain', selection: 'body', text };
}

/** A canonical message holding parts. */
export function messageOf(role: string, parts: unknown[] = [textBody('hi')], id = 'msg-1'): Obj {
  return { id, role, parts };
}

/** Deep copy of plain JSON. */
export const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** Copy with one member removed (a top-level key of an object). */
export function without(value: Obj, key: string): Obj {
  const out = copy(value);
  delete out[key];
  return out;
}

const show = (findings: readonly Finding[]): string => JSON.stringify(findings, null, 1);

const under = (path: string, prefix: string): boolean =>
  prefix === '' || path === prefix || path.startsWith(`${prefix}/`);

/** Wire-valid: no wire findings at all. */
export function expectWireValid(findings: readonly Finding[]): void {
  expect(
    findings.filter((f) => f.layer === 'wire'),
    show(findings),
  ).toEqual([]);
  expect(isWireValid(findings)).toBe(true);
}

/**
 * Wire-invalid, with at least one wire finding at `prefix` or below it (JSON Pointer
 * prefix, '' for "anywhere"), and, if given, with that code.
 */
export function expectWireInvalidAt(findings: readonly Finding[], prefix: string, code?: string): void {
  expect(isWireValid(findings), show(findings)).toBe(false);
  const hit = findings.some(
    (f) => f.layer === 'wire' && under(f.path, prefix) && (code === undefined || f.code === code),
  );
  expect(
    hit,
    `expected a wire finding under "${prefix}"${code ? ` with code ${code}` : ''}; got ${show(findings)}`,
  ).toBe(true);
}
