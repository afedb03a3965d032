// Where a hook endpoint may be reached: plain http only to loopback (a token must never cross a
// network in clear), https anywhere. Apart from drivers/http.ts (which re-exports it) so that the
// reference harness can check a registration's URLs without loading the runner's HTTP client
// (undici) at every start.
import { isIPv4, isIPv6 } from 'node:net';

/** 127.0.0.0/8, ::1 (any spelling, also IPv4-mapped 127/8) and localhost. Brackets are accepted. */
export function isLoopbackHost(host: string): boolean {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.') && !isIPv4(h.slice(0, -1))) h = h.slice(0, -1);
  if (h === 'localhost') return true;
  if (isIPv4(h)) return h.split('.')[0] === '127';
  if (isIPv6(h)) {
    let canon: string;
    try {
      canon = new URL(`http://[${h}]/`).hostname; // WHATWG canonical (compressed) form
    } catch {
      return false;
    }
    canon = canon.slice(1, -1);
    if (canon === '::1') return true;
    // ::ffff:127.x.y.z is written ::ffff:7fxx:xxxx in canonical form
    return /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(canon);
  }
  return false;
}

/** http: only to loopback hosts; https: any host; any other scheme is refused. */
export function checkUrl(url: string): { ok: true } | { ok: false; message: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { ok: false, message: `not a valid URL: ${url}` };
  }
  if (u.protocol === 'https:') return { ok: true };
  if (u.protocol === 'http:') {
    if (isLoopbackHost(u.hostname)) return { ok: true };
    return {
      ok: false,
      message: `refusing plain http to non-loopback host ${u.hostname}: use https, or a loopback address (127.0.0.0/8, ::1, localhost)`,
    };
  }
  return { ok: false, message: `unsupported URL scheme ${u.protocol} (only http to loopback, or https)` };
}
