// Strict JSON reading for AHP messages.
//
// JSON.parse is too lenient for a conformance checker: it silently keeps the last of
// duplicate keys, turns 1e400 into Infinity and lets `__proto__` behave specially in
// some consumers. This module parses RFC 8259 by hand and reports those cases as findings.
//
// Nesting: the parser keeps its own explicit stack instead of recursing, so it has no
// nesting limit beyond available memory (tested at 100,000 levels) and cannot throw a
// RangeError. isPlainJson, deepEqualJson and cloneJson are iterative for the same reason.

export interface JsonFinding {
  /** JSON Pointer (RFC 6901) of the offending location; '' = whole document. */
  path: string;
  code: string;
  message: string;
}

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

export type JsonObject = { [k: string]: JsonValue };

/**
 * A non-null, non-array object. Narrows a JsonValue to its object member and anything
 * else to Record<string, unknown>; says nothing about the prototype (see isPlainJson).
 */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export type ParseResult = { ok: true; value: JsonValue } | { ok: false; findings: JsonFinding[] };

// ---------------------------------------------------------------------------------------
// UTF-8

export function decodeUtf8(bytes: Uint8Array): { ok: true; text: string } | { ok: false; finding: JsonFinding } {
  try {
    // ignoreBOM keeps a leading U+FEFF in the text so the parser can reject it.
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    return { ok: true, text };
  } catch {
    const at = firstInvalidUtf8(bytes);
    return {
      ok: false,
      finding: { path: '', code: 'invalid-utf8', message: `invalid UTF-8 at byte offset ${at}` },
    };
  }
}

// Only called after TextDecoder has rejected the input, to say where it went wrong.
// Implements the well-formed byte sequence table of Unicode 15, section 3.9, table 3-7.
function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c < 0x80) {
      i++;
      continue;
    } else if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c === 0xe0) {
      need = 2;
      lo = 0xa0;
    } else if (c === 0xed) {
      need = 2;
      hi = 0x9f;
    } else if (c >= 0xe1 && c <= 0xef) need = 2;
    else if (c === 0xf0) {
      need = 3;
      lo = 0x90;
    } else if (c === 0xf4) {
      need = 3;
      hi = 0x8f;
    } else if (c >= 0xf1 && c <= 0xf3) need = 3;
    else return i;
    for (let k = 1; k <= need; k++) {
      const d = b[i + k];
      if (d === undefined) return i;
      if (k === 1 ? d < lo || d > hi : d < 0x80 || d > 0xbf) return i;
    }
    i += need + 1;
  }
  return b.length; // not reached when TextDecoder rejected the input
}

export function parseJsonBytes(bytes: Uint8Array): ParseResult {
  const decoded = decodeUtf8(bytes);
  if (!decoded.ok) return { ok: false, findings: [decoded.finding] };
  return parseJsonStrict(decoded.text);
}

// ---------------------------------------------------------------------------------------
// JSON Pointer

export function jsonPointer(segments: (string | number)[]): string {
  let out = '';
  for (const s of segments) out += '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1');
  return out;
}

// ---------------------------------------------------------------------------------------
// Parser

const CH_TAB = 0x09,
  CH_LF = 0x0a,
  CH_CR = 0x0d,
  CH_SPACE = 0x20;
const CH_QUOTE = 0x22,
  CH_PLUS = 0x2b,
  CH_COMMA = 0x2c,
  CH_MINUS = 0x2d,
  CH_DOT = 0x2e;
const CH_0 = 0x30,
  CH_1 = 0x31,
  CH_9 = 0x39,
  CH_COLON = 0x3a;
const CH_LBRACKET = 0x5b,
  CH_BACKSLASH = 0x5c,
  CH_RBRACKET = 0x5d;
const CH_LBRACE = 0x7b,
  CH_RBRACE = 0x7d;
const CH_E = 0x45,
  CH_e = 0x65;

/** Thrown internally for syntax errors; always caught inside parseJsonStrict. */
class SyntaxFailure {
  constructor(readonly message: string) {}
}

type Frame = { kind: 'array'; value: JsonValue[] } | { kind: 'object'; value: { [k: string]: JsonValue }; key: string };

/**
 * Parses exactly one RFC 8259 JSON text.
 *
 * A syntax error stops parsing and yields a single `invalid-json` finding with path ''
 * (offsets are UTF-16 code unit indices into `text`). Duplicate keys and non-finite
 * numbers do not stop parsing, so every one of them is reported.
 */
export function parseJsonStrict(text: string): ParseResult {
  try {
    return new Parser(text).run();
  } catch (e) {
    if (e instanceof SyntaxFailure) {
      return { ok: false, findings: [{ path: '', code: 'invalid-json', message: e.message }] };
    }
    // Safety net (e.g. a string too long for the engine): never let anything escape.
    const detail = e instanceof Error ? e.message : String(e);
    return {
      ok: false,
      findings: [{ path: '', code: 'invalid-json', message: `invalid JSON: parser failure: ${detail}` }],
    };
  }
}

class Parser {
  private pos = 0;
  private readonly stack: Frame[] = [];
  private readonly findings: JsonFinding[] = [];

  constructor(private readonly text: string) {}

  run(): ParseResult {
    const t = this.text;
    if (t.charCodeAt(0) === 0xfeff) {
      this.fail(0, 'a JSON value (a byte order mark U+FEFF is not allowed)');
    }
    const stack = this.stack;
    let value: JsonValue;

    outer: for (;;) {
      // Parse one value; containers push a frame and loop back for their first element.
      this.skipWs();
      const c = t.charCodeAt(this.pos);
      if (c === CH_LBRACE) {
        this.pos++;
        this.skipWs();
        const obj: { [k: string]: JsonValue } = {};
        if (t.charCodeAt(this.pos) === CH_RBRACE) {
          this.pos++;
          value = obj;
        } else {
          const frame = { kind: 'object' as const, value: obj, key: '' };
          stack.push(frame);
          this.parseMemberName(frame);
          continue;
        }
      } else if (c === CH_LBRACKET) {
        this.pos++;
        this.skipWs();
        if (t.charCodeAt(this.pos) === CH_RBRACKET) {
          this.pos++;
          value = [];
        } else {
          stack.push({ kind: 'array', value: [] });
          continue;
        }
      } else if (c === CH_QUOTE) {
        value = this.parseString();
      } else if (c === CH_MINUS || (c >= CH_0 && c <= CH_9)) {
        value = this.parseNumber();
      } else if (t.startsWith('true', this.pos)) {
        this.pos += 4;
        value = true;
      } else if (t.startsWith('false', this.pos)) {
        this.pos += 5;
        value = false;
      } else if (t.startsWith('null', this.pos)) {
        this.pos += 4;
        value = null;
      } else {
        this.fail(this.pos, 'a JSON value');
      }

      // Attach the finished value to its parent; close parents that end here.
      for (;;) {
        const top = stack[stack.length - 1];
        if (top === undefined) break outer;
        this.skipWs();
        const d = t.charCodeAt(this.pos);
        if (top.kind === 'array') {
          top.value.push(value);
          if (d === CH_COMMA) {
            this.pos++;
            continue outer;
          }
          if (d !== CH_RBRACKET) this.fail(this.pos, "',' or ']'");
        } else {
          setOwn(top.value, top.key, value);
          if (d === CH_COMMA) {
            this.pos++;
            this.skipWs();
            this.parseMemberName(top);
            continue outer;
          }
          if (d !== CH_RBRACE) this.fail(this.pos, "',' or '}'");
        }
        this.pos++;
        stack.pop();
        value = top.value;
      }
    }

    this.skipWs();
    if (this.pos < t.length) this.fail(this.pos, 'end of input');
    if (this.findings.length > 0) return { ok: false, findings: this.findings };
    return { ok: true, value };
  }

  /** Reads `"name" :` into frame.key, recording a duplicate-key finding if the object already has it. */
  private parseMemberName(frame: Frame & { kind: 'object' }): void {
    if (this.text.charCodeAt(this.pos) !== CH_QUOTE) this.fail(this.pos, 'a string (object member name)');
    const key = this.parseString();
    this.skipWs();
    if (this.text.charCodeAt(this.pos) !== CH_COLON) this.fail(this.pos, "':'");
    this.pos++;
    frame.key = key; // set first so currentPath() ends with this key
    if (Object.hasOwn(frame.value, key)) {
      this.findings.push({
        path: this.currentPath(),
        code: 'duplicate-key',
        message: `duplicate object key ${JSON.stringify(key)}`,
      });
    }
  }

  /** Pointer of the value currently being parsed (built only when a finding needs it). */
  private currentPath(): string {
    const segs: (string | number)[] = [];
    for (const f of this.stack) segs.push(f.kind === 'array' ? f.value.length : f.key);
    return jsonPointer(segs);
  }

  private skipWs(): void {
    const t = this.text;
    let p = this.pos;
    for (;;) {
      const c = t.charCodeAt(p);
      if (c === CH_SPACE || c === CH_LF || c === CH_CR || c === CH_TAB) p++;
      else break;
    }
    this.pos = p;
  }

  private parseString(): string {
    const t = this.text;
    let p = this.pos + 1; // skip opening quote
    let chunkStart = p;
    let parts: string[] | undefined; // only allocated once an escape is seen
    for (;;) {
      const c = t.charCodeAt(p);
      if (c === CH_QUOTE) break;
      if (Number.isNaN(c)) this.fail(p, "'\"' (unterminated string)");
      if (c < 0x20) this.fail(p, 'an escaped control character (raw U+0000..U+001F is not allowed in strings)');
      if (c !== CH_BACKSLASH) {
        p++;
        continue;
      }
      (parts ??= []).push(t.slice(chunkStart, p));
      const e = t.charCodeAt(p + 1);
      let ch: string;
      switch (e) {
        case 0x22:
          ch = '"';
          break;
        case 0x5c:
          ch = '\\';
          break;
        case 0x2f:
          ch = '/';
          break;
        case 0x62:
          ch = '\b';
          break;
        case 0x66:
          ch = '\f';
          break;
        case 0x6e:
          ch = '\n';
          break;
        case 0x72:
          ch = '\r';
          break;
        case 0x74:
          ch = '\t';
          break;
        case 0x75: {
          // \uXXXX; lone surrogates are allowed by RFC 8259's grammar
          let code = 0;
          for (let k = 2; k < 6; k++) {
            const h = hexValue(t.charCodeAt(p + k));
            if (h < 0) this.fail(p + k, 'a hexadecimal digit in \\u escape (4 required)');
            code = code * 16 + h;
          }
          ch = String.fromCharCode(code);
          p += 4;
          break;
        }
        default:
          this.fail(p + 1, 'a valid escape character after \\ (one of " \\ / b f n r t u)');
      }
      parts.push(ch);
      p += 2;
      chunkStart = p;
    }
    const last = t.slice(chunkStart, p);
    this.pos = p + 1;
    if (parts === undefined) return last;
    parts.push(last);
    return parts.join('');
  }

  private parseNumber(): number {
    const t = this.text;
    const start = this.pos;
    let p = start;
    if (t.charCodeAt(p) === CH_MINUS) p++;
    const first = t.charCodeAt(p);
    if (first === CH_0) {
      p++; // a leading zero must stand alone
    } else if (first >= CH_1 && first <= CH_9) {
      p = skipDigits(t, p);
    } else {
      this.fail(p, 'a digit');
    }
    if (t.charCodeAt(p) === CH_DOT) {
      p++;
      if (!isDigit(t.charCodeAt(p))) this.fail(p, 'a digit after the decimal point');
      p = skipDigits(t, p);
    }
    const ex = t.charCodeAt(p);
    if (ex === CH_e || ex === CH_E) {
      p++;
      const sign = t.charCodeAt(p);
      if (sign === CH_PLUS || sign === CH_MINUS) p++;
      if (!isDigit(t.charCodeAt(p))) this.fail(p, 'a digit in the exponent');
      p = skipDigits(t, p);
    }
    this.pos = p;
    // The token is validated JSON number syntax, which Number() decodes exactly like JSON.parse.
    const n = Number(t.slice(start, p));
    if (!Number.isFinite(n)) {
      this.findings.push({
        path: this.currentPath(),
        code: 'non-finite-number',
        message: `number ${abbreviate(t.slice(start, p))} is outside the finite IEEE 754 double range`,
      });
    }
    return n;
  }

  private fail(at: number, expected: string): never {
    throw new SyntaxFailure(`invalid JSON at offset ${at}: expected ${expected}, found ${describeAt(this.text, at)}`);
  }
}

/** Assigns an own data property even for "__proto__", which plain assignment would turn into a prototype change. */
function setOwn(obj: { [k: string]: JsonValue }, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

function isDigit(c: number): boolean {
  return c >= CH_0 && c <= CH_9;
}

function skipDigits(t: string, p: number): number {
  while (isDigit(t.charCodeAt(p))) p++;
  return p;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  return -1;
}

function describeAt(t: string, at: number): string {
  if (at >= t.length) return 'end of input';
  const c = t.charCodeAt(at);
  if (c < 0x20 || c === 0x7f || c === 0xfeff || (c >= 0xd800 && c <= 0xdfff)) {
    return `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return `'${t[at]}'`;
}

function abbreviate(s: string): string {
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

// ---------------------------------------------------------------------------------------
// Value helpers

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * True iff `value` is made only of null, booleans, finite numbers, strings, dense arrays
 * and plain objects whose properties are all enumerable string-keyed data properties.
 * Shared (non-cyclic) references are fine; cycles are not.
 */
export function isPlainJson(value: unknown): boolean {
  // DFS with explicit enter/exit so `onPath` holds exactly the current ancestors.
  const onPath = new Set<object>();
  const done = new Set<object>();
  const work: { v: unknown; exit: boolean }[] = [{ v: value, exit: false }];
  while (work.length > 0) {
    const { v, exit } = work.pop()!;
    if (exit) {
      onPath.delete(v as object);
      done.add(v as object);
      continue;
    }
    if (v === null || typeof v === 'boolean' || typeof v === 'string') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return false;
      continue;
    }
    if (typeof v !== 'object') return false; // undefined, function, symbol, bigint
    if (onPath.has(v)) return false; // cycle
    if (done.has(v)) continue;
    onPath.add(v);
    work.push({ v, exit: true });
    if (Array.isArray(v)) {
      if (Object.getPrototypeOf(v) !== Array.prototype) return false;
      // Only indices plus `length`: no holes, no extra properties.
      if (Reflect.ownKeys(v).length !== v.length + 1) return false;
      for (let i = 0; i < v.length; i++) {
        if (!Object.hasOwn(v, i)) return false;
        work.push({ v: v[i], exit: false });
      }
      continue;
    }
    if (!isPlainObject(v)) return false;
    for (const k of Reflect.ownKeys(v)) {
      if (typeof k !== 'string') return false;
      const d = Object.getOwnPropertyDescriptor(v, k)!;
      if (!d.enumerable || !('value' in d)) return false;
      work.push({ v: d.value, exit: false });
    }
  }
  return true;
}

/**
 * Deep equality under JSON semantics: primitives by ===, arrays element-wise, objects by
 * own enumerable key set regardless of order. Anything that is not a JSON value
 * (undefined, NaN, functions, class instances, ...) compares unequal, even to itself.
 */
export function deepEqualJson(a: unknown, b: unknown): boolean {
  const work: [unknown, unknown][] = [[a, b]];
  // Pairs already compared or in progress; makes cyclic or shared inputs terminate.
  const seen = new Map<object, Set<object>>();
  while (work.length > 0) {
    const [x, y] = work.pop()!;
    if (x === null || typeof x === 'boolean' || typeof x === 'string') {
      if (x !== y) return false;
      continue;
    }
    if (typeof x === 'number') {
      if (!Number.isFinite(x) || x !== y) return false;
      continue;
    }
    if (typeof x !== 'object' || typeof y !== 'object' || y === null) return false;
    let partners = seen.get(x);
    if (partners?.has(y)) continue;
    if (partners === undefined) seen.set(x, (partners = new Set()));
    partners.add(y);
    const xa = Array.isArray(x);
    if (xa !== Array.isArray(y)) return false;
    if (xa) {
      const xs = x as unknown[];
      const ys = y as unknown[];
      if (xs.length !== ys.length) return false;
      for (let i = 0; i < xs.length; i++) work.push([xs[i], ys[i]]);
      continue;
    }
    if (!isPlainObject(x) || !isPlainObject(y)) return false;
    const xk = Object.keys(x);
    if (xk.length !== Object.keys(y).length) return false;
    for (const k of xk) {
      if (!Object.prototype.propertyIsEnumerable.call(y, k)) return false;
      work.push([(x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k]]);
    }
  }
  return true;
}

/**
 * Detached deep copy. Plain JSON is copied iteratively (structuredClone recurses and
 * overflows the stack on very deep values); anything else falls back to structuredClone.
 */
export function cloneJson<T>(v: T): T {
  if (!isPlainJson(v)) return structuredClone(v);
  if (v === null || typeof v !== 'object') return v;
  const root = copyShell(v as object);
  const work: [object, object][] = [[v as object, root]];
  while (work.length > 0) {
    const [src, dst] = work.pop()!;
    if (Array.isArray(src)) {
      const out = dst as unknown[];
      for (let i = 0; i < src.length; i++) out.push(copyChild(src[i] as unknown, work));
    } else {
      const out = dst as Record<string, unknown>;
      for (const k of Object.keys(src)) {
        const child = copyChild((src as Record<string, unknown>)[k], work);
        if (k === '__proto__')
          Object.defineProperty(out, k, { value: child, writable: true, enumerable: true, configurable: true });
        else out[k] = child;
      }
    }
  }
  return root as T;
}

function copyShell(v: object): object {
  return Array.isArray(v) ? [] : {};
}

function copyChild(c: unknown, work: [object, object][]): unknown {
  if (c === null || typeof c !== 'object') return c;
  const shell = copyShell(c);
  work.push([c, shell]);
  return shell;
}
