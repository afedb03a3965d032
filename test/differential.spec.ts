// Differential test: our JSON Schemas judge exactly like the upstream snapshot's
// published schemas, not only on the visible fixtures but on a large, deterministic
// family of single-place mutants of each of them (see test/support/mutate.ts).
//
// Our fast validators precompiled at build time (src/protocol/precompiled.ts) are also
// compared with the same schemas compiled at run time.
//
// Only the boolean verdicts of the two schema layers are compared (the ajv validate
// functions of `ourSchemas().forKind()` and `snapshotSchemas().forKind()`); the semantic
// rules beyond the schemas are applied identically to both sides elsewhere and are not
// exercised here.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { test, expect } from '@playwright/test';
import { frameFixture } from '../src/fixtures/framing.js';
import { kindForUpstreamFile } from '../src/protocol/kinds.js';
import { wireSchemas } from '../src/protocol/schema-build/index.js';
import { loadFastValidators } from '../src/protocol/precompiled.js';
import { OLDEST_SNAPSHOT } from '../src/protocol/snapshots.js';
import {
  compileOurSchemas,
  ourSchemas,
  snapshotSchemas,
  type ErrorObject,
  type ValidateFunction,
} from '../src/protocol/schema-set.js';
import {
  collectStringPool,
  mutantsOf,
  schemaEnumStrings,
  type Json,
  type Mutant,
  type StringPool,
} from './support/mutate.js';
import { HAVE_SPEC, NO_SPEC_REASON, SPEC_DIR } from './support/paths.js';

/** A disagreement that is accepted because a semantic rule beyond the schemas decides it. */
interface KnownDivergence {
  readonly caseId: string;
  /** JSON Pointer of the mutated place, exactly as the failure output reports it. */
  readonly pointer: string;
  /** The mutation, exactly as the failure output reports it. */
  readonly op: string;
  readonly kind: string;
  /** The semantic rule (requirement id and what it says) that decides this value identically on both sides. */
  readonly rule: string;
}

/**
 * Accepted schema-layer disagreements. Every entry needs a comment naming the semantic
 * rule beyond the schemas that decides the mutant (identically for both sides), so that
 * the overall verdict still agrees even though the schema layers do not.
 */
const KNOWN_DIVERGENCES: readonly KnownDivergence[] = [];

/** Cases per test(): small enough that Playwright can spread the work over its workers. */
const CASES_PER_TEST = 10;
const AGGREGATE_KIND = 'ahp';

interface ManifestCase {
  id: string;
  path: string;
  binding: string;
  schema: string;
  aggregateExpectedValid?: boolean;
}

interface LoadedCase {
  readonly id: string;
  /** The declared kind, then `ahp` when the case has an aggregate expectation. */
  readonly kinds: readonly string[];
  readonly value: Json;
}

interface Loaded {
  readonly cases: readonly LoadedCase[];
  /** Cases whose file does not frame to a JSON object. */
  readonly skipped: readonly string[];
}

function loadCases(): Loaded {
  const manifest = JSON.parse(readFileSync(resolve(SPEC_DIR, 'fixtures', 'draft', 'manifest.json'), 'utf8')) as {
    cases: ManifestCase[];
  };
  const cases: LoadedCase[] = [];
  const skipped: string[] = [];
  for (const c of manifest.cases) {
    const framed = frameFixture(readFileSync(resolve(SPEC_DIR, c.path)), c.binding);
    const v = framed.value;
    if (v === undefined || typeof v !== 'object' || v === null || Array.isArray(v)) {
      skipped.push(`${c.id} (${framed.problems.join('; ') || 'not a JSON object'})`);
      continue;
    }
    const declared = kindForUpstreamFile(basename(c.schema));
    if (!declared) throw new Error(`${c.id}: no kind of ours for the upstream schema ${c.schema}`);
    const kinds = [declared];
    if (c.aggregateExpectedValid !== undefined && declared !== AGGREGATE_KIND) kinds.push(AGGREGATE_KIND);
    cases.push({ id: c.id, kinds, value: v as Json });
  }
  return { cases, skipped };
}

// Reading the manifest and the fixtures is cheap; the test list depends on it.
const loaded: Loaded = HAVE_SPEC ? loadCases() : { cases: [], skipped: [] };

/**
 * The swap pool over every fixture. A string counts as enum-like when our schemas or the
 * snapshot's name it in a `const` or `enum`; the other strings seen at a member name
 * (identities, free text, times) are interchangeable for a schema, so one of them stands
 * in for all of them (see mutate.ts).
 */
function stringPool(): StringPool {
  const dir = resolve(SPEC_DIR, 'schema', 'draft');
  const upstream = readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')) as unknown);
  const named = schemaEnumStrings([...Object.values(wireSchemas()), ...upstream]);
  return collectStringPool(
    loaded.cases.map((c) => c.value),
    (v) => named.has(v),
  );
}

interface Plan {
  /** Case id → its distinct mutants (a mutant already planned for the same kinds elsewhere is left out). */
  readonly mutants: ReadonlyMap<string, readonly Mutant[]>;
  readonly total: number;
  readonly judgements: number;
}

let plan: Plan | undefined;

/** Every mutant of every case, deduplicated across all cases; built once per worker. */
function thePlan(): Plan {
  if (plan) return plan;
  const pool = stringPool();
  const seen = new Set<string>();
  const mutants = new Map<string, Mutant[]>();
  let total = 0;
  let judgements = 0;
  for (const c of loaded.cases) {
    const mine: Mutant[] = [];
    for (const m of mutantsOf(c.value, pool)) {
      const key = `${c.kinds.join(',')}\u0000${JSON.stringify(m.value)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      mine.push(m);
    }
    mutants.set(c.id, mine);
    total += mine.length;
    judgements += mine.length * c.kinds.length;
  }
  plan = { mutants, total, judgements };
  return plan;
}

const chunks: { label: string; cases: readonly LoadedCase[] }[] = [];
for (let i = 0; i < loaded.cases.length; i += CASES_PER_TEST) {
  const part = loaded.cases.slice(i, i + CASES_PER_TEST);
  chunks.push({
    label: `cases ${i + 1}-${i + part.length} (${part[0]!.id} … ${part[part.length - 1]!.id})`,
    cases: part,
  });
}
// Without a snapshot there is still one (skipped) test, so the skip reason is visible.
if (chunks.length === 0) chunks.push({ label: 'all cases', cases: [] });

const firstError = (errors: ErrorObject[] | null | undefined): string => {
  const e = errors?.[0];
  if (!e) return '(no error reported)';
  return `${e.instancePath || '(root)'} ${e.message ?? e.keyword} [${e.schemaPath}]`;
};

/** ajv's first error from the collecting validator, shown only for a disagreement. */
const explain = (fn: ValidateFunction, value: Json): string => (fn(value) === true ? '(valid)' : firstError(fn.errors));

const verdict = (valid: boolean): string => (valid ? 'valid' : 'invalid');

test.describe('differential: our schemas vs the snapshot schemas on fixture mutants', () => {
  test.skip(!HAVE_SPEC, NO_SPEC_REASON);

  for (const chunk of chunks) {
    test(`identical schema verdicts on mutants of ${chunk.label}`, () => {
      const started = Date.now();
      const { mutants: planned, total, judgements: totalJudgements } = thePlan();
      const ours = ourSchemas();
      const theirs = snapshotSchemas(SPEC_DIR);
      // Ours judge with the validators precompiled at build time; the same schemas compiled
      // at run time must agree with them on every mutant.
      expect(loadFastValidators(OLDEST_SNAPSHOT), 'npm run build precompiled our fast validators').toBeDefined();
      const runTime = compileOurSchemas();

      const lines: string[] = [];
      let mutants = 0;
      let judgements = 0;
      let bothValid = 0;
      for (const c of chunk.cases) {
        for (const m of planned.get(c.id) ?? []) {
          mutants++;
          for (const kind of c.kinds) {
            judgements++;
            const a = ours.isValid(kind, m.value);
            const b = theirs.isValid(kind, m.value);
            if (runTime.isValid(kind, m.value) !== a)
              lines.push(
                `case ${c.id} | at ${m.pointer || '(root)'}: ${m.op} | kind ${kind} | precompiled ${verdict(a)}, compiled at run time ${verdict(!a)}`,
              );
            if (a === b) {
              if (a) bothValid++;
              continue;
            }
            if (
              KNOWN_DIVERGENCES.some(
                (k) => k.caseId === c.id && k.pointer === m.pointer && k.op === m.op && k.kind === kind,
              )
            )
              continue;
            lines.push(
              `case ${c.id} | at ${m.pointer || '(root)'}: ${m.op} | kind ${kind} | ours ${verdict(a)}, snapshot ${verdict(b)}\n` +
                `    ours:     ${explain(ours.forKind(kind), m.value)}\n` +
                `    snapshot: ${explain(theirs.forKind(kind), m.value)}`,
            );
          }
        }
      }

      const info = test.info();
      info.annotations.push({
        type: 'mutants',
        description:
          `${mutants} distinct mutants of ${chunk.cases.length} cases here (${judgements} judgements per side, ` +
          `${bothValid} valid on both sides, ${Date.now() - started} ms); ` +
          `${total} distinct mutants of ${loaded.cases.length} cases in all tests of this file (${totalJudgements} judgements per side)`,
      });
      if (loaded.skipped.length) {
        info.annotations.push({
          type: 'cases not framing to a JSON object (no mutants)',
          description: loaded.skipped.join('; '),
        });
      }

      expect(mutants, 'every chunk yields mutants').toBeGreaterThan(0);
      expect(
        lines.length,
        `${lines.length} schema-layer disagreement(s) between ours and the snapshot (${theirs.label}):\n${lines.join('\n')}`,
      ).toBe(0);
    });
  }
});
