// Differential test: for each snapshot, our JSON Schemas judge exactly like that upstream
// snapshot's published schemas, not only on the visible fixtures but on a large,
// deterministic family of single-place mutants of each of them (see test/support/mutate.ts).
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
import { fastValidatorGroups, loadFastValidators } from '../src/protocol/precompiled.js';
import { liftDocument, ownBases } from '../src/fixtures/lift.js';
import { OLDEST_SNAPSHOT, SNAPSHOT_IDS, snapshotOf, type SnapshotId } from '../src/protocol/snapshots.js';
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
import {
  HAVE_SPEC,
  HAVE_SPEC_1D98C19,
  NO_SPEC_1D98C19_REASON,
  NO_SPEC_REASON,
  SPEC_DIR,
  specDirOf,
} from './support/paths.js';

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
  /** Judge every `stride`-th distinct mutant only (1 = all): a deterministic sample. */
  readonly stride: number;
}

interface Loaded {
  readonly cases: readonly LoadedCase[];
  /** Cases whose file does not frame to a JSON object. */
  readonly skipped: readonly string[];
}

/** One snapshot's run: its published schemas, and the documents whose mutants they judge. */
interface Run {
  readonly snapshot: SnapshotId;
  readonly specDir: string;
  readonly have: boolean;
  readonly reason: string;
  readonly loaded: Loaded;
}

const HARNESS_ADDED = 'harness added to the event';
/**
 * Deterministic samples for a snapshot that borrows the fixtures, to keep the self-test time
 * modest (every case still has mutants at every depth, since mutantsOf walks the tree in
 * order and the sample takes every n-th): a borrowed event fixture without `harness` is
 * invalid there, and so are nearly all its mutants (its lifted copy covers the valid
 * neighbourhood), one in 16; the other borrowed documents one in 4; the lifted copies one in
 * 3; our own base documents every mutant. Measured with one worker on a loaded machine:
 * about 20 s of CPU for about 15,000 mutants, as much again as the 2b5da580 run (21 s).
 */
const STRIDE = { outdated: 16, borrowed: 4, lifted: 3 } as const;

/**
 * For a snapshot whose own fixtures are these (2b5da580), every mutant of every fixture.
 * For one that borrows them (1d98c19 publishes no fixtures): the borrowed fixtures as they
 * are, their copies lifted to the snapshot's rules (src/fixtures/lift.ts) so that mutants
 * explore valid neighbourhoods of the newer rules, and our own base documents for what only
 * it has (hooks/configuration, typed chain state), sampled by STRIDE.
 */
function loadCases(snapshot: SnapshotId): Loaded {
  const manifest = JSON.parse(readFileSync(resolve(SPEC_DIR, 'fixtures', 'draft', 'manifest.json'), 'utf8')) as {
    cases: ManifestCase[];
  };
  const borrowed = snapshotOf(snapshot).borrowed.fixtures !== undefined;
  const cases: LoadedCase[] = [];
  const skipped: string[] = [];
  for (const c of manifest.cases) {
    const framed = frameFixture(readFileSync(resolve(SPEC_DIR, c.path)), c.binding);
    const v = framed.value;
    if (v === undefined || typeof v !== 'object' || v === null || Array.isArray(v)) {
      skipped.push(`${c.id} (${framed.problems.join('; ') || 'not a JSON object'})`);
      continue;
    }
    const declared = kindForUpstreamFile(basename(c.schema), snapshot);
    if (!declared) throw new Error(`${c.id}: no kind of ours for the upstream schema ${c.schema}`);
    const kinds = [declared];
    if (c.aggregateExpectedValid !== undefined && declared !== AGGREGATE_KIND) kinds.push(AGGREGATE_KIND);
    if (!borrowed) {
      cases.push({ id: c.id, kinds, value: v as Json, stride: 1 });
      continue;
    }
    const lifted = liftDocument(v, snapshot);
    const outdated = lifted.some((l) => l.label === HARNESS_ADDED);
    cases.push({ id: c.id, kinds, value: v as Json, stride: outdated ? STRIDE.outdated : STRIDE.borrowed });
    for (const l of lifted)
      cases.push({ id: `${c.id} [${l.label}]`, kinds, value: l.value as Json, stride: STRIDE.lifted });
  }
  if (borrowed)
    for (const b of ownBases(snapshot)) cases.push({ id: b.id, kinds: b.kinds, value: b.value as Json, stride: 1 });
  // The plan keys mutants by case id.
  const ids = cases.map((c) => c.id);
  const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
  if (twice.length) throw new Error(`case ids must be unique: ${twice.join(', ')}`);
  return { cases, skipped };
}

// Reading the manifest and the fixtures is cheap; the test list depends on it.
const runs: Run[] = SNAPSHOT_IDS.map((snapshot) => {
  const specDir = specDirOf(snapshot);
  // Every run mutates the 2b5da580 fixtures; a newer snapshot's also needs its own schemas.
  const have = HAVE_SPEC && (snapshot === OLDEST_SNAPSHOT || HAVE_SPEC_1D98C19);
  const reason = !HAVE_SPEC ? NO_SPEC_REASON : NO_SPEC_1D98C19_REASON;
  return { snapshot, specDir, have, reason, loaded: have ? loadCases(snapshot) : { cases: [], skipped: [] } };
});

/**
 * The swap pool over every document of a run. A string counts as enum-like when our schemas or the
 * snapshot's name it in a `const` or `enum`; the other strings seen at a member name
 * (identities, free text, times) are interchangeable for a schema, so one of them stands
 * in for all of them (see mutate.ts).
 */
function stringPool(run: Run): StringPool {
  const dir = resolve(run.specDir, 'schema', 'draft');
  const upstream = readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')) as unknown);
  const named = schemaEnumStrings([...Object.values(wireSchemas(run.snapshot)), ...upstream]);
  return collectStringPool(
    run.loaded.cases.map((c) => c.value),
    (v) => named.has(v),
  );
}

interface Plan {
  /** Case id → its distinct mutants (a mutant already planned for the same kinds elsewhere is left out). */
  readonly mutants: ReadonlyMap<string, readonly Mutant[]>;
  readonly total: number;
  readonly judgements: number;
}

const plans = new Map<SnapshotId, Plan>();

/** Every mutant of every case of a run, deduplicated across all its cases, sampled by stride; built once per worker. */
function thePlan(run: Run): Plan {
  const cached = plans.get(run.snapshot);
  if (cached) return cached;
  const pool = stringPool(run);
  const seen = new Set<string>();
  const mutants = new Map<string, Mutant[]>();
  let total = 0;
  let judgements = 0;
  for (const c of run.loaded.cases) {
    const mine: Mutant[] = [];
    let distinct = 0;
    for (const m of mutantsOf(c.value, pool)) {
      const key = `${c.kinds.join(',')}\u0000${JSON.stringify(m.value)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (distinct++ % c.stride === 0) mine.push(m);
    }
    mutants.set(c.id, mine);
    total += mine.length;
    judgements += mine.length * c.kinds.length;
  }
  const plan = { mutants, total, judgements };
  plans.set(run.snapshot, plan);
  return plan;
}

function chunksOf(run: Run): { label: string; cases: readonly LoadedCase[] }[] {
  const chunks: { label: string; cases: readonly LoadedCase[] }[] = [];
  const all = run.loaded.cases;
  for (let i = 0; i < all.length; i += CASES_PER_TEST) {
    const part = all.slice(i, i + CASES_PER_TEST);
    chunks.push({
      label: `cases ${i + 1}-${i + part.length} (${part[0]!.id} … ${part[part.length - 1]!.id})`,
      cases: part,
    });
  }
  // Without a snapshot there is still one (skipped) test, so the skip reason is visible.
  if (chunks.length === 0) chunks.push({ label: 'all cases', cases: [] });
  return chunks;
}

const firstError = (errors: ErrorObject[] | null | undefined): string => {
  const e = errors?.[0];
  if (!e) return '(no error reported)';
  return `${e.instancePath || '(root)'} ${e.message ?? e.keyword} [${e.schemaPath}]`;
};

/** ajv's first error from the collecting validator, shown only for a disagreement. */
const explain = (fn: ValidateFunction, value: Json): string => (fn(value) === true ? '(valid)' : firstError(fn.errors));

const verdict = (valid: boolean): string => (valid ? 'valid' : 'invalid');

// A file that does not run leaves its kinds to be compiled at run time (same verdicts), which
// would make the comparison below compare run time with run time: every kind must have one.
test('npm run build precompiled a fast validator for every kind of every snapshot', () => {
  for (const snapshot of SNAPSHOT_IDS) {
    const fast = loadFastValidators(snapshot);
    expect(fast, `${snapshot}: every file there and compiled from our schemas`).toBeDefined();
    for (const uris of fastValidatorGroups(snapshot).values())
      for (const uri of uris) expect(fast!(uri), `${snapshot}: ${uri}`).toBeDefined();
  }
});

for (const run of runs) {
  test.describe(`differential ${run.snapshot}: our schemas vs the snapshot schemas on fixture mutants`, () => {
    test.skip(!run.have, run.reason);
    const loaded = run.loaded;

    for (const chunk of chunksOf(run)) {
      test(`identical schema verdicts on mutants of ${chunk.label}`, () => {
        const started = Date.now();
        const { mutants: planned, total, judgements: totalJudgements } = thePlan(run);
        const ours = ourSchemas(run.snapshot);
        const theirs = snapshotSchemas(run.specDir);
        expect(theirs.snapshot, `${run.specDir} holds ${run.snapshot} (by its schema digest)`).toBe(run.snapshot);
        // Ours judge with the validators precompiled at build time; the same schemas compiled
        // at run time must agree with them on every mutant.
        expect(loadFastValidators(run.snapshot), 'npm run build precompiled our fast validators').toBeDefined();
        const runTime = compileOurSchemas(run.snapshot);

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
}
