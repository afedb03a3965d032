// `npm run bench`: validator throughput as ratios against JSON.parse in the same run
// (absolute numbers vary by machine; ratios are what to compare between commits).
import { performance } from 'node:perf_hooks';
import { parseJsonBytes } from '../src/protocol/json.js';
import { ourSchemas } from '../src/protocol/schema-set.js';
import { validateRaw } from '../src/protocol/validator.js';

const request = {
  jsonrpc: '2.0', id: 'evt-1', method: 'hooks/intercept',
  params: {
    protocolVersion: 'draft',
    capabilities: { effects: ['deny', 'modify', 'message'], modify: { input: { replace: true, merge: true } } },
    event: {
      id: 'evt-1', source: 'ahp://harness/bench', type: 'tool.before', time: '2026-11-30T12:00:00.000Z',
      harness: { name: 'bench', version: '1.0.0' }, session: { id: 's-1', cwd: '/work' },
      call: { id: 'call-1' }, tool: { name: 'write_file', input: { path: 'a.txt', content: 'x'.repeat(2000) }, origin: 'native' },
      path: 'write_file',
      items: [{ id: 'p1', kind: 'text', mediaType: 'text/plain', selection: 'body', text: 'hello '.repeat(200) }],
    },
  },
};
const invalid = structuredClone(request) as typeof request & { params: { event: Record<string, unknown> } };
invalid.params.event.type = 'tool.unknown';
const bytes = new TextEncoder().encode(JSON.stringify(request));
const badBytes = new TextEncoder().encode(JSON.stringify(invalid));

function rate(name: string, fn: () => unknown, ms = 1500): { name: string; perSecond: number } {
  for (let i = 0; i < 200; i++) fn(); // warm up
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 50; i++) fn();
    n += 50;
    now = performance.now();
  }
  return { name, perSecond: (n * 1000) / (now - start) };
}

const compileStart = performance.now();
ourSchemas().forKind('intercept-request');
const compileMs = performance.now() - compileStart;

const decoder = new TextDecoder();
const baseline = rate('JSON.parse (baseline)', () => JSON.parse(decoder.decode(bytes)));
const rows = [
  baseline,
  rate('strict parse (UTF-8, duplicate keys)', () => parseJsonBytes(bytes)),
  rate('validateRaw: valid intercept request', () => validateRaw('intercept-request', bytes)),
  rate('validateRaw: invalid request, explained', () => validateRaw('intercept-request', badBytes), 1000),
  rate('validateRaw: any message (aggregate)', () => validateRaw('ahp', bytes)),
];
process.stdout.write(`message size ${bytes.length} bytes; first compile of intercept-request ${compileMs.toFixed(0)} ms\n`);
for (const r of rows) {
  process.stdout.write(`${r.name.padEnd(44)} ${Math.round(r.perSecond).toString().padStart(9)}/s   ${(baseline.perSecond / r.perSecond).toFixed(1)}x the baseline's time\n`);
}
