// Every check can fail: the reference backend passes everything, and each of its fault
// modes makes the runner fail exactly the checks that mode targets, and no others (the
// "no others" part in the every-check scope, `npm run test:matrix`: test/support/fault-matrix.ts).
// All fault modes run in one `ahp-conformance run` (one Playwright invocation, a project
// per mode), so this costs one run, not one per mode.
import { test } from '@playwright/test';
import { resolve } from 'node:path';
import { FAULTS, FAULT_MODES, type FaultMode } from '../reference/backend/faults.js';
import { ROOT } from './support/paths.js';
import { checkFaultMatrix, faultTable, matrixClaim } from './support/fault-matrix.js';

const MAIN = resolve(ROOT, 'dist', 'reference', 'backend', 'main.js');

/**
 * Checks a mode breaks besides its own targets, because the broken rule is part of what
 * they judge too. Each entry says why; anything else failing is a runner defect.
 */
const ALSO_FAILS: Partial<Record<FaultMode, { checks: string[]; why: string }>> = {
  'no-jsonrpc-member': { checks: ['ti.result-valid'], why: 'the intercept-response schema requires "jsonrpc"' },
  'no-result-version': {
    checks: ['ti.result-valid'],
    why: 'the intercept-response schema requires result.protocolVersion',
  },
  'deny-code-not-reverse-dns': {
    checks: ['ti.deny-samples'],
    why: "the deny effect schema requires a reverse-DNS code, so the sample's deny is invalid",
  },
  'wrong-id': {
    checks: ['stdio.persistent-exchanges'],
    why: 'the long run judges the id of every reply on the persistent process',
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

/** Where each mode runs: its own binding, else persistent stdio. */
function placement(mode: FaultMode): { transport: 'stdio' | 'http'; lifecycle?: 'persistent' | 'per_event' } {
  const spec = FAULTS[mode] as { transport?: 'stdio' | 'http'; lifecycle?: 'persistent' | 'per_event' };
  if (spec.transport === 'http') return { transport: 'http' };
  return { transport: 'stdio', lifecycle: spec.lifecycle ?? 'persistent' };
}

function claimYaml(
  name: string,
  mode: FaultMode | undefined,
  where: { transport: 'stdio' | 'http'; lifecycle?: string }[],
): string {
  const fault = mode ? `, --fault, ${mode}` : '';
  const lines = [
    `implementation: { name: ${name}, version: 0.0.0 }`,
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
      `  stdio: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(MAIN)}, --transport, stdio${lifecycleArg}${fault}], lifecycle: [${lc.join(', ')}] }`,
    );
  }
  if (where.some((w) => w.transport === 'http')) {
    lines.push(
      `  http: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(MAIN)}, --transport, http, --port, "{port}"${fault}], url: "http://127.0.0.1:{port}/hooks" }`,
    );
  }
  lines.push(
    '  samples:',
    '    deny: [ { event: tool.before, tool: { name: rm_rf, input: { path: / } } } ]',
    '    modify: [ { event: tool.before, tool: { name: write_file, input: { path: a.txt } }, effects: [modify] } ]',
  );
  return `${lines.join('\n')}\n`;
}

test.describe.configure({ mode: 'serial' });

test(matrixClaim('backend'), async () => {
  test.setTimeout(20 * 60_000);
  checkFaultMatrix({
    tempPrefix: 'ahp-faults-',
    runs: [
      {
        conforming: claimYaml('conforming', undefined, [
          { transport: 'stdio', lifecycle: 'persistent' },
          { transport: 'stdio', lifecycle: 'per_event' },
          { transport: 'http' },
        ]),
        faults: Object.fromEntries(MODES.map((m) => [m, claimYaml(`fault-${m}`, m, [placement(m)])])),
      },
    ],
    table: faultTable(FAULTS, ALSO_FAILS),
    workers: 4,
    timeoutMs: 19 * 60_000,
    // Every check that applies to a backend (those the conforming claim ran) is shown failing by some mode.
    ...(MODES.length === FAULT_MODES.length ? { everyCheck: (conforming) => conforming.checks.map((c) => c.id) } : {}),
  });
});
