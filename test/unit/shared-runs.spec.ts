// Shared adapter runs (drivers/adapter-runs.ts): made once per key, handed to later callers,
// and through a store to a worker that starts after a failed check; a production that fails
// is neither shared nor kept.
import { test, expect } from '@playwright/test';
import { SharedRuns, type SharedRunStore } from '../../drivers/adapter-runs.js';

function memoryStore(): SharedRunStore<string> & { kept: Map<string, string> } {
  const kept = new Map<string, string>();
  return { kept, read: (k) => kept.get(k), write: (k, v) => void kept.set(k, v) };
}

test('a run is made once per key and shared with later callers of the worker', async () => {
  const runs = new SharedRuns<string>();
  let made = 0;
  const produce = async (): Promise<string> => `run ${++made}`;
  expect(await runs.get('a', produce)).toEqual({ value: 'run 1', shared: false });
  expect(await runs.get('a', produce)).toEqual({ value: 'run 1', shared: true });
  expect(await runs.get('b', produce)).toEqual({ value: 'run 2', shared: false });
});

test("a worker started after another's failure reads the stored run instead of making it again", async () => {
  const store = memoryStore();
  let made = 0;
  const produce = async (): Promise<string> => `run ${++made}`;
  expect(await new SharedRuns<string>().get('a', produce, store)).toEqual({ value: 'run 1', shared: false });
  // A new worker: an empty memory, the same store.
  expect(await new SharedRuns<string>().get('a', produce, store)).toEqual({ value: 'run 1', shared: true });
  expect(made).toBe(1);
});

test('a production that fails is neither shared nor stored: the next caller makes the run', async () => {
  const store = memoryStore();
  const runs = new SharedRuns<string>();
  await expect(runs.get('a', () => Promise.reject(new Error('adapter crashed')), store)).rejects.toThrow(
    'adapter crashed',
  );
  expect(store.kept.size).toBe(0);
  expect(await runs.get('a', async () => 'made again', store)).toEqual({ value: 'made again', shared: false });
});
