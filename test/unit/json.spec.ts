import { test, expect } from '@playwright/test';
import {
  cloneJson,
  decodeUtf8,
  deepEqualJson,
  isPlainJson,
  jsonPointer,
  parseJsonBytes,
  parseJsonStrict,
  type JsonFinding,
  type ParseResult,
} from '../../src/protocol/json.js';

function findings(r: ParseResult): JsonFinding[] {
  return r.ok ? [] : r.findings;
}

function codes(r: ParseResult): string[] {
  return findings(r).map((f) => f.code);
}

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

test.describe('parseJsonStrict: valid documents', () => {
  const cases: [string, unknown][] = [
    ['null', null],
    ['true', true],
    ['false', false],
    ['0', 0],
    ['-0', -0],
    ['1.0', 1],
    ['-12.5e-3', -0.0125],
    ['1E2', 100],
    ['1e+2', 100],
    ['"plain"', 'plain'],
    ['"esc \\" \\\\ \\/ \\b \\f \\n \\r \\t"', 'esc " \\ / \b \f \n \r \t'],
    ['"\\u0041\\u00e9"', 'Aé'],
    ['"\\uD83D\\uDE00"', '😀'],
    ['"\\ud800"', '\ud800'],
    ['"é 😀"', 'é 😀'],
    ['[]', []],
    ['{}', {}],
    [' \t\r\n[1, "a", {"b": null}] \t\r\n', [1, 'a', { b: null }]],
    ['{"a":{"b":[true,false]},"c":"d"}', { a: { b: [true, false] }, c: 'd' }],
    ['1e308', 1e308],
    ['1e-400', 0],
  ];
  for (const [text, expected] of cases) {
    test(`accepts ${JSON.stringify(text)}`, () => {
      const r = parseJsonStrict(text);
      expect(r).toEqual({ ok: true, value: expected });
      if (r.ok && typeof expected === 'number') expect(Object.is(r.value, expected)).toBe(true);
    });
  }
});

test.describe('parseJsonStrict: invalid-json', () => {
  const cases: string[] = [
    '',
    '   ',
    'NaN',
    'Infinity',
    '-Infinity',
    'undefined',
    "'single'",
    '01',
    '-',
    '1.',
    '.5',
    '+1',
    '1e',
    '1e+',
    '0x10',
    'tru',
    'True',
    'nul',
    '[1,]',
    '[,1]',
    '[1 2]',
    '{"a":1,}',
    '{"a" 1}',
    '{a:1}',
    '{"a":}',
    '{1:2}',
    '[',
    '{',
    '"unterminated',
    '1 2',
    '{}{}',
    '[] x',
    '"tab\there"',
    '"nl\nhere"',
    '"nul\u0000here"',
    '"\\x41"',
    '"\\a"',
    '"\\u12"',
    '"\\u12G4"',
    '"\\u"',
    '"\\',
    '\u00a0null', // non-breaking space is not JSON whitespace
    '\fnull', // form feed is not JSON whitespace
    'null\u2028',
    '//c\nnull',
  ];
  for (const text of cases) {
    test(`rejects ${JSON.stringify(text)}`, () => {
      const r = parseJsonStrict(text);
      expect(r.ok).toBe(false);
      expect(codes(r)).toEqual(['invalid-json']);
      expect(findings(r)[0]!.path).toBe('');
      expect(findings(r)[0]!.message).toMatch(/^invalid JSON at offset \d+: expected /);
    });
  }

  test('message names the offset and what was expected', () => {
    const r = parseJsonStrict('{"a":1 "b":2}');
    expect(findings(r)).toEqual([
      {
        path: '',
        code: 'invalid-json',
        message: expect.stringContaining("invalid JSON at offset 7: expected ',' or '}'"),
      },
    ]);
    expect(findings(parseJsonStrict('[1 2]'))[0]!.message).toContain("offset 3: expected ',' or ']'");
    expect(findings(parseJsonStrict('[1'))[0]!.message).toContain('end of input');
    expect(findings(parseJsonStrict('1 2'))[0]!.message).toContain('offset 2: expected end of input');
  });

  test('leading BOM is rejected and named', () => {
    const r = parseJsonStrict('\ufeff{}');
    expect(codes(r)).toEqual(['invalid-json']);
    expect(findings(r)[0]!.message).toMatch(/offset 0/);
    expect(findings(r)[0]!.message).toMatch(/byte order mark|BOM/i);
  });
});

test.describe('parseJsonStrict: duplicate keys', () => {
  test('top-level duplicate', () => {
    expect(findings(parseJsonStrict('{"id":1,"id":2}'))).toEqual([
      { path: '/id', code: 'duplicate-key', message: 'duplicate object key "id"' },
    ]);
  });

  test('nested duplicate reports the full pointer', () => {
    const text = '{"jsonrpc":"2.0","params":{"event":{"id":"a","kind":"x","id":"b"}}}';
    expect(findings(parseJsonStrict(text))).toEqual([
      { path: '/params/event/id', code: 'duplicate-key', message: 'duplicate object key "id"' },
    ]);
  });

  test('duplicate inside an array element', () => {
    expect(findings(parseJsonStrict('{"a":[{"b":1,"b":2}]}'))).toEqual([
      { path: '/a/0/b', code: 'duplicate-key', message: 'duplicate object key "b"' },
    ]);
    expect(findings(parseJsonStrict('[0, 1, {"x":{"y":1,"y":1}}]'))[0]!.path).toBe('/2/x/y');
  });

  test('every duplicate is reported', () => {
    const r = parseJsonStrict('{"a":1,"a":2,"a":3,"b":{"c":1,"c":1},"d":[{"e":0,"e":0}]}');
    expect(r.ok).toBe(false);
    expect(findings(r).map((f) => f.path)).toEqual(['/a', '/a', '/b/c', '/d/0/e']);
    expect(codes(r).every((c) => c === 'duplicate-key')).toBe(true);
  });

  test('keys equal after unescaping are duplicates', () => {
    expect(findings(parseJsonStrict('{"a":1,"\\u0061":2}'))).toEqual([
      { path: '/a', code: 'duplicate-key', message: 'duplicate object key "a"' },
    ]);
  });

  test('duplicate key paths are escaped', () => {
    expect(findings(parseJsonStrict('{"a/b":{"m~n":1,"m~n":2}}'))[0]!.path).toBe('/a~1b/m~0n');
    expect(findings(parseJsonStrict('{"":1,"":2}'))[0]!.path).toBe('/');
  });

  test('__proto__ duplicates are detected', () => {
    expect(findings(parseJsonStrict('{"__proto__":1,"__proto__":2}'))).toEqual([
      { path: '/__proto__', code: 'duplicate-key', message: 'duplicate object key "__proto__"' },
    ]);
  });

  test('same key in sibling objects is not a duplicate', () => {
    expect(parseJsonStrict('[{"a":1},{"a":2}]').ok).toBe(true);
    expect(parseJsonStrict('{"a":{"a":1}}').ok).toBe(true);
  });

  test('a syntax error wins over duplicates', () => {
    expect(codes(parseJsonStrict('{"a":1,"a":2'))).toEqual(['invalid-json']);
  });
});

test.describe('parseJsonStrict: non-finite numbers', () => {
  for (const [text, path] of [
    ['1e400', ''],
    ['-1e400', ''],
    ['[0, 1.5e999]', '/1'],
    ['{"a":{"b":-2E+500}}', '/a/b'],
  ] as const) {
    test(`rejects ${text}`, () => {
      const r = parseJsonStrict(text);
      expect(r.ok).toBe(false);
      expect(findings(r)).toEqual([{ path, code: 'non-finite-number', message: expect.any(String) }]);
    });
  }

  test('a long finite literal is fine', () => {
    const r = parseJsonStrict('1' + '0'.repeat(300));
    expect(r).toEqual({ ok: true, value: 1e300 });
  });

  test('non-finite numbers and duplicates are all reported', () => {
    expect(codes(parseJsonStrict('{"a":1e400,"a":2}'))).toEqual(['non-finite-number', 'duplicate-key']);
  });
});

test.describe('parseJsonStrict: objects', () => {
  test('__proto__ key is an own data property and does not change the prototype', () => {
    const r = parseJsonStrict('{"__proto__":{"polluted":true},"a":1}');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const v = r.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.hasOwn(v, '__proto__')).toBe(true);
    const d = Object.getOwnPropertyDescriptor(v, '__proto__')!;
    expect(d.enumerable && d.writable && d.configurable).toBe(true);
    expect(d.value).toEqual({ polluted: true });
    expect((v as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.keys(v)).toEqual(['__proto__', 'a']);
    expect(JSON.stringify(v)).toBe('{"__proto__":{"polluted":true},"a":1}');
  });

  test('nested objects have Object.prototype', () => {
    const r = parseJsonStrict('{"a":{"b":{}}}');
    if (!r.ok) throw new Error('expected ok');
    const a = (r.value as Record<string, Record<string, unknown>>)['a']!;
    expect(Object.getPrototypeOf(a)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(a['b'])).toBe(Object.prototype);
  });

  test('keys such as constructor and toString are ordinary', () => {
    const r = parseJsonStrict('{"constructor":1,"toString":2,"hasOwnProperty":3}');
    expect(r).toEqual({ ok: true, value: { constructor: 1, toString: 2, hasOwnProperty: 3 } });
  });
});

test.describe('parseJsonStrict: robustness', () => {
  test('deep nesting (100,000 arrays) parses without throwing', () => {
    const depth = 100_000;
    const r = parseJsonStrict('['.repeat(depth) + ']'.repeat(depth));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    let v: unknown = r.value;
    let n = 0;
    while (Array.isArray(v) && v.length > 0) {
      v = v[0];
      n++;
    }
    expect(n).toBe(depth - 1);
  });

  test('deep nesting of objects with a duplicate at the bottom', () => {
    const depth = 10_000;
    const r = parseJsonStrict('{"a":'.repeat(depth) + '{"k":1,"k":2}' + '}'.repeat(depth));
    expect(findings(r)).toHaveLength(1);
    expect(findings(r)[0]!.path).toBe('/a'.repeat(depth) + '/k');
  });

  test('deep unclosed nesting fails cleanly', () => {
    expect(codes(parseJsonStrict('['.repeat(200_000)))).toEqual(['invalid-json']);
    expect(codes(parseJsonStrict('{"a":'.repeat(200_000)))).toEqual(['invalid-json']);
  });

  test('never throws on assorted garbage', () => {
    const inputs = ['\u0000', '\ud800', '"\ud800"', '[\u0000]', '{"a"', '{"a":', '"\\u', '-0.', '[1,', '\\'];
    let seed = 12345;
    const alphabet = '{}[]":,\\ \t\n01-+.eEtruefalsn\u0000\u00e9\ud83d';
    for (let i = 0; i < 2000; i++) {
      let s = '';
      const len = i % 40;
      for (let k = 0; k < len; k++) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        s += alphabet[seed % alphabet.length];
      }
      inputs.push(s);
    }
    for (const s of inputs) {
      const r = parseJsonStrict(s);
      expect(typeof r.ok).toBe('boolean');
      // Where JSON.parse has no complaint and there is no duplicate/non-finite issue, we agree.
      let native: unknown;
      let nativeOk = true;
      try {
        native = JSON.parse(s);
      } catch {
        nativeOk = false;
      }
      if (!nativeOk) expect(r.ok, s).toBe(false);
      if (r.ok) expect(r.value, s).toEqual(native);
    }
  });

  // Speed is measured by `npm run bench` (strict parse vs JSON.parse), not asserted here.
  test('a 1 MB document parses to the same value as JSON.parse', () => {
    const items = [];
    for (let i = 0; i < 12_000; i++) {
      items.push({
        id: `evt-${i}`,
        n: i * 1.5,
        ok: i % 2 === 0,
        tags: ['a', 'b\n', 'c\u00e9'],
        nested: { x: null, y: [1, 2, 3] },
      });
    }
    const text = JSON.stringify({ items });
    expect(text.length).toBeGreaterThan(1_000_000);
    const r: ParseResult = parseJsonStrict(text);
    expect(r.ok).toBe(true);
    if (r.ok) expect(deepEqualJson(r.value, JSON.parse(text))).toBe(true);
  });
});

test.describe('decodeUtf8 / parseJsonBytes', () => {
  test('valid UTF-8 decodes', () => {
    expect(decodeUtf8(utf8('{"a":"é😀"}'))).toEqual({ ok: true, text: '{"a":"é😀"}' });
    expect(parseJsonBytes(utf8('{"a":"é😀"}'))).toEqual({ ok: true, value: { a: 'é😀' } });
  });

  const bad: [string, number[]][] = [
    ['lone 0xff', [0xff]],
    ['overlong 0xc0 0xaf', [0xc0, 0xaf]],
    ['overlong 3-byte', [0x22, 0xe0, 0x80, 0xaf, 0x22]],
    ['truncated sequence', [0x22, 0xe2, 0x82, 0x22]],
    ['lone continuation', [0x22, 0x80, 0x22]],
    ['UTF-8 encoded surrogate', [0x22, 0xed, 0xa0, 0x80, 0x22]],
    ['above U+10FFFF', [0x22, 0xf4, 0x90, 0x80, 0x80, 0x22]],
  ];
  for (const [name, bytes] of bad) {
    test(`invalid UTF-8: ${name}`, () => {
      const d = decodeUtf8(new Uint8Array(bytes));
      expect(d.ok).toBe(false);
      if (!d.ok)
        expect(d.finding).toEqual({
          path: '',
          code: 'invalid-utf8',
          message: expect.stringContaining('invalid UTF-8'),
        });
      expect(parseJsonBytes(new Uint8Array(bytes))).toEqual({
        ok: false,
        findings: [expect.objectContaining({ code: 'invalid-utf8' })],
      });
    });
  }

  test('invalid UTF-8 message gives the byte offset', () => {
    const d = decodeUtf8(new Uint8Array([0x7b, 0x7d, 0x20, 0xc0, 0xaf]));
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.finding.message).toContain('byte offset 3');
  });

  test('a UTF-8 BOM is kept by the decoder and rejected by the parser', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('{}')]);
    const d = decodeUtf8(bytes);
    expect(d).toEqual({ ok: true, text: '\ufeff{}' });
    const r = parseJsonBytes(bytes);
    expect(codes(r)).toEqual(['invalid-json']);
    expect(findings(r)[0]!.message).toMatch(/byte order mark|BOM/i);
  });

  test('Buffer input works', () => {
    expect(parseJsonBytes(Buffer.from('[1]'))).toEqual({ ok: true, value: [1] });
  });
});

test.describe('jsonPointer', () => {
  const cases: [(string | number)[], string][] = [
    [[], ''],
    [[''], '/'],
    [['a'], '/a'],
    [['a/b'], '/a~1b'],
    [['m~n'], '/m~0n'],
    [['~1'], '/~01'],
    [['/~'], '/~1~0'],
    [['params', 'event', 'id'], '/params/event/id'],
    [['a', 0, 'b'], '/a/0/b'],
  ];
  for (const [segs, expected] of cases) {
    test(`${JSON.stringify(segs)} -> ${JSON.stringify(expected)}`, () => {
      expect(jsonPointer(segs)).toBe(expected);
    });
  }
});

test.describe('isPlainJson', () => {
  const shared = { x: 1 };
  const positives: [string, unknown][] = [
    ['null', null],
    ['boolean', false],
    ['number', -0.5],
    ['string', ''],
    ['nested', { a: [1, 'b', { c: null }], d: true }],
    ['null-prototype object', Object.assign(Object.create(null) as object, { a: 1 })],
    ['shared (non-cyclic) reference', { a: shared, b: shared }],
  ];
  for (const [name, v] of positives) {
    test(`accepts ${name}`, () => expect(isPlainJson(v)).toBe(true));
  }

  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic['self'] = cyclic;
  const cyclicArray: unknown[] = [];
  cyclicArray.push([cyclicArray]);
  class Point {
    x = 1;
  }
  const withGetter = Object.defineProperty({}, 'g', { get: () => 1, enumerable: true });
  const withSymbol = { [Symbol('s')]: 1 };
  const sparse = [1, , 3];
  const arrayWithProp = Object.assign([1], { extra: 2 });
  const negatives: [string, unknown][] = [
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['-Infinity', -Infinity],
    ['undefined', undefined],
    ['a Date', new Date(0)],
    ['a cycle', cyclic],
    ['an array cycle', cyclicArray],
    ['a function', () => 1],
    ['a class instance', new Point()],
    ['a Map', new Map()],
    ['a bigint', 1n],
    ['a symbol', Symbol('x')],
    ['a boxed number', new Number(1)],
    ['nested NaN', { a: [1, NaN] }],
    ['nested undefined', { a: undefined }],
    ['nested function', [() => 1]],
    ['an accessor property', withGetter],
    ['a symbol key', withSymbol],
    ['a sparse array', sparse],
    ['an array with extra properties', arrayWithProp],
  ];
  for (const [name, v] of negatives) {
    test(`rejects ${name}`, () => expect(isPlainJson(v)).toBe(false));
  }

  test('deep values do not overflow the stack', () => {
    let v: unknown = 1;
    for (let i = 0; i < 100_000; i++) v = [v];
    expect(isPlainJson(v)).toBe(true);
  });
});

test.describe('deepEqualJson', () => {
  const equal: [string, unknown, unknown][] = [
    ['primitives', 'a', 'a'],
    ['null', null, null],
    ['key order irrelevant', { a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 }],
    ['empty containers', { a: [], b: {} }, { b: {}, a: [] }],
    ['zero and negative zero', 0, -0],
    ['__proto__ own keys', parseOk('{"__proto__":1}'), parseOk('{"__proto__":1}')],
  ];
  for (const [name, a, b] of equal) {
    test(`equal: ${name}`, () => {
      expect(deepEqualJson(a, b)).toBe(true);
      expect(deepEqualJson(b, a)).toBe(true);
    });
  }

  const unequal: [string, unknown, unknown][] = [
    ['true vs 1', true, 1],
    ['0 vs false', 0, false],
    ['null vs {}', null, {}],
    ['"1" vs 1', '1', 1],
    ['array order', [1, 2], [2, 1]],
    ['array vs object', [], {}],
    ['array lengths', [1], [1, 1]],
    ['extra key', { a: 1 }, { a: 1, b: 2 }],
    ['different key', { a: 1 }, { b: 1 }],
    ['nested difference', { a: { b: [1, 2, 3] } }, { a: { b: [1, 2, 4] } }],
    ['undefined member vs missing', { a: undefined }, {}],
    ['NaN', NaN, NaN],
    ['Date', new Date(0), new Date(0)],
    ['__proto__ own key vs none', parseOk('{"__proto__":{}}'), {}],
  ];
  for (const [name, a, b] of unequal) {
    test(`unequal: ${name}`, () => {
      expect(deepEqualJson(a, b)).toBe(false);
      expect(deepEqualJson(b, a)).toBe(false);
    });
  }

  test('deepEqualJson(true, 1) === false', () => {
    expect(deepEqualJson(true, 1)).toBe(false);
  });

  test('deep values and cycles terminate', () => {
    let a: unknown = 1;
    let b: unknown = 1;
    for (let i = 0; i < 100_000; i++) {
      a = { k: a };
      b = { k: b };
    }
    expect(deepEqualJson(a, b)).toBe(true);
    const c: Record<string, unknown> = {};
    c['self'] = c;
    expect(typeof deepEqualJson(c, c)).toBe('boolean');
  });
});

test.describe('cloneJson', () => {
  test('produces a detached deep copy', () => {
    const src = { a: [1, { b: 'c' }], d: null };
    const copy = cloneJson(src);
    expect(copy).toEqual(src);
    expect(copy).not.toBe(src);
    expect(copy.a).not.toBe(src.a);
    (copy.a[1] as { b: string }).b = 'changed';
    expect((src.a[1] as { b: string }).b).toBe('c');
  });

  test('keeps __proto__ as an own data property', () => {
    const src = parseOk('{"__proto__":{"x":1}}');
    const copy = cloneJson(src) as Record<string, unknown>;
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(deepEqualJson(copy, src)).toBe(true);
  });

  test('primitives pass through', () => {
    expect(cloneJson(5)).toBe(5);
    expect(cloneJson('s')).toBe('s');
    expect(cloneJson(null)).toBe(null);
  });

  test('deep values do not overflow the stack', () => {
    let v: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) v = [v];
    const copy = cloneJson(v);
    expect(deepEqualJson(copy, v)).toBe(true);
  });
});

function parseOk(text: string): unknown {
  const r = parseJsonStrict(text);
  if (!r.ok) throw new Error(`fixture did not parse: ${text}`);
  return r.value;
}
