// The AHP checker's own `uri` and `date-time` format grammars (RFC 3986 absolute URI,
// RFC 3339 date-time). Hand-written scanners rather than regexes, so there is no
// ambiguity about anchoring (a JS `$` would accept a trailing "\n").

// ---------------------------------------------------------------------------------------
// URI (RFC 3986 section 3, syntax only)

const ALPHA = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const DIGIT = '0123456789';
const UNRESERVED = ALPHA + DIGIT + '-._~';
const SUB_DELIMS = "!$&'()*+,;=";

function charTable(chars: string): boolean[] {
  const t = new Array<boolean>(128).fill(false);
  for (const c of chars) t[c.charCodeAt(0)] = true;
  return t;
}

const SCHEME_REST = charTable(ALPHA + DIGIT + '+-.');
const REG_NAME = charTable(UNRESERVED + SUB_DELIMS); // also pct-encoded
const USERINFO = charTable(UNRESERVED + SUB_DELIMS + ':'); // also pct-encoded
const PATH = charTable(UNRESERVED + SUB_DELIMS + ':@/'); // pchar and "/"
const QUERY = charTable(UNRESERVED + SUB_DELIMS + ':@/?'); // query and fragment
const FUTURE_TAIL = charTable(UNRESERVED + SUB_DELIMS + ':');

function isAlpha(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function isDigitCode(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigitCode(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** Every char of s is in `table` or part of a well-formed %HH. Non-ASCII always fails. */
function allowed(s: string, table: boolean[], pct: boolean): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x25 && pct) {
      if (!isHex(s.charCodeAt(i + 1)) || !isHex(s.charCodeAt(i + 2))) return false;
      i += 2;
    } else if (c >= 128 || !table[c]) {
      return false;
    }
  }
  return true;
}

/** RFC 3986 absolute URI: scheme ":" hier-part [ "?" query ] [ "#" fragment ]. */
export function isUri(s: string): boolean {
  const colon = s.indexOf(':');
  if (colon < 1 || !isAlpha(s.charCodeAt(0))) return false;
  for (let i = 1; i < colon; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || !SCHEME_REST[c]) return false;
  }

  let rest = s.slice(colon + 1);
  const hash = rest.indexOf('#');
  if (hash !== -1) {
    // A second "#" lands in the fragment and is rejected there.
    if (!allowed(rest.slice(hash + 1), QUERY, true)) return false;
    rest = rest.slice(0, hash);
  }
  const q = rest.indexOf('?');
  if (q !== -1) {
    if (!allowed(rest.slice(q + 1), QUERY, true)) return false;
    rest = rest.slice(0, q);
  }

  if (rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = slash === -1 ? rest.slice(2) : rest.slice(2, slash);
    const path = slash === -1 ? '' : rest.slice(slash); // path-abempty
    return isAuthority(authority) && allowed(path, PATH, true);
  }
  // path-absolute / path-rootless / path-empty: the "//" case was taken above, so any
  // run of pchar and "/" matches one of them.
  return allowed(rest, PATH, true);
}

function isAuthority(a: string): boolean {
  let hostPort = a;
  const at = a.indexOf('@');
  if (at !== -1) {
    if (!allowed(a.slice(0, at), USERINFO, true)) return false;
    hostPort = a.slice(at + 1); // a further "@" is not a host character and fails below
  }

  let port: string;
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    if (close === -1 || !isIpLiteralBody(hostPort.slice(1, close))) return false;
    const after = hostPort.slice(close + 1);
    if (after === '') return true;
    if (after[0] !== ':') return false;
    port = after.slice(1);
  } else {
    const colon = hostPort.indexOf(':');
    const host = colon === -1 ? hostPort : hostPort.slice(0, colon);
    // IPv4address is a subset of reg-name, which may also be empty.
    if (!allowed(host, REG_NAME, true)) return false;
    port = colon === -1 ? '' : hostPort.slice(colon + 1);
  }
  for (let i = 0; i < port.length; i++) if (!isDigitCode(port.charCodeAt(i))) return false;
  return true;
}

function isIpLiteralBody(s: string): boolean {
  const c = s.charCodeAt(0);
  if (c === 0x76 || c === 0x56) return isIpvFuture(s); // "v" is case-insensitive in ABNF
  return isIpv6(s);
}

/** "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ) */
function isIpvFuture(s: string): boolean {
  const dot = s.indexOf('.');
  if (dot < 2) return false;
  for (let i = 1; i < dot; i++) if (!isHex(s.charCodeAt(i))) return false;
  const tail = s.slice(dot + 1);
  return tail.length > 0 && allowed(tail, FUTURE_TAIL, false);
}

/**
 * All RFC 3986 IPv6address forms. Counted in 16-bit groups (an embedded IPv4 counts as
 * two and may only be last): exactly 8 without "::", at most 7 with one "::".
 */
function isIpv6(s: string): boolean {
  const dbl = s.indexOf('::');
  if (dbl !== -1 && s.indexOf('::', dbl + 1) !== -1) return false;
  const head = dbl === -1 ? s : s.slice(0, dbl);
  const tail = dbl === -1 ? '' : s.slice(dbl + 2);
  const parts = [...(head === '' ? [] : head.split(':')), ...(tail === '' ? [] : tail.split(':'))];
  if (dbl === -1 && parts.length === 0) return false;
  // Where the final group sits: with "::" at the very end there is no trailing group.
  const lastIsGroup = dbl === -1 || tail !== '';
  let groups = 0;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (i === parts.length - 1 && lastIsGroup && p.includes('.')) {
      if (!isIpv4(p)) return false;
      groups += 2;
    } else {
      if (p.length < 1 || p.length > 4) return false;
      for (let k = 0; k < p.length; k++) if (!isHex(p.charCodeAt(k))) return false;
      groups += 1;
    }
  }
  return dbl === -1 ? groups === 8 : groups <= 7;
}

/** dec-octet "." dec-octet "." dec-octet "." dec-octet, no leading zeros. */
function isIpv4(s: string): boolean {
  const octets = s.split('.');
  if (octets.length !== 4) return false;
  for (const o of octets) {
    if (o.length < 1 || o.length > 3 || (o.length > 1 && o[0] === '0')) return false;
    for (let k = 0; k < o.length; k++) if (!isDigitCode(o.charCodeAt(k))) return false;
    if (Number(o) > 255) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------
// date-time (RFC 3339 section 5.6, plus the section 5.7 calendar restrictions)

function digitsAt(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const c = s.charCodeAt(i);
    if (!isDigitCode(c)) return -1;
    v = v * 10 + (c - 0x30);
  }
  return v;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

export function isDateTime(s: string): boolean {
  // Fixed part: YYYY-MM-DDThh:mm:ss (19 chars).
  if (s.length < 20) return false;
  const year = digitsAt(s, 0, 4);
  const month = digitsAt(s, 5, 2);
  const day = digitsAt(s, 8, 2);
  const hour = digitsAt(s, 11, 2);
  const minute = digitsAt(s, 14, 2);
  const second = digitsAt(s, 17, 2);
  if (s[4] !== '-' || s[7] !== '-' || (s[10] !== 'T' && s[10] !== 't') || s[13] !== ':' || s[16] !== ':') return false;
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) return false;

  let p = 19;
  if (s[p] === '.') {
    const start = ++p;
    while (isDigitCode(s.charCodeAt(p))) p++;
    if (p === start) return false;
  }

  let offsetMinutes: number;
  if ((s[p] === 'Z' || s[p] === 'z') && p + 1 === s.length) {
    offsetMinutes = 0;
  } else if ((s[p] === '+' || s[p] === '-') && p + 6 === s.length && s[p + 3] === ':') {
    const oh = digitsAt(s, p + 1, 2);
    const om = digitsAt(s, p + 4, 2);
    if (oh < 0 || oh > 23 || om < 0 || om > 59) return false;
    offsetMinutes = (s[p] === '-' ? -1 : 1) * (oh * 60 + om);
  } else {
    return false;
  }

  if (second === 60) {
    // No leap-second table: accept only where one could be inserted, i.e. 23:59 UTC on
    // the last day of a month.
    const d = new Date(0);
    d.setUTCFullYear(year, month - 1, day); // unlike Date.UTC, no 0..99 => 19xx mapping
    d.setUTCHours(hour, minute - offsetMinutes, 0, 0);
    const utcMonth = d.getUTCMonth() + 1;
    if (d.getUTCHours() !== 23 || d.getUTCMinutes() !== 59) return false;
    if (d.getUTCDate() !== daysInMonth(d.getUTCFullYear(), utcMonth)) return false;
  }
  return true;
}
