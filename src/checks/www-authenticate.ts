// A tolerant reader of WWW-Authenticate (RFC 9110 section 11.6.1): the challenges, each a
// scheme with its auth-params, from a header that may hold several (joined with ", " when
// sent as several lines). Used to judge what a backend's 401 carries; it never throws.

export interface Challenge {
  /** The scheme, lower-cased (schemes are case-insensitive). */
  readonly scheme: string;
  /** auth-params by lower-cased name, quoted values unquoted; a token68 is under "". */
  readonly params: Readonly<Record<string, string>>;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/;

export function parseChallenges(header: string): Challenge[] {
  const out: { scheme: string; params: Record<string, string> }[] = [];
  let s = header;
  const skip = (): void => {
    s = s.replace(/^[\s,]+/, '');
  };
  skip();
  while (s.length > 0) {
    const name = TOKEN.exec(s)?.[0];
    if (!name) break; // not a token: the rest is unreadable
    s = s.slice(name.length);
    const eq = /^\s*=\s*/.exec(s);
    const current = out[out.length - 1];
    if (eq && current && !/^\s*=\s*=/.test(s)) {
      // name=value: an auth-param of the current challenge
      s = s.slice(eq[0].length);
      let value = '';
      if (s.startsWith('"')) {
        let i = 1;
        for (; i < s.length && s[i] !== '"'; i++) value += s[i] === '\\' && i + 1 < s.length ? s[++i] : s[i];
        s = s.slice(i + 1);
      } else {
        value = TOKEN.exec(s)?.[0] ?? '';
        s = s.slice(value.length);
      }
      current.params[name.toLowerCase()] = value;
    } else {
      // a new challenge; a token68 may follow it
      const challenge = { scheme: name.toLowerCase(), params: {} as Record<string, string> };
      out.push(challenge);
      const t68 = /^\s+([A-Za-z0-9\-._~+/]+=*)\s*(,|$)/.exec(s);
      if (t68 && !/^\s+[!#$%&'*+\-.^_`|~0-9A-Za-z]+\s*=[^=]/.test(s)) {
        challenge.params[''] = t68[1]!;
        s = s.slice(t68[0].length);
      }
    }
    skip();
  }
  return out;
}
