// Every harness-role check can fail: the reference harness passes everything, and each
// of its fault modes makes the runner fail exactly the checks that mode targets (plus the
// documented overlaps), and no others (the "no others" part in the every-check scope,
// `npm run test:matrix`: test/support/fault-matrix.ts; `npm test` leaves the matrices out). All modes run in two
// `ahp-conformance run`s (below). Claims pin their snapshot: the conforming harness is
// judged by draft@1d98c19 (every check applies), each mode by the snapshots its row names
// (`snapshot`, default draft@2b5da580; ALSO_UNDER adds more), with the reference harness
// started under the same snapshot. The modes of a harness without OAuth (BEARER_ONLY_MODES)
// start it bearer-only (--authentication bearer), and so does their trace claim: the
// conforming bearer-only reference passes every check of its target.
//
// Cost: base.registration-validated starts the adapter once per invalid document (20
// times); it runs in full for the conforming harness and for the mode that targets it.
// The other modes change behaviour only after a registration was accepted, so that check
// is left out of their runs (--grep-invert), which keeps this test at a few minutes. In the
// every-check scope the trace claims run it in full, so what that argument says is also
// checked: a mode asked about during a refused registration would run it.
import { test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import YAML from 'yaml';
import { BOUNDARY_EVENTS } from '../src/checks/boundaries.js';
import { CHECKS } from '../src/checks/catalogue.js';
import { FAULTS, FAULT_MODES, type FaultMode } from '../reference/harness/faults.js';
import { OLDEST_SNAPSHOT, type SnapshotId } from '../src/protocol/snapshots.js';
import { ROOT } from './support/paths.js';
import {
  checkFaultMatrix,
  faultTable,
  matrixClaim,
  MATRIX_CAUSAL,
  provenResults,
  type TraceClaim,
} from './support/fault-matrix.js';
import { FAULT_TRACE_ENV } from '../reference/fault-probe.js';

const MAIN = resolve(ROOT, 'dist', 'reference', 'harness', 'main.js');
const REGISTRATION_CHECK = 'base.registration-validated';

/**
 * Checks a mode breaks besides its own targets, because the broken rule is part of what
 * they judge too. Each entry says why; anything else failing is a runner defect.
 */
const ALSO_FAILS: Partial<Record<FaultMode, { checks: string[]; why: string }>> = {
  'jsonrpc-1': {
    checks: ['ti.intercept-request', 'lo.notification-shape'],
    why: 'the intercept and observe schemas require jsonrpc "2.0"',
  },
  'version-0.1': {
    checks: ['ti.intercept-request', 'lo.notification-shape'],
    why: 'the intercept and observe schemas require protocolVersion "draft"',
  },
  'bare-extension-key': {
    checks: ['ti.intercept-request', 'lo.notification-shape'],
    why: 'the event schema requires reverse-DNS extension keys',
  },
  'id-differs': {
    checks: ['ti.intercept-request'],
    why: 'the wire layer requires the intercept id to equal the event id',
  },
  'concurrent-interceptors': {
    checks: ['ti.deny-stops', 'ti.failure-policy', 'ti.modify-input'],
    why: 'calling every interceptor at once also calls those after a deny or a fail-closed failure, and sends the second interceptor the input before the first one edited it',
  },
  'no-deadline': {
    checks: ['ti.failure-policy', 'auth.acquisition-deadline'],
    why: 'a reply after the deadline is one of the failure classes; a harness that waits for it applies it (and a token acquisition inside the dispatch waits as long)',
  },
  'late-reply-accepted': {
    checks: ['auth.acquisition-deadline'],
    why: 'the dispatch deadline, token acquisition included, is doubled',
  },
  'token-leak': {
    checks: ['auth.oauth-client-credentials'],
    why: 'it prints whatever bearer credential it sends, the OAuth access token too',
  },
  'skip-registration-validation': {
    checks: ['auth.portable-mechanisms'],
    why: 'an authentication of another mechanism makes the registration invalid, which an unvalidated load does not see',
  },
  'fail-closed-continues': {
    checks: ['auth.challenge', 'auth.token-validation', 'auth.no-fallback'],
    why: 'after an authentication failure these checks judge that fail-closed stops the call',
  },
  'per-event-no-eof': {
    checks: ['ti.failure-policy'],
    why: 'the scripted per_event backend exits at end of input, so a harness that never closes stdin never sees its non-zero exit status',
  },
};

/**
 * The modes that break a content rule (issue 14). Their claims, and the conforming one,
 * list every content boundary (the content checks are not applicable otherwise); the other
 * modes' claims list none, so their runs stay as they were. They have no binding, so they
 * run over HTTP only: the content rules do not depend on the transport (the chain, views
 * and edits are the same code whatever carries the frames), which keeps the matrix small.
 */
const CONTENT_MODES: ReadonlySet<FaultMode> = new Set([
  'noncanonical-content',
  'hidden-text-leak',
  'non-atomic-edits',
  'elicitation-request-modify',
  'modify-any-target',
  'short-circuit-second-copy',
]);

type Where = { transport: 'stdio' | 'http'; lifecycle?: 'persistent' | 'per_event' };

/**
 * Where each mode runs: its own binding; modes of no binding run over HTTP, the cheapest
 * target (the scripted backend is a server in the runner, not a process per hook).
 */
function placement(mode: FaultMode): Where {
  const spec = FAULTS[mode] as { transport?: 'stdio' | 'http'; lifecycle?: 'persistent' | 'per_event' };
  if (spec.transport === 'stdio') return { transport: 'stdio', lifecycle: spec.lifecycle ?? 'persistent' };
  return { transport: 'http' };
}

/** What a claim lists besides its targets; the conforming claim lists everything. */
interface Shape {
  readonly boundaries: boolean;
  readonly uploads: boolean;
  /** The reference is started bearer-only (--authentication bearer): it refuses oauth bindings. */
  readonly bearerOnly?: boolean;
}
const shapeOf = (mode: FaultMode | undefined): Shape => ({
  boundaries: mode === undefined || CONTENT_MODES.has(mode),
  // The upload checks run where the claim says the harness uploads (the conforming entry and the upload modes).
  uploads: mode === undefined || UPLOAD_MODES.has(mode),
  ...(mode !== undefined && BEARER_ONLY_MODES.has(mode) ? { bearerOnly: true } : {}),
});
const UPLOAD_MODES: ReadonlySet<FaultMode> = new Set(FAULT_MODES.filter((m) => m.startsWith('upload-')));
/**
 * The modes of a harness without OAuth (issue 24): their claims, and their trace claims, start
 * the reference bearer-only, so the auth checks judge its refusal of oauth bindings and its
 * manifest (which then says authentication [bearer]).
 */
const BEARER_ONLY_MODES: ReadonlySet<FaultMode> = new Set([
  'unsupported-oauth-unauthenticated',
  'oauth-declared-unsupported',
]);

/** `traced`: the reference tells which fault modes its code asks about (the causal matrix's trace claims). */
function claimYaml(
  name: string,
  mode: FaultMode | undefined,
  where: Where[],
  snapshot: SnapshotId,
  shape: Shape = shapeOf(mode),
  traced = false,
): string {
  const transports = [...new Set(where.map((w) => w.transport))];
  const lifecycles = where.filter((w) => w.lifecycle).map((w) => w.lifecycle);
  return [
    `implementation: { name: ${name}, version: 0.0.0 }`,
    // Pinned, and the reference harness follows the same snapshot's rules.
    `snapshot: ${snapshot}`,
    'role: harness',
    `transports: [${transports.join(', ')}]`,
    'profiles: [tool-interception, lifecycle-observation]',
    'harness:',
    `  command: ${JSON.stringify(process.execPath)}`,
    `  args: [${JSON.stringify(MAIN)}, --config, "{config}", --snapshot, ${snapshot}${shape.bearerOnly ? ', --authentication, bearer' : ''}${mode ? `, --fault, ${mode}` : ''}]`,
    ...(lifecycles.length ? [`  lifecycles: [${lifecycles.join(', ')}]`] : []),
    ...(shape.boundaries ? [`  boundaries: [${BOUNDARY_EVENTS.join(', ')}]`] : []),
    ...(shape.uploads ? ['  uploads: true'] : []),
    ...(traced ? [`  env: { ${FAULT_TRACE_ENV}: "1" }`] : []),
    '',
  ].join('\n');
}

/**
 * Modes whose rule holds in more than one snapshot, proven under each: the base-8 rule
 * (harness on every event) is a profile rule in 2b5da580 and a wire rule in 1d98c19, where
 * the checks that validate whole messages by the claim's snapshot catch it too.
 */
const ALSO_UNDER: Partial<Record<FaultMode, { snapshot: SnapshotId; checks: string[]; why: string }[]>> = {
  'no-harness-version': [
    {
      snapshot: 'draft@1d98c19',
      checks: ['ti.intercept-request', 'lo.notification-shape'],
      why: "1d98c19's event schemas require harness on every event, and these checks validate the messages by the claim's snapshot",
    },
  ],
};

/**
 * The snapshots a mode runs against (its row's `snapshot`, default the oldest, whose rules
 * most modes break; plus ALSO_UNDER), each as one matrix entry: the first under the mode's
 * own name, the others as `<mode>-<commit>`.
 */
const entries = (m: FaultMode): { key: string; snapshot: SnapshotId; also?: { checks: string[]; why: string } }[] => [
  { key: m, snapshot: (FAULTS[m] as { snapshot?: SnapshotId }).snapshot ?? OLDEST_SNAPSHOT, also: ALSO_FAILS[m] },
  ...(ALSO_UNDER[m] ?? []).map((u) => ({
    key: `${m}-${u.snapshot.split('@')[1]}`,
    snapshot: u.snapshot,
    also: { checks: [...(ALSO_FAILS[m]?.checks ?? []), ...u.checks], why: u.why },
  })),
];
/**
 * The conforming harness: the bundled claim judged by the newest snapshot (every check
 * applies to it), as `npm run conformance` certifies it, renamed and with its paths made
 * absolute. So .ci/run, which certifies that claim just before, hands its results over
 * (AHP_MATRIX_PROVEN, test/support/fault-matrix.ts) instead of certifying it twice.
 */
const CONFORMING_CLAIM = resolve(ROOT, 'claims', 'reference-harness-1d98c19.yaml');
function conformingYaml(): string {
  const claim = YAML.parse(readFileSync(CONFORMING_CLAIM, 'utf8')) as {
    implementation: unknown;
    harness: { command: string; args: string[] };
  };
  claim.implementation = { name: 'conforming', version: '0.0.0' };
  claim.harness.command = process.execPath;
  claim.harness.args = claim.harness.args.map((a) => (a.startsWith('../') ? resolve(dirname(CONFORMING_CLAIM), a) : a));
  return YAML.stringify(claim);
}

/**
 * AHP_HARNESS_FAULTS=mode,mode[,conforming]: run only these modes (and the conforming
 * harness only when named), for working on a few modes; the catalogue-wide assertion
 * (every check caught by some mode) needs the full run.
 */
const ONLY = process.env.AHP_HARNESS_FAULTS?.split(',')
  .map((m) => m.trim())
  .filter(Boolean);

test.describe.configure({ mode: 'serial' });

test(matrixClaim('harness'), async () => {
  // Two runs by causality (the traces, then the modes), each bounded by timeoutMs below.
  test.setTimeout(60 * 60_000);
  const modes = ONLY ? FAULT_MODES.filter((m) => ONLY.includes(m)) : FAULT_MODES;
  const claims = (some: FaultMode[]): Record<string, string> =>
    Object.fromEntries(
      some.flatMap((m) => entries(m).map((e) => [e.key, claimYaml(`fault-${e.key}`, m, [placement(m)], e.snapshot)])),
    );
  const byKey = Object.fromEntries(FAULT_MODES.flatMap((m) => entries(m).map((e) => [e.key, FAULTS[m]])));
  const alsoByKey = Object.fromEntries(
    FAULT_MODES.flatMap((m) => entries(m).flatMap((e) => (e.also ? [[e.key, e.also]] : []))),
  );
  const entryByKey = new Map(FAULT_MODES.flatMap((m) => entries(m).map((e) => [e.key, { mode: m, ...e }] as const)));
  // The conforming harness in the shape of an entry's claim: same snapshot, placement and lists.
  const trace = (key: string): TraceClaim => {
    const { mode, snapshot } = entryByKey.get(key)!;
    const where = [placement(mode)];
    const shape = shapeOf(mode);
    return {
      mode,
      shape: JSON.stringify({ snapshot, where, shape }),
      yaml: (name) => claimYaml(name, undefined, where, snapshot, shape, true),
    };
  };
  const registers = (m: FaultMode): boolean => (FAULTS[m].targets as readonly string[]).includes(REGISTRATION_CHECK);
  checkFaultMatrix({
    tempPrefix: 'ahp-harness-faults-',
    runs: [
      {
        ...(!ONLY || ONLY.includes('conforming')
          ? {
              conforming: conformingYaml(),
            }
          : {}),
        faults: claims(modes.filter(registers)),
      },
      {
        faults: claims(modes.filter((m) => !registers(m))),
        // By causality the trace decides (a mode asked about during a refused registration runs it).
        args: MATRIX_CAUSAL ? [] : ['--grep-invert', REGISTRATION_CHECK.replaceAll('.', '\\.')],
      },
    ],
    table: faultTable(byKey, alsoByKey),
    ...(!ONLY || ONLY.includes('conforming') ? { proven: provenResults(CONFORMING_CLAIM) } : {}),
    workers: 6,
    timeoutMs: 30 * 60_000,
    trace,
    modeNames: FAULT_MODES,
    // Every harness-role check in the catalogue is shown failing by some mode.
    ...(ONLY ? {} : { everyCheck: () => CHECKS.filter((c) => c.roles.includes('harness')).map((c) => c.id) }),
  });
});
