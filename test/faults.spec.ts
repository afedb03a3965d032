// Every check can fail: the reference backend passes everything, and each of its fault
// modes makes the runner fail exactly the checks that mode targets, and no others (the
// "no others" part in the every-check scope, `npm run test:matrix`: test/support/fault-matrix.ts; `npm test` leaves the matrices out).
// All fault modes of a snapshot run in one `ahp-conformance run` (one Playwright invocation,
// a project per mode), so this costs one run per snapshot, not one per mode: each mode runs
// under a claim of the snapshot whose rule it breaks (`snapshot` in its row).
import { test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import YAML from 'yaml';
import { FAULTS, FAULT_MODES, type BackendFaultSpec, type FaultMode } from '../reference/backend/faults.js';
import { BOUNDARIES } from '../src/checks/boundaries.js';
import { CHECKS } from '../src/checks/catalogue.js';
import { OLDEST_SNAPSHOT, type SnapshotId } from '../src/protocol/snapshots.js';
import { ROOT } from './support/paths.js';
import { checkFaultMatrix, faultTable, matrixClaim, provenResults, type TraceClaim } from './support/fault-matrix.js';
import { FAULT_TRACE_ENV } from '../reference/fault-probe.js';

const MAIN = resolve(ROOT, 'dist', 'reference', 'backend', 'main.js');

/**
 * Checks a mode breaks besides its own targets, because the broken rule is part of what
 * they judge too. Each entry says why; anything else failing is a runner defect.
 */
/**
 * The checks that judge one aspect of a reply (its deny, its modifies, which effects it
 * holds) pass it only when it is valid as a whole (suites/support/expect.ts requireWholeReply):
 * a mode that breaks every reply's envelope fails them too.
 */
const WHOLE_REPLY = ['ti.advertised-effects', 'ti.deny-samples', 'ti.modify-samples'];

const ALSO_FAILS: Partial<Record<FaultMode, { checks: string[]; why: string }>> = {
  'no-jsonrpc-member': {
    checks: ['ti.result-valid', ...WHOLE_REPLY],
    why: 'the intercept-response schema requires "jsonrpc", and the checks of one aspect of a reply require it valid as a whole',
  },
  'no-result-version': {
    checks: ['ti.result-valid', ...WHOLE_REPLY],
    why: 'the intercept-response schema requires result.protocolVersion, and the checks of one aspect of a reply require it valid as a whole',
  },
  'deny-code-not-reverse-dns': {
    checks: ['ti.deny-samples'],
    why: "the deny effect schema requires a reverse-DNS code, so the sample's deny is invalid",
  },
  'wrong-id': {
    checks: ['stdio.persistent-exchanges', ...WHOLE_REPLY],
    why: 'the long run judges the id of every reply on the persistent process, and a reply to another id is no reply a harness acts on',
  },
  'effects-not-array': {
    checks: ['ti.advertised-effects'],
    why: 'its harmless call and its deny sample with nothing advertised get effects {}, a reply invalid as a whole',
  },
  'omit-effects': {
    checks: ['ti.advertised-effects'],
    why: 'its harmless call gets a result without effects, a reply draft@2b5da580 does not accept as a whole',
  },
  'ignore-capabilities': {
    checks: ['ti.state-independent'],
    why: 'its last round asks the deny and modify samples again without their effect advertised, where capability gating is judged after history: the mode sends the unadvertised effect there too',
  },
};

/** The draft@1d98c19 matrix's overlaps, as ALSO_FAILS. */
const ALSO_FAILS_1D98C19: Partial<Record<FaultMode, { checks: string[]; why: string }>> = {
  'result-configuration': {
    checks: [...WHOLE_REPLY],
    why: 'every result carries the configuration, which draft@1d98c19 keeps out of results: no reply is valid as a whole',
  },
};

/**
 * AHP_FAULT_MODES=a,b runs only these modes (and the conforming claim): a targeted run while
 * working on a few modes. The whole matrix, and the proof that every check is caught by
 * some mode, needs every mode.
 */
const ONLY = (process.env.AHP_FAULT_MODES ?? '')
  .split(',')
  .map((m) => m.trim())
  .filter(Boolean);
for (const m of ONLY)
  if (!(FAULT_MODES as string[]).includes(m)) throw new Error(`AHP_FAULT_MODES: unknown fault mode ${m}`);
const MODES: FaultMode[] = ONLY.length ? FAULT_MODES.filter((m) => ONLY.includes(m)) : FAULT_MODES;

/** The snapshot whose claim judges a mode: where its rule is (default the oldest). */
const snapshotOfMode = (m: FaultMode): SnapshotId => (FAULTS[m] as BackendFaultSpec).snapshot ?? OLDEST_SNAPSHOT;
/** The modes the draft@2b5da580 matrix runs: those of its rules, and those of every snapshot's. */
const OLDEST_MODES = MODES.filter((m) => snapshotOfMode(m) === OLDEST_SNAPSHOT);

/**
 * Modes that break a rule of draft@2b5da580 only: under a draft@1d98c19 claim the same
 * backend is conforming, and the 1d98c19 matrix proves it (no check fails or warns).
 */
const TOLERATED_BY_1D98C19: Partial<Record<FaultMode, string>> = {
  'omit-effects': 'an intercept result may leave out effects (intercept-response.schema.json@1d98c19)',
};

/** A mode of a content rule (reference/backend/content.ts): its targets are content checks. */
const isContentMode = (m: FaultMode): boolean =>
  FAULTS[m].targets.length > 0 && FAULTS[m].targets.every((t) => t.startsWith('content.'));

/** A mode that breaks no rule (slow-reverse-refusals): it has checks to pass, none to fail. */
const isCorrectMode = (m: FaultMode): boolean => FAULTS[m].targets.length === 0;

type Placement = { transport: 'stdio' | 'http'; lifecycle?: 'persistent' | 'per_event' };

/**
 * Where each mode runs: its own binding, else persistent stdio. The content modes too run on
 * that one target: the content rules do not depend on the transport. A mode that breaks no
 * rule plays with the timing and order of replies, which each transport carries its own way
 * (replies on one stream, or one response per POST): it runs on stdio persistent and HTTP.
 */
function placements(mode: FaultMode): Placement[] {
  const spec = FAULTS[mode] as { transport?: 'stdio' | 'http'; lifecycle?: 'persistent' | 'per_event' };
  if (spec.transport === 'http') return [{ transport: 'http' }];
  const stdio: Placement = { transport: 'stdio', lifecycle: spec.lifecycle ?? 'persistent' };
  return isCorrectMode(mode) && !spec.transport ? [stdio, { transport: 'http' }] : [stdio];
}

/** The timeoutMs of every matrix claim (the default, said aloud): a slow mode is told it (--timeout-ms). */
const CLAIM_TIMEOUT_MS = 2000;

interface ClaimKind {
  readonly snapshot: SnapshotId;
  /** The backend serves hooks/configuration (only where the snapshot has it): claimed, and not --no-configuration. */
  readonly configuration: boolean;
}
const OLDEST_KIND: ClaimKind = { snapshot: OLDEST_SNAPSHOT, configuration: false };
const NEW_KIND: ClaimKind = { snapshot: 'draft@1d98c19', configuration: true };

/** The kind of claim a mode runs in under a snapshot: hooks/configuration served unless the mode needs it not. */
function kindOf(mode: FaultMode | undefined, snapshot: SnapshotId): ClaimKind {
  if (snapshot === OLDEST_SNAPSHOT) return OLDEST_KIND;
  return {
    ...NEW_KIND,
    configuration: mode === undefined || (FAULTS[mode] as BackendFaultSpec).configuration !== 'not-served',
  };
}

/** What a claim holds besides its targets and kind; the conforming claim holds everything. */
interface Shape {
  readonly oauth: boolean;
  readonly upload: boolean;
  readonly content: boolean;
}
const shapeOf = (mode: FaultMode | undefined): Shape => ({
  oauth: mode !== undefined && (FAULTS[mode] as BackendFaultSpec).oauth === true,
  // The upload receiver checks: the conforming claim and the upload modes (the others never touch it).
  upload: mode === undefined || UPLOAD_MODES.has(mode),
  content: mode === undefined || isContentMode(mode),
});
const UPLOAD_MODES: ReadonlySet<FaultMode> = new Set(FAULT_MODES.filter((m) => m.startsWith('upload-')));

/** `traced`: the reference tells which fault modes its code asks about (the causal matrix's trace claims). */
function claimYaml(
  name: string,
  mode: FaultMode | undefined,
  where: { transport: 'stdio' | 'http'; lifecycle?: string }[],
  kind: ClaimKind = OLDEST_KIND,
  shape: Shape = shapeOf(mode),
  traced = false,
): string {
  const env = traced ? `, env: { ${FAULT_TRACE_ENV}: "1" }` : '';
  const serves =
    kind.snapshot === OLDEST_SNAPSHOT
      ? ''
      : `, --snapshot, ${kind.snapshot}${kind.configuration ? '' : ', --no-configuration'}`;
  const slow = mode && (FAULTS[mode] as BackendFaultSpec).timeoutMs === 'needed';
  const fault = `${serves}${mode ? `, --fault, ${mode}` : ''}${slow ? `, --timeout-ms, "${CLAIM_TIMEOUT_MS}"` : ''}`;
  const lines = [
    `implementation: { name: ${name}, version: 0.0.0 }`,
    `snapshot: ${kind.snapshot}`,
    `timeoutMs: ${CLAIM_TIMEOUT_MS}`,
    'role: backend',
    `transports: [${[...new Set(where.map((w) => w.transport))].join(', ')}]`,
    'profiles: [tool-interception, lifecycle-observation]',
    'backend:',
  ];
  const stdio = where.filter((w) => w.transport === 'stdio');
  if (stdio.length) {
    const lc = stdio.map((w) => w.lifecycle);
    // The reference backend handles both lifecycles with one command; a per_event-only fault needs to be told.
    const lifecycleArg = lc.length === 1 && lc[0] === 'per_event' ? ', --lifecycle, per_event' : '';
    lines.push(
      `  stdio: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(MAIN)}, --transport, stdio${lifecycleArg}${fault}], lifecycle: [${lc.join(', ')}]${env} }`,
    );
  }
  if (where.some((w) => w.transport === 'http')) {
    // Bearer authentication claimed, so the auth checks run; one variable per claim (a run
    // refuses two claims sharing one), left unset: the runner makes up each check's token.
    // An OAuth mode's claim says oauth instead (its checks apply only there), with a scope.
    const envName = `AHP_FAULT_${name.replace(/[^A-Za-z0-9]/g, '_').toUpperCase()}`;
    const oauth = shape.oauth;
    const [authArgs, auth] = oauth
      ? [
          `--auth, oauth, --issuer-env, ${envName}_ISSUER, --ca-file-env, ${envName}_CA_FILE, --scopes, ahp.hooks`,
          `{ type: oauth, issuerEnv: ${envName}_ISSUER, caFileEnv: ${envName}_CA_FILE, scopes: [ahp.hooks] }`,
        ]
      : [`--auth, bearer, --token-env, ${envName}_TOKEN`, `{ type: bearer, tokenEnv: ${envName}_TOKEN }`];
    // The receiver requires its own token, in a variable of its own.
    const upload = shape.upload;
    const uploadArgs = upload ? `, --upload-token-env, ${envName}_UPLOAD_TOKEN` : '';
    lines.push(
      `  http: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(MAIN)}, --transport, http, --port, "{port}", ${authArgs}${uploadArgs}${fault}], url: "http://127.0.0.1:{port}/hooks", auth: ${auth}${env} }`,
    );
    if (upload)
      lines.push(
        `  upload: { url: "http://127.0.0.1:{port}/uploads", maxBytes: 65536, auth: { type: bearer, tokenEnv: ${envName}_UPLOAD_TOKEN } }`,
      );
  }
  if (kind.configuration) lines.push('  configuration: true');
  lines.push(
    '  samples:',
    '    deny: [ { event: tool.before, tool: { name: rm_rf, input: { path: / } } } ]',
    '    modify: [ { event: tool.before, tool: { name: write_file, input: { path: a.txt } }, effects: [modify] } ]',
  );
  // One sample per content boundary (every field the builder's default, suites/support/
  // content-events.ts) for the conforming claim and the content modes only: the other modes
  // never act at a content boundary (all 30 content checks pass under each of them), and
  // 30 more checks for each of them would cost the every-check matrix about 1200 check runs.
  if (shape.content) lines.push(`    content: [ ${BOUNDARIES.map((b) => `{ event: ${b.event} }`).join(', ')} ]`);
  return `${lines.join('\n')}\n`;
}

/** The conforming backend in the shape of a mode's claim under `snapshot`: same placement, kind and lists. */
const traceOf =
  (snapshot: SnapshotId) =>
  (key: string): TraceClaim | undefined => {
    if (!(FAULT_MODES as string[]).includes(key)) return undefined; // a variant of the reference, not a mode
    const mode = key as FaultMode;
    const where = placements(mode);
    const kind = kindOf(mode, snapshot);
    const shape = shapeOf(mode);
    return {
      mode,
      shape: JSON.stringify({ where, kind, shape }),
      yaml: (name) => claimYaml(name, undefined, where, kind, shape, true),
    };
  };

/**
 * The conforming backend of a snapshot: the bundled claim, as `npm run conformance`
 * certifies it, renamed and with its paths made absolute. So .ci/run, which certifies those
 * claims just before, hands their results over (AHP_MATRIX_PROVEN, test/support/fault-matrix.ts)
 * instead of certifying them twice.
 */
const CONFORMING_CLAIMS: Record<SnapshotId, string> = {
  'draft@2b5da580': resolve(ROOT, 'claims', 'reference-backend.yaml'),
  'draft@1d98c19': resolve(ROOT, 'claims', 'reference-backend-1d98c19.yaml'),
};
function conformingYaml(snapshot: SnapshotId): string {
  const file = CONFORMING_CLAIMS[snapshot];
  type Launch = { command: string; args: string[] };
  const claim = YAML.parse(readFileSync(file, 'utf8')) as {
    implementation: unknown;
    backend: { stdio: Launch; http: Launch };
  };
  claim.implementation = { name: 'conforming', version: '0.0.0' };
  for (const launch of [claim.backend.stdio, claim.backend.http]) {
    launch.command = process.execPath;
    launch.args = launch.args.map((a) => (a.startsWith('../') ? resolve(dirname(file), a) : a));
  }
  return YAML.stringify(claim);
}

test.describe.configure({ mode: 'serial' });

test(matrixClaim('backend'), async () => {
  test.setTimeout(40 * 60_000);
  checkFaultMatrix({
    tempPrefix: 'ahp-faults-',
    runs: [
      {
        conforming: conformingYaml(OLDEST_SNAPSHOT),
        faults: Object.fromEntries(
          OLDEST_MODES.map((m) => [m, claimYaml(`fault-${m}`, m, placements(m), kindOf(m, OLDEST_SNAPSHOT))]),
        ),
      },
    ],
    table: faultTable(FAULTS, ALSO_FAILS),
    proven: provenResults(CONFORMING_CLAIMS[OLDEST_SNAPSHOT]),
    workers: 4,
    timeoutMs: 19 * 60_000,
    trace: traceOf(OLDEST_SNAPSHOT),
    modeNames: FAULT_MODES,
    // Every check that applies to a backend (those the conforming claim ran) is shown failing by some mode.
    ...(MODES.length === FAULT_MODES.length
      ? {
          everyCheck: (conforming) => conforming.checks.filter((c) => c.status !== 'not-applicable').map((c) => c.id),
        }
      : {}),
  });
});

// The draft@1d98c19 matrix: the reference backend following 1d98c19 passes everything (it
// serves hooks/configuration), as it does serving none (--no-configuration, whose claim
// says so); each 1d98c19 mode fails its targets; and the modes only 2b5da580 forbids fail nothing.
const NEW_MODES = MODES.filter((m) => snapshotOfMode(m) === 'draft@1d98c19');
const TOLERATED = MODES.filter((m) => TOLERATED_BY_1D98C19[m] !== undefined);
/** A run of the reference with no fault that serves no configuration: a variant, not a fault. */
const NO_CONFIGURATION = 'no-configuration';

test(`draft@1d98c19: ${matrixClaim('backend')}`, () => {
  test.skip(NEW_MODES.length + TOLERATED.length === 0, 'AHP_FAULT_MODES names no draft@1d98c19 mode');
  test.setTimeout(40 * 60_000);
  const clean = new Set<string>([...TOLERATED, NO_CONFIGURATION]);
  const yaml = (mode: FaultMode): string =>
    claimYaml(`fault-${mode}`, mode, placements(mode), kindOf(mode, 'draft@1d98c19'));
  checkFaultMatrix({
    tempPrefix: 'ahp-faults-1d98c19-',
    runs: [
      {
        conforming: conformingYaml('draft@1d98c19'),
        faults: {
          ...Object.fromEntries([...NEW_MODES, ...TOLERATED].map((m) => [m, yaml(m)])),
          [NO_CONFIGURATION]: claimYaml(
            `fault-${NO_CONFIGURATION}`,
            undefined,
            [{ transport: 'stdio', lifecycle: 'persistent' }],
            {
              ...NEW_KIND,
              configuration: false,
            },
          ),
        },
      },
    ],
    table: {
      modes: [...NEW_MODES, ...TOLERATED, NO_CONFIGURATION],
      targets: (m) => (clean.has(m) ? [] : FAULTS[m as FaultMode].targets),
      alsoFails: (m) => ALSO_FAILS_1D98C19[m as FaultMode]?.checks ?? [],
      // What a tolerated mode would fail under 2b5da580, and the check of a backend serving no configuration, pass.
      passes: (m) =>
        m === NO_CONFIGURATION ? ['base.configuration-unoffered'] : clean.has(m) ? FAULTS[m as FaultMode].targets : [],
    },
    proven: provenResults(CONFORMING_CLAIMS['draft@1d98c19']),
    workers: 4,
    trace: traceOf('draft@1d98c19'),
    modeNames: FAULT_MODES,
    timeoutMs: 19 * 60_000,
    // The checks of 1d98c19 rules are each shown failing by some 1d98c19 mode.
    ...(NEW_MODES.length === FAULT_MODES.filter((m) => snapshotOfMode(m) === 'draft@1d98c19').length
      ? {
          everyCheck: () =>
            CHECKS.filter((c) => c.roles.includes('backend') && c.snapshots?.includes('draft@1d98c19')).map(
              (c) => c.id,
            ),
        }
      : {}),
  });
});
