// One HTTP request of the reference harness (the event transport and the OAuth client), on
// node:http / node:https rather than undici (the runner's client, drivers/http.ts): loading
// undici costs this process about 0.2 s of CPU at every start, and the fault matrices start
// it thousands of times. Nothing here follows a redirect (a 3xx is an answer like any other),
// and the body is read up to a bound. Deadlines are the caller's: `options.signal`.
// Credentials in a URL (`user:pass@`) are never sent: node:http would turn them into a second,
// Basic, Authorization header; undici ignored them, and so does this.
import { request as httpRequest, type IncomingHttpHeaders, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/**
 * Send `body` (none: an empty request body) to `url` and read the answer to its end. Resolves
 * 'too-large' (and drops the connection) as soon as the body passes `maxBytes`; rejects with
 * the request's error, or an ECONNRESET one when the connection ends inside the body.
 */
export function exchange(
  url: string,
  options: RequestOptions,
  body: Buffer | undefined,
  maxBytes: number,
): Promise<Answer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    target.username = '';
    target.password = '';
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          resolve('too-large');
          req.destroy();
        } else chunks.push(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
      res.on('close', () => {
        if (!res.complete)
          reject(Object.assign(new Error('the connection ended inside the body'), { code: 'ECONNRESET' }));
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
