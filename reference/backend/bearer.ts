// One bearer comparison for the reference backend's protected endpoints (the event endpoint,
// http.ts, and the upload receiver, upload.ts): the exact header, in constant time.
import { timingSafeEqual } from 'node:crypto';

export function authorized(header: string | undefined, token: string): boolean {
  if (header === undefined) return false;
  const got = Buffer.from(header, 'utf8');
  const want = Buffer.from(`Bearer ${token}`, 'utf8');
  return got.length === want.length && timingSafeEqual(got, want);
}
