// Raw upload requests the runner sends to a backend's upload receiver: the framing is the
// caller's (right or wrong on purpose), the answer is read bounded and kept as bytes.
import { request } from 'node:http';
import { request as httpsRequest } from 'node:https';

export const UPLOAD_ANSWER_CAP = 64 * 1024;

export interface UploadAnswerSeen {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * POST `body` with exactly `headers` (no Content-Length is added; `chunked` sends the body in
 * two writes without one). Resolves with the answer, or undefined when none came in time.
 */
export function postRawUpload(
  url: string,
  opts: { headers: Record<string, string>; body: Buffer; chunked?: boolean; timeoutMs: number },
): Promise<UploadAnswerSeen | undefined> {
  return new Promise((resolve) => {
    const send = url.startsWith('https:') ? httpsRequest : request;
    const req = send(
      url,
      { method: 'POST', headers: opts.headers, agent: false, signal: AbortSignal.timeout(opts.timeoutMs) },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (c: Buffer) => {
          if (kept < UPLOAD_ANSWER_CAP) chunks.push(c.subarray(0, UPLOAD_ANSWER_CAP - kept));
          kept += c.length;
        });
        res.on('error', () => resolve(undefined));
        res.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers))
            headers[k] = Array.isArray(v) ? v.join(', ') : String(v ?? '');
          resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
        });
      },
    );
    // A receiver may answer (413, 400) and close before reading the whole body.
    req.on('error', () => resolve(undefined));
    if (opts.chunked && opts.body.length > 1) {
      req.write(opts.body.subarray(0, 1));
      req.end(opts.body.subarray(1));
    } else req.end(opts.body);
  });
}
