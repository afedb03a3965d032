// The fault matrix runs a mode only against the checks whose conforming run asked about it
// (reference/fault-probe.ts); that is sound only while every effect of a mode goes through
// the probe. This spec keeps it so: no other comparison with a mode anywhere in reference/.
import { test, expect } from '@playwright/test';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { FaultProbe, consultedModes, faultProbe, FAULT_TRACE_ENV } from '../../reference/fault-probe.js';
import { FAULT_MODES as HARNESS_MODES } from '../../reference/harness/faults.js';
import { FAULT_MODES as BACKEND_MODES } from '../../reference/backend/faults.js';
import { ROOT } from '../support/paths.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Where a mode name may be written other than in `is`, `isAny` or `pick`: the tables and the probe. */
const EXEMPT = new Set([
  'reference/fault-probe.ts',
  'reference/fault-table.ts',
  'reference/harness/faults.ts',
  'reference/backend/faults.ts',
]);

test('reference code asks about a fault mode only through the probe', () => {
  const modes = [...new Set([...HARNESS_MODES, ...BACKEND_MODES])];
  const modeLiteral = new RegExp(`(['"\`])(${modes.map((m) => m.replace(/[.]/g, '\\.')).join('|')})\\1`, 'g');
  const bad: string[] = [];
  for (const file of sources(join(ROOT, 'reference'))) {
    const rel = relative(ROOT, file);
    if (EXEMPT.has(rel)) continue;
    const lines = readFileSync(file, 'utf8').split('\n');
    const code = lines.map((l) => l.replace(/\/\/.*$/, '').replace(/^\s*\*.*$/, '')).join('\n');
    const where = (at: number): string => {
      const n = code.slice(0, at).split('\n').length;
      return `${rel}:${n}: ${lines[n - 1]!.trim()}`;
    };
    // Every mode name in code is the mode argument of is(...), isAny(...) or pick(...).
    for (const m of code.matchAll(modeLiteral)) {
      const before = code.slice(0, m.index);
      if (!/\.(is|pick(<[^>]*>)?)\(\s*$/.test(before) && !/\.isAny\([^)]*$/.test(before)) bad.push(where(m.index));
    }
    for (const m of code.matchAll(/switch\s*\([^)]*fault|fault\w*(\.mode)?\??\.(startsWith|endsWith|includes)\(/gi))
      bad.push(where(m.index));
    // The mode itself is read only to say at start-up which one is on.
    for (const m of code.matchAll(/fault\.mode\b.*/g)) if (!/is on/.test(m[0])) bad.push(where(m.index));
  }
  expect([...new Set(bad)]).toEqual([]);
});

test('a traced probe tells each mode once, on its first ask, and answers as before', () => {
  const told: string[] = [];
  const p = new FaultProbe<'a' | 'b' | 'c'>('b', true, (l) => told.push(l));
  expect(p.is('a')).toBe(false);
  expect(p.is('b')).toBe(true);
  expect(p.is('a')).toBe(false);
  expect(told).toEqual(['ahp-fault-consulted: a\n', 'ahp-fault-consulted: b\n']);
  expect(consultedModes(`noise\nreference-harness: x\n${told.join('')}`)).toEqual(new Set(['a', 'b']));
});

test('pick asks only where the two values differ', () => {
  const told: string[] = [];
  const p = new FaultProbe<'a' | 'b'>('a', true, (l) => told.push(l));
  const list = [1, 2];
  expect(p.pick('b', list, [...list])).toBe(list);
  expect(told).toEqual([]);
  expect(p.pick('a', 'x', 'y')).toBe('y');
  expect(p.pick('b', 'x', 'y')).toBe('x');
  expect(told).toEqual(['ahp-fault-consulted: a\n', 'ahp-fault-consulted: b\n']);
});

test('untraced unless the variable says 1', () => {
  const told: string[] = [];
  const quiet = faultProbe<'a'>('a', {});
  expect(quiet.is('a')).toBe(true);
  const traced = faultProbe<'a'>(undefined, { [FAULT_TRACE_ENV]: '1' });
  // The default teller writes to stderr; only whether tracing is on is read here.
  expect((traced as unknown as { trace: boolean }).trace).toBe(true);
  expect(told).toEqual([]);
});
