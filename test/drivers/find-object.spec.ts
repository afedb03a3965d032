// findObject / ObjectFinder: the lenient reply search over stdout lines. Same answers as
// the original search (every start line, every end line, joined and parsed), in linear
// time, so that a backend writing thousands of '{' lines costs nothing.
import { test, expect } from '@playwright/test';
import { isDeepStrictEqual } from 'node:util';
import type { ParseJson } from '../../drivers/channel.js';
import { findObject as findWith, ObjectFinder, type Line } from '../../drivers/stdio-framing.js';
import { parseJsonStrict, type JsonValue } from '../../src/protocol/json.js';

/** The protocol's strict parser, as the conformance session gives it to the search. */
const strict: ParseJson = (text) => {
  const p = parseJsonStrict(text);
  return p.ok ? p : { ok: false, message: p.findings.map((f) => f.message).join('; ') };
};
const findObject = (lines: readonly Line[]) => findWith(lines, strict);

const L = (...texts: string[]): Line[] => texts.map((text) => ({ text, utf8: true }));

/** The original (cubic) search, kept here as the oracle. */
function oracle(
  lines: readonly Line[],
): { raw: string; used: number; multiLine: boolean; skipped: string[]; oversize: number; utf8: boolean } | undefined {
  const objectOf = (text: string): JsonValue | undefined => {
    const p = parseJsonStrict(text);
    return p.ok && p.value !== null && typeof p.value === 'object' && !Array.isArray(p.value) ? p.value : undefined;
  };
  for (let end = 0; end < lines.length; end++) {
    const line = lines[end]!;
    if (objectOf(line.text) !== undefined) {
      const before = lines.slice(0, end);
      return {
        raw: line.text,
        used: end + 1,
        multiLine: false,
        skipped: before.map((l) => l.text),
        oversize: before.filter((l) => l.oversize).length,
        utf8: line.utf8,
      };
    }
    for (let start = 0; start < end; start++) {
      if (!lines[start]!.text.startsWith('{')) continue;
      const joined = lines
        .slice(start, end + 1)
        .map((l) => l.text)
        .join('\n');
      if (objectOf(joined) !== undefined) {
        const before = lines.slice(0, start);
        return {
          raw: joined,
          used: end + 1,
          multiLine: true,
          skipped: before.map((l) => l.text),
          oversize: before.filter((l) => l.oversize).length,
          utf8: lines.slice(start, end + 1).every((l) => l.utf8),
        };
      }
    }
  }
  return undefined;
}

function summary(lines: readonly Line[]) {
  const f = findObject(lines);
  if (!f) return undefined;
  const r = f.reply;
  return {
    raw: r.raw,
    used: f.used,
    multiLine: r.framing!.multiLine,
    skipped: r.framing!.skipped,
    oversize: r.framing!.oversize,
    utf8: r.utf8,
  };
}

test('a line of its own; lines before it are skipped, oversize ones counted', () => {
  const lines: Line[] = [
    ...L('starting up', '{not json'),
    { text: '(a 5000-byte line over the line size bound)', utf8: true, oversize: true },
    ...L('  {"id":1}', '{"id":2}'),
  ];
  const f = findObject(lines)!;
  expect(f.used).toBe(4);
  expect(f.reply).toMatchObject({
    kind: 'reply',
    raw: '  {"id":1}',
    value: { id: 1 },
    framing: { multiLine: false, oversize: 1 },
  });
  expect(f.reply.framing!.skipped).toEqual(['starting up', '{not json', '(a 5000-byte line over the line size bound)']);
});

test('a pretty-printed object from a line starting with {, CRLF line ends included', () => {
  const f = findObject(
    L('log: hello', '{\r', '  "jsonrpc": "2.0",\r', '  "result": {\r', '    "effects": []\r', '  }\r', '}\r', 'after'),
  )!;
  expect(f.used).toBe(7);
  expect(f.reply.framing).toEqual({ skipped: ['log: hello'], multiLine: true, oversize: 0 });
  expect(f.reply.value).toEqual({ jsonrpc: '2.0', result: { effects: [] } });
  expect(f.reply.raw.split('\n')).toHaveLength(6);
});

test('an indented brace does not start a message; a one-line object inside an open one wins', () => {
  expect(findObject(L('  {', '"a": 1', '}'))).toBeUndefined();
  const f = findObject(L('{', '"a":', '  {"b": 2}', '}'))!;
  expect(f.reply.raw).toBe('  {"b": 2}');
  expect(f.used).toBe(3);
});

test('strings with braces, escapes and an invalid inner object', () => {
  expect(summary(L('{', '"a": "}{\\"]",', '"b": 1', '}'))).toMatchObject({ multiLine: true, used: 4 });
  // a column-0 object that closes and is not JSON rules out the object around it
  expect(findObject(L('{', '"a":', '{', '"b": 1,', '}', '}'))).toBeUndefined();
  // a column-0 object followed by more on its last line is a nested value, not a message
  expect(summary(L('{', '"a": [', '{', '"x": 1', '},', '2', ']', '}'))).toMatchObject({
    multiLine: true,
    used: 8,
    skipped: [],
  });
  // a string cannot span lines
  expect(findObject(L('{', '"a": "x', 'y"', '}'))).toBeUndefined();
  // duplicate keys fail the strict parse
  expect(findObject(L('{', '"a": 1,', '"a": 2', '}'))).toBeUndefined();
  // invalid UTF-8 in a line of the object is reported
  expect(findObject([...L('{'), { text: '"a": "\uFFFD"', utf8: false }, ...L('}')])!.reply.utf8).toBe(false);
});

test('same answers as the original search on random line sequences', () => {
  let seed = 12345;
  const rand = (n: number): number => {
    // mulberry32
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
  const pieces = [
    '{',
    '}',
    '{}',
    '"a": 1',
    '"a": 1,',
    '"b": {',
    '},',
    '  {"x":2}',
    '{"y":3}',
    'log',
    '[',
    ']',
    '],',
    '"k": [',
    '1,',
    '2',
    '"s',
    's"',
    '}}',
    ' }',
    '',
    '}\r',
    '{\r',
    '"c":"}"',
    '"d": "{\\""',
    '{"z": [1,',
    '2]}',
    '} x',
    '{ "e": 0 } ',
    '  {',
    '"a": 1 }',
    '[{',
    '}]',
    '"f":{}}',
    '\t',
    '{"g":',
    'null}',
    '"b":',
  ];
  const strings = ['}', '{', '"', '\\', ']', 'x', '} {', ''];
  const value = (depth: number): unknown => {
    const k = depth > 2 ? rand(3) : rand(7);
    if (k === 0) return rand(100);
    if (k === 1) return strings[rand(strings.length)];
    if (k === 2) return rand(2) === 0;
    if (k <= 4) return Array.from({ length: rand(4) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: rand(4) }, (_, i) => [`k${i}`, value(depth + 1)]));
  };
  /** A pretty-printed object, some lines unindented (nested braces at column 0), then mutated. */
  const sample = (): Line[] => {
    const texts: string[] = [];
    for (let k = rand(3); k > 0; k--) texts.push(pieces[rand(pieces.length)]!);
    const body = JSON.stringify({ top: value(1), n: value(1) }, null, rand(3) === 0 ? 0 : 2).split('\n');
    for (const t of body) texts.push(rand(3) === 0 ? t.trimStart() : t);
    for (let m = rand(3); m > 0; m--) {
      const at = rand(texts.length + 1);
      const op = rand(4);
      if (op === 0) texts.splice(at, 1);
      else if (op === 1) texts.splice(at, 0, pieces[rand(pieces.length)]!);
      else if (op === 2 && at < texts.length) texts[at] += pieces[rand(pieces.length)]!;
      else texts.splice(at, 0, texts[rand(texts.length)] ?? '{');
    }
    return texts.map((text) => ({
      text,
      utf8: rand(20) !== 0,
      ...(rand(30) === 0 ? { oversize: true as const } : {}),
    }));
  };
  const random = (): Line[] =>
    Array.from({ length: 1 + rand(12) }, () => ({
      text: pieces[rand(pieces.length)]!,
      utf8: rand(20) !== 0,
      ...(rand(30) === 0 ? { oversize: true as const } : {}),
    }));
  const counts = { found: 0, multi: 0 };
  const differ: unknown[] = [];
  for (let i = 0; i < 20_000; i++) {
    const lines = i % 2 ? sample() : random();
    const want = oracle(lines);
    if (want) counts.found++;
    if (want?.multiLine) counts.multi++;
    const got = summary(lines);
    if (!isDeepStrictEqual(got, want) && differ.length < 5) differ.push({ lines: lines.map((l) => l.text), got, want });
  }
  expect(differ).toEqual([]);
  expect(counts.found).toBeGreaterThan(2000); // the generators do produce objects,
  expect(counts.multi).toBeGreaterThan(2000); // many of them over several lines
});

test('fed one line at a time it answers at the line that completes the object', () => {
  const finder = new ObjectFinder(strict);
  expect(finder.push({ text: '{', utf8: true })).toBeUndefined();
  expect(finder.push({ text: '"a": 1', utf8: true })).toBeUndefined();
  const f = finder.push({ text: '}', utf8: true })!;
  expect(f.reply.value).toEqual({ a: 1 });
  expect(finder.seen).toHaveLength(3);
});

test('linear: 200,000 lines of "{", or of nested column-0 objects, return at once', () => {
  // The original search took 10 s for 100 such lines and 83 s for 200.
  expect(findObject(Array.from({ length: 200_000 }, () => ({ text: '{', utf8: true })))).toBeUndefined();
  const nested: Line[] = [];
  for (let i = 0; i < 50_000; i++) nested.push(...L('{', '"a":'));
  nested.push(...L('"x" "big"'.repeat(1000)));
  for (let i = 0; i < 50_000; i++) nested.push(...L('}'));
  expect(findObject(nested)).toBeUndefined();
  // many objects that close and fail, each followed by more
  const failing: Line[] = [];
  for (let i = 0; i < 50_000; i++) failing.push(...L('{', `"k${i}": 1,`, '}'));
  failing.push(...L('{', '"ok": true', '}'));
  expect(findObject(failing)!.reply.value).toEqual({ ok: true });
});
