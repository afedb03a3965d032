// The reference backend's upload receiver (reference/backend/upload.ts), in process: a
// well-framed upload gets a matching receipt; bad framing 400, too many bytes 413; the two
// upload fault modes change exactly that. With its own token (--upload-token-env), anything
// else gets 401 and a Bearer challenge, the event token included; the two credential fault
// modes break exactly that.
import { test, expect } from '@playwright/test';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createBackendServer, listen } from '../../reference/backend/http.js';
import { DEFAULT_POLICY } from '../../reference/backend/policy.js';
import { UPLOAD_MAX_BYTES, UPLOAD_PATH } from '../../reference/backend/upload.js';
import type { FaultMode } from '../../reference/backend/faults.js';
import { FaultProbe } from '../../reference/fault-probe.js';
import { postRawUpload } from '../../drivers/upload-client.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const framing = (b: Buffer): Record<string, string> => ({
  'content-type': 'application/octet-stream',
  'content-length': String(b.length),
  'ahp-content-sha256': sha(b),
});

async function withReceiver(
  fault: FaultMode | undefined,
  f: (url: string) => Promise<void>,
  tokens: { token?: string; uploadToken?: string } = {},
): Promise<void> {
  const server = createBackendServer({
    host: '127.0.0.1',
    port: 0,
    path: '/hooks',
    ...tokens,
    ctx: { policy: DEFAULT_POLICY, fault: new FaultProbe(fault) },
  });
  await listen(server, '127.0.0.1', 0);
  try {
    await f(`http://127.0.0.1:${(server.address() as AddressInfo).port}${UPLOAD_PATH}`);
  } finally {
    await new Promise((r) => server.close(r));
  }
}

const post = (url: string, headers: Record<string, string>, body: Buffer, chunked = false) =>
  postRawUpload(url, { headers, body, chunked, timeoutMs: 5000 });

test('a well-framed upload gets a 201 receipt of the bytes; bad framing 400, too many bytes 413', async () => {
  await withReceiver(undefined, async (url) => {
    const body = Buffer.concat([Buffer.from([0, 0xff]), randomBytes(100)]);
    const ok = await post(url, framing(body), body);
    expect(ok?.status).toBe(201);
    expect(ok?.headers['content-type']).toBe('application/json');
    const receipt = JSON.parse(ok!.body.toString()) as { ref: string; size: number; sha256: string };
    expect(receipt).toMatchObject({ size: body.length, sha256: sha(body) });
    expect((await post(url, framing(Buffer.alloc(0)), Buffer.alloc(0)))?.status).toBe(201);
    expect((await post(url, { ...framing(body), 'ahp-content-sha256': sha(Buffer.from('x')) }, body))?.status).toBe(
      400,
    );
    expect((await post(url, { ...framing(body), 'ahp-content-sha256': sha(body).toUpperCase() }, body))?.status).toBe(
      400,
    );
    expect((await post(url, { ...framing(body), 'content-type': 'text/plain' }, body))?.status).toBe(400);
    const { 'content-length': _, ...chunked } = framing(body);
    expect((await post(url, chunked, body, true))?.status).toBe(400);
    const big = randomBytes(UPLOAD_MAX_BYTES + 1);
    expect((await post(url, framing(big), big))?.status).toBe(413);
  });
});

test('upload-lenient-receiver accepts bad framing; upload-receipt-mismatch names another digest', async () => {
  const body = randomBytes(64);
  await withReceiver('upload-lenient-receiver', async (url) => {
    expect((await post(url, { ...framing(body), 'ahp-content-sha256': sha(Buffer.from('x')) }, body))?.status).toBe(
      201,
    );
  });
  await withReceiver('upload-receipt-mismatch', async (url) => {
    const a = await post(url, framing(body), body);
    expect(a?.status).toBe(201);
    expect((JSON.parse(a!.body.toString()) as { sha256: string }).sha256).not.toBe(sha(body));
  });
});

test('a receiver with its own token refuses every other credential with 401 and a Bearer challenge', async () => {
  const tokens = { token: 'event-token-1', uploadToken: 'upload-token-2' };
  const body = randomBytes(64);
  const as = (authorization?: string) => ({ ...framing(body), ...(authorization ? { authorization } : {}) });
  await withReceiver(
    undefined,
    async (url) => {
      for (const authorization of [undefined, 'Bearer wrong', 'Bearer event-token-1']) {
        const a = await post(url, as(authorization), body);
        expect(a?.status).toBe(401);
        expect(a?.headers['www-authenticate']).toMatch(/^Bearer /);
        expect(a?.body.toString()).not.toContain('token');
      }
      expect((await post(url, as('Bearer upload-token-2'), body))?.status).toBe(201);
    },
    tokens,
  );
  await withReceiver(
    'upload-receiver-anonymous',
    async (url) => {
      expect((await post(url, as(), body))?.status).toBe(201);
      expect((await post(url, as('Bearer wrong'), body))?.status).toBe(201);
    },
    tokens,
  );
  await withReceiver(
    'upload-receiver-event-token',
    async (url) => {
      expect((await post(url, as('Bearer event-token-1'), body))?.status).toBe(201);
      expect((await post(url, as(), body))?.status).toBe(401);
      expect((await post(url, as('Bearer wrong'), body))?.status).toBe(401);
    },
    tokens,
  );
});
