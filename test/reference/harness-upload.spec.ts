// The reference harness's upload module (reference/harness/upload.ts) against the runner's
// receiver: media uploaded and referenced by the receipt's ref, text and JSON inline, and
// an unconfirmed upload failing under fail-closed (a gap under fail-open).
import { NO_FAULT } from '../../reference/harness/faults.js';
import { test, expect } from '@playwright/test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UploadReceiver, type UploadAnswer } from '../../drivers/upload-receiver.js';
import { prepareAttachments } from '../../reference/harness/upload.js';
import type { Recipient } from '../../reference/harness/dispatch.js';
import type { FailurePolicy } from '../../reference/harness/registration.js';
import type { JsonObject } from '../../src/protocol/json.js';

const dir = mkdtempSync(join(tmpdir(), 'ahp-upload-'));
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));
const png = join(dir, 'a.png');
const json = join(dir, 'a.json');
writeFileSync(png, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]));
writeFileSync(json, '{"a":1}');

const body = (): JsonObject => ({
  message: {
    channel: 'c',
    messages: [
      {
        id: 'm1',
        role: 'user',
        parts: [
          { id: 'p1', kind: 'attachment', mediaType: 'image/png', selection: 'body', file: png },
          { id: 'p2', kind: 'attachment', mediaType: 'application/json', selection: 'body', file: json },
        ],
      },
    ],
  },
});

const recipient = (endpoint: string, failurePolicy: FailurePolicy): Recipient => ({
  hook: { id: 'h', transport: { type: 'http', url: 'http://127.0.0.1:1/x' }, subscriptions: [] },
  subscription: {
    events: ['user.message.inbound'],
    mode: 'intercept',
    timeoutMs: 2000,
    failurePolicy,
    view: 'body',
    upload: { endpoint, timeoutMs: 2000, maxBytes: 1024 },
  },
});

async function prepare(answer: UploadAnswer, policy: FailurePolicy) {
  const r = await UploadReceiver.start({ answers: [answer] });
  try {
    const out = await prepareAttachments(body(), [recipient(r.endpoint('u'), policy)], NO_FAULT);
    return { out, records: r.records };
  } finally {
    await r.close();
  }
}

const partsOf = (b: JsonObject) => ((b.message as JsonObject).messages as JsonObject[])[0]!.parts as JsonObject[];

test('a confirmed upload is referenced by its receipt; JSON stays inline and is not uploaded', async () => {
  const { out, records } = await prepare('receipt', 'fail-closed');
  expect(out.ok).toBe(true);
  if (!out.ok) return;
  const [p1, p2] = partsOf(out.body);
  expect(records).toHaveLength(1);
  expect(p1).toEqual({
    id: 'p1',
    kind: 'attachment',
    mediaType: 'image/png',
    selection: 'body',
    body: { ref: records[0]!.receipt!.ref },
  });
  expect(p2).toEqual({ id: 'p2', kind: 'text', mediaType: 'text/plain', selection: 'body', text: '{"a":1}' });
});

for (const answer of ['accepted', 'no-content', 'mismatch', 'redirect'] as const)
  test(`an upload answered ${answer} fails under fail-closed and is a gap under fail-open`, async () => {
    expect((await prepare(answer, 'fail-closed')).out.ok).toBe(false);
    const { out, records } = await prepare(answer, 'fail-open');
    expect(records.filter((r) => r.redirected)).toHaveLength(0);
    expect(out.ok).toBe(true);
    if (out.ok)
      expect(partsOf(out.body)[0]).toMatchObject({ id: 'p1', selection: 'body', gap: { reason: 'upload failed' } });
  });
