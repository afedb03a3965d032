// The runner's upload receiver: records requests as they came and answers by script.
import { test, expect } from '@playwright/test';
import { request } from 'node:http';
import { sha256Hex, UploadReceiver, REDIRECTED_PREFIX } from '../../drivers/upload-receiver.js';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One raw POST: `chunked` sends the body without Content-Length. */
function post(url: string, body: Buffer, headers: Record<string, string>, chunked = false): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }),
      );
    });
    req.on('error', reject);
    if (chunked) {
      req.write(body.subarray(0, 2));
      req.end(body.subarray(2));
    } else req.end(body);
  });
}

const BYTES = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x10]);
const framing = (b: Buffer): Record<string, string> => ({
  'content-type': 'application/octet-stream',
  'content-length': String(b.length),
  'ahp-content-sha256': sha256Hex(b),
});

test('answers each request in turn and records what it got', async () => {
  const r = await UploadReceiver.start({
    answers: ['receipt', 'mismatch', 'accepted', 'no-content', 'redirect'],
    secrets: ['sekrit-1'],
  });
  try {
    const url = r.endpoint('u');
    const ok = await post(url, BYTES, framing(BYTES));
    expect(ok.status).toBe(201);
    expect(ok.headers['content-type']).toBe('application/json');
    const receipt = JSON.parse(ok.body) as { ref: string; size: number; sha256: string };
    expect(receipt.size).toBe(BYTES.length);
    expect(receipt.sha256).toBe(sha256Hex(BYTES));
    expect(receipt.ref).toMatch(/^ahp-upload-/);

    const bad = JSON.parse((await post(url, BYTES, framing(BYTES))).body) as { size: number; sha256: string };
    expect(bad.size).not.toBe(BYTES.length);
    expect(bad.sha256).not.toBe(sha256Hex(BYTES));
    expect((await post(url, BYTES, framing(BYTES))).status).toBe(202);
    expect((await post(url, BYTES, { ...framing(BYTES), authorization: 'Bearer sekrit-1' })).status).toBe(204);
    const moved = await post(url, BYTES, framing(BYTES));
    expect(moved.status).toBe(307);
    expect(String(moved.headers.location)).toContain(REDIRECTED_PREFIX);
    // The last answer repeats; the redirect target answers a receipt and is marked.
    expect((await post(url, BYTES, framing(BYTES))).status).toBe(307);
    expect((await post(String(moved.headers.location), BYTES, framing(BYTES))).status).toBe(201);

    const [first] = r.records;
    expect(first).toMatchObject({
      method: 'POST',
      url: '/uploads/u?via=ahp-conformance',
      contentType: 'application/octet-stream',
      contentLength: String(BYTES.length),
      sha256Header: sha256Hex(BYTES),
      size: BYTES.length,
      sha256: sha256Hex(BYTES),
      secretSeen: false,
      redirected: false,
      authorizationCount: 0,
      status: 201,
    });
    expect(first!.answeredAt).toBeGreaterThanOrEqual(first!.t);
    expect(r.records[3]).toMatchObject({ authorizationCount: 1, secretSeen: true, status: 204 });
    // Another path is no upload: 404, and the script is not advanced.
    expect((await post(`${r.origin}/.well-known/oauth-protected-resource`, BYTES, {})).status).toBe(404);
    expect(r.uploads).toHaveLength(7);
    expect(r.records.filter((x) => x.redirected)).toHaveLength(1);
  } finally {
    await r.close();
  }
});

test('records a chunked body whole, without a Content-Length', async () => {
  const r = await UploadReceiver.start({ answers: ['receipt'] });
  try {
    const { status } = await post(
      r.endpoint('c'),
      BYTES,
      { 'content-type': 'application/octet-stream', 'ahp-content-sha256': sha256Hex(BYTES) },
      true,
    );
    expect(status).toBe(201);
    expect(r.records[0]).toMatchObject({ transferEncoding: 'chunked', size: BYTES.length, sha256: sha256Hex(BYTES) });
    expect(r.records[0]!.contentLength).toBeUndefined();
  } finally {
    await r.close();
  }
});
