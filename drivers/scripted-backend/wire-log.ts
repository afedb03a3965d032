// The wire log: every scripted backend of one harness run (stdio processes the harness
// starts, and the runner's HTTP server) appends to one JSON-lines file. Appends are
// synchronous single writes, so the file order is the order in which things happened,
// across processes: "b received its request after a answered" is a file-order fact.
import { appendFileSync, readFileSync } from 'node:fs';
import type { WireRecord } from './script.js';

/** Records above this size keep a truncated text (the log stays bounded). */
const MAX_TEXT = 64 * 1024;

export function appendRecord(file: string, record: WireRecord): void {
  const r = record.text !== undefined && record.text.length > MAX_TEXT
    ? { ...record, text: record.text.slice(0, MAX_TEXT), note: `${record.note ? `${record.note}; ` : ''}truncated to ${MAX_TEXT} characters` }
    : record;
  appendFileSync(file, `${JSON.stringify(r)}\n`);
}

export function readRecords(file: string): WireRecord[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const out: WireRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      out.push(JSON.parse(line) as WireRecord);
    } catch {
      // A record cut short by a killed process: nothing to judge in it.
    }
  }
  return out;
}

/** How many frames of `method` the hook has received so far (the next frame's ordinal). */
export function countFrames(file: string, hook: string, method: string): number {
  return readRecords(file).filter((r) => r.kind === 'frame' && r.hook === hook && r.method === method).length;
}

/** How many frames of `method` for scenario step `step` the hook has received so far. */
export function countStepFrames(file: string, hook: string, method: string, step: string): number {
  return readRecords(file).filter((r) => r.kind === 'frame' && r.hook === hook && r.method === method && r.step === step).length;
}
