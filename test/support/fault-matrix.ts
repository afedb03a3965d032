// The judgement shared by the two fault-matrix self-tests (reference backend and reference
// harness): the conforming claim passes everything, and each fault mode fails exactly the
// checks it targets plus its documented overlaps, with the right status and verdict.
import { expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { checkSpec } from '../../src/checks/catalogue.js';
import type { CheckResult, ClaimResults } from '../../src/results/model.js';
import { ROOT } from './paths.js';

export interface FaultTable {
  modes: readonly string[];
  targets: (mode: string) => readonly string[];
  alsoFails: (mode: string) => readonly string[];
}

/** The table of a reference implementation's fault modes (its targets) and their documented overlaps. */
export function faultTable(faults: Readonly<Record<string, { readonly targets: readonly string[] }>>, alsoFails: Readonly<Partial<Record<string, { checks: string[] }>>>): FaultTable {
  return { modes: Object.keys(faults), targets: (m) => faults[m]!.targets, alsoFails: (m) => alsoFails[m]?.checks ?? [] };
}

/** Reads reports/<name>/results.json, checked against schemas/results.schema.json. */
export function resultsReader(reports: string): (name: string) => ClaimResults {
  const validate = new Ajv2020({ allErrors: true, strict: false, logger: false }).compile(JSON.parse(readFileSync(resolve(ROOT, 'schemas', 'results.schema.json'), 'utf8')) as object);
  return (name) => {
    const r = JSON.parse(readFileSync(join(reports, name, 'results.json'), 'utf8')) as ClaimResults;
    expect(validate(r), `${name}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
    return r;
  };
}

const bad = (r: ClaimResults): CheckResult[] => r.checks.filter((c) => c.status === 'failed' || c.status === 'warning');

export function expectConforming(r: ClaimResults): void {
  expect(bad(r).map((c) => `${c.id} ${c.role} ${c.transport}/${c.lifecycle ?? ''}: ${c.message}`)).toEqual([]);
  expect(r.verdict).toBe('conformant');
  expect(r.checks.filter((c) => c.status === 'not-applicable').map((c) => `${c.id} ${c.transport}/${c.lifecycle ?? ''}: ${c.message}`)).toEqual([]);
}

/** Problems of the fault matrix (empty when every mode fails exactly what it should), and the checks caught. */
export function faultMatrixProblems(table: FaultTable, results: (name: string) => ClaimResults): { problems: string[]; caught: Set<string> } {
  const problems: string[] = [];
  const caught = new Set<string>();
  for (const mode of table.modes) {
    const r = results(`fault-${mode}`);
    const expected = new Set([...table.targets(mode), ...table.alsoFails(mode)]);
    const got = bad(r);
    for (const c of got) {
      const wantStatus = checkSpec(c.id).level === 'SHOULD' ? 'warning' : 'failed';
      if (!expected.has(c.id)) problems.push(`${mode}: ${c.id} ${c.status} but the mode does not target it: ${c.message.split('\n')[0]}`);
      else if (c.status !== wantStatus) problems.push(`${mode}: ${c.id} is ${c.status}, expected ${wantStatus}`);
      else caught.add(c.id);
    }
    for (const id of expected) if (!got.some((c) => c.id === id)) problems.push(`${mode}: ${id} was not caught (${r.checks.find((c) => c.id === id)?.status ?? 'not run'})`);
    const wantVerdict = [...expected].some((id) => checkSpec(id).level === 'MUST') ? 'nonconformant' : 'conformant';
    if (r.verdict !== wantVerdict) problems.push(`${mode}: verdict ${r.verdict}, expected ${wantVerdict}`);
  }
  return { problems, caught };
}
