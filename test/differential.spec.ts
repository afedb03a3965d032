// Differential test: our JSON Schemas judge exactly like the upstream snapshot's
// published schemas, not only on the visible fixtures but on a large, deterministic
// family of single-place mutants of each of them (see test/support/mutate.ts).
//
// Only the boolean verdicts of the two schema layers are compared (the ajv validate
// functions of `ourSchemas()` and `snapshotSchemas()`); the semantic rules beyond the
// schemas are applied identically to both sides elsewhere and are not exercised here.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { test, expect } from '@playwright/test';
import { frameFixture } from '../src/fixtures/framing.js';
import { kindForUpstreamFile } from '../src/protocol/kinds.js';
import { wireSchemas } from '../src/protocol/schema-build/index.js';
import { ourSchemas, snapshotSchemas, type ErrorObject, type ValidateFunction } from '../src/protocol/schema-set.js';
import { collectStringPool, mutantsOf, schemaEnumStrings, type Json, type StringPool } from './support/mutate.js';
import { HAVE_SPEC, NO_SPEC_REASON, SPEC_DIR } from './support/paths.js';

/** A disagreement that is accepted because a semantic rule beyond the schemas decides it. */
interface KnownDivergence {
  readonly caseId: string;
  /** JSON Pointer of the mutated place, as reported by the failure output. */
  readonly pointer: string;
  /** The mutation, exactly as reported by the failure output. */
  readonly op: string;
  readonly kind: string;
  /** The semantic rule (requirement id and what it says) that decides this value on both sides. */
  readonly rule: string;
}

/**
 * Accepted schema-layer disagreements. Each entry needs a comment naming the semantic
 * rule beyond the schemas that decides the mutant identically for both sides.
 */
const KNOWN_DIVERGENCES: readonly KnownDivergence[] = [];

/** Cases per test(): small enough that Playwright can spread the work over its workers. */
const CASES_PER_TEST = 20;
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
  readonly kinds: readonly string[];
  readonly value: Json;
}

interface Loaded {
  readonly cases: readonly LoadedCase[];
  /** Cases whose file does not frame to a JSON object, or whose schema has no kind of ours. */
  readonly skipped: readonly string[];
}

function loadCases(): Loaded {
  const manifest = JSON.parse(readFileSync(resolve(SPEC_DIR, 'fixtures', 'draft', 'manifest.json'), 'utf8')) as { cases: ManifestCase[] };
  const cases: LoadedCase[] = [];
  const skipped: string[] = [];
  for (const c of manifest.cases) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(resolve(SPEC_DIR, c.path));
    } catch {
      skipped.push(`${c.id}: cannot read ${c.path}`);
      continue;
    }
    const framed = frameFixture(bytes, c.binding);
    const v = framed.value;
    if (v === undefined || typeof v !== 'object' || v === null || Array.isArray(v)) {
      skipped.push(`${c.id}: does not frame to a JSON object`);
      continue;
    }
    const declared = kindForUpstreamFile(basename(c.schema));
    if (!declared) throw new Error(`${c.id}: no kind of ours for upstream schema ${c.schema}`);
    const kinds = [declared];
    if (c.aggregateExpectedValid !== undefined && declared !== AGGREGATE_KIND) kinds.push(AGGREGATE_KIND);
    cases.push({ id: c.id, kinds, value: v as Json });
  }
  return { cases, skipped };
}

const loaded: Loaded = HAVE_SPEC ? loadCases() : { cases: [], skipped: [] };

/**
 * The swap pool over every fixture. A string counts as enum-like when our schemas or the
 * snapshot's name it in a `const` or `enum`; other strings (identities, free text, times)
 * are interchangeable for a schema, so one of them stands in for all (see mutate.ts).
 */
function stringPool(): StringPool {
  const dir = resolve(SPEC_DIR, 'schema', 'draft');
  const upstream = readdirSync(dir).filter((n) => n.endsWith('.json')).map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')) as unknown);
  const named = schemaEnumStrings([...Object.values(wireSchemas()), ...upstream]);
  return collectStringPool(loaded.cases.map((c) => c.value), (v) => named.has(v));
}

const chunks: { label: string; cases: readonly LoadedCase[] }[] = [];
for (let i = 0; i < loaded.cases.length; i += CASES_PER_TEST) {
  const part = loaded.cases.slice(i, i + CASES_PER_TEST);
  chunks.push({ label: `cases ${i + 1}-${i + part.length} (${part[0]!.id} … ${part[part.length - 1]!.id})`, cases: part });
}
// Without a snapshot there is still one (skipped) test, so the skip reason is visible.
if (chunks.length === 0) chunks.push({ label: 'all cases', cases: [] });

const firstError = (errors: ErrorObject[] | null | undefined): string => {
  const e = errors?.[0];
  if (!e) return '(no error)';
  return `${e.instancePath || '(root)'} ${e.message ?? e.keyword} [${e.schemaPath}]`;
};

interface Verdict {
  valid: boolean;
  error: string;
}

const judge = (fn: ValidateFunction, value: Json): Verdict => {
  const valid = fn(value) === true;
  return { valid, error: valid ? '' : firstError(fn.errors) };
};

test.describe('differential: our schemas vs the snapshot schemas on fixture mutants', () => {
  test.skip(!HAVE_SPEC, NO_SPEC_REASON);

  for (const chunk of chunks) {
    test(`identical verdicts on mutants of ${chunk.label}`, () => {
      const started = Date.now();
      // The pool covers every fixture, not only this test's chunk.
      const pool = stringPool();
      const ours = ourSchemas();
      const theirs = snapshotSchemas(SPEC_DIR);

      const lines: string[] = [];
      const seen = new Set<string>();
      let mutants = 0;
      let judgements = 0;
      for (const c of chunk.cases) {
        const fns = c.kinds.map((kind) => ({ kind, ours: ours.forKind(kind), theirs: theirs.forKind(kind) }));
        for (const m of mutantsOf(c.value, pool)) {
          // Identical mutants (of this or another case in the chunk) judged against the same kinds once.
          const key = `${c.kinds.join(',')}\u0000${JSON.stringify(m.value)}`;
          if (seen.has(key)) continue;
          seen.add(key);
          mutants++;
          for (const f of fns) {
            judgements++;
            const a = judge(f.ours, m.value);
            const b = judge(f.theirs, m.value);
            if (a.valid === b.valid) continue;
            const known = KNOWN_DIVERGENCES.some((k) => k.caseId === c.id && k.pointer === m.pointer && k.op === m.op && k.kind === f.kind);
            if (known) continue;
            lines.push(
              `case ${c.id} | at ${m.pointer || '(root)'}: ${m.op} | kind ${f.kind} | ours ${a.valid ? 'valid' : 'invalid'}, snapshot ${b.valid ? 'valid' : 'invalid'}` +
                `\n    ours:     ${a.valid ? '(valid)' : a.error}\n    snapshot: ${b.valid ? '(valid)' : b.error}`,
            );
          }
        }
      }

      const info = test.info();
      info.annotations.push({ type: 'mutants', description: `${mutants} distinct mutants of ${chunk.cases.length} cases, ${judgements} judgements per side, ${Date.now() - started} ms` });
      if (loaded.skipped.length) info.annotations.push({ type: 'cases without a JSON object', description: loaded.skipped.join('; ') });

      expect(mutants, 'every chunk yields mutants').toBeGreaterThan(0);
      expect(
        lines.length,
        `${lines.length} schema-layer disagreement(s) between ours and ${theirs.label}:\n${lines.join('\n')}`,
      ).toBe(0);
    });
  }
});
