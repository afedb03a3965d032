// Deterministic structural mutants of a JSON document, for differential schema tests.
// Every mutant changes exactly one place of the tree; none is sampled at random.

import { isObject } from '../../src/protocol/json.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface Mutant {
  /** JSON Pointer (RFC 6901) of the place the mutation acts on. */
  readonly pointer: string;
  /** What was done there, in words. */
  readonly op: string;
  /** The whole mutated document. */
  readonly value: Json;
}

/**
 * Member name → the string values seen at a member of that name: `enumLike` are those a
 * schema names in a `const` or `enum` (the values worth swapping), `other` the rest
 * (free-form text, identities, times, …), of which one stands in for "any other string".
 */
export type StringPool = ReadonlyMap<
  string,
  { readonly enumLike: readonly string[]; readonly other: readonly string[] }
>;

const escapeToken = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');
const pointerOf = (path: readonly (string | number)[]): string =>
  path.map((p) => `/${escapeToken(String(p))}`).join('');
const show = (v: Json, max = Infinity): string => {
  const text = JSON.stringify(v);
  return text.length > max ? `${text.slice(0, max)}…` : text;
};

/**
 * Visit every node with its path and the name of the member it sits under (array items
 * inherit the name of the member holding the array; the root has none).
 */
function visit(root: Json, fn: (node: Json, path: (string | number)[], name: string | undefined) => void): void {
  const walk = (node: Json, path: (string | number)[], name: string | undefined): void => {
    fn(node, path, name);
    if (Array.isArray(node)) node.forEach((item, i) => walk(item, [...path, i], name));
    else if (isObject(node)) for (const [k, v] of Object.entries(node)) walk(v, [...path, k], k);
  };
  walk(root, [], undefined);
}

/**
 * Collect, per member name, every string value found at such a member in any of the
 * documents, split by `isEnumLike`.
 */
export function collectStringPool(docs: readonly Json[], isEnumLike: (value: string) => boolean): StringPool {
  const sets = new Map<string, Set<string>>();
  for (const doc of docs) {
    visit(doc, (node, _path, name) => {
      if (typeof node !== 'string' || name === undefined) return;
      let set = sets.get(name);
      if (!set) sets.set(name, (set = new Set()));
      set.add(node);
    });
  }
  const pool = new Map<string, { enumLike: string[]; other: string[] }>();
  for (const [name, set] of sets) {
    const values = [...set].sort();
    pool.set(name, { enumLike: values.filter(isEnumLike), other: values.filter((v) => !isEnumLike(v)) });
  }
  return pool;
}

/** Every string a schema document names in a `const` or an `enum`, anywhere in it. */
export function schemaEnumStrings(docs: Iterable<unknown>): Set<string> {
  const out = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    for (const [k, v] of Object.entries(node)) {
      if (k === 'const' && typeof v === 'string') out.add(v);
      if (k === 'enum' && Array.isArray(v)) for (const e of v) if (typeof e === 'string') out.add(e);
      walk(v);
    }
  };
  for (const doc of docs) walk(doc);
  return out;
}

/** A copy of `root` with the node at `path` replaced by `replace(node)`, sharing untouched subtrees. */
function replaceAt(root: Json, path: readonly (string | number)[], replace: (node: Json) => Json): Json {
  if (path.length === 0) return replace(root);
  const [head, ...rest] = path;
  if (Array.isArray(root)) {
    const copy = root.slice();
    copy[head as number] = replaceAt(root[head as number] as Json, rest, replace);
    return copy;
  }
  if (isObject(root)) {
    // Rebuild the object so member order is kept.
    const copy: { [key: string]: Json } = {};
    for (const [k, v] of Object.entries(root)) copy[k] = k === head ? replaceAt(v, rest, replace) : v;
    return copy;
  }
  throw new Error(`path ${pointerOf(path)} runs through a scalar`);
}

const UNKNOWN_MEMBER = 'zzUnknown';
const STRING_TYPE_SWAPS: readonly Json[] = ['', 0, null, true, [], {}];
const NUMBER_SWAPS: readonly Json[] = [-1, 1.5, '1'];
const BOOLEAN_SWAPS: readonly Json[] = ['true', 0];
const OBJECT_SWAPS: readonly Json[] = [[], null];

/**
 * All single-place mutants of `doc`:
 *  (a) drop each member of each object, one at a time;
 *  (b) add an unknown member `"zzUnknown": 1` to each object;
 *  (c) each string → every other enum-like pool value seen at a member of the same name, the
 *      first six other pool values there (stand-ins for "any other string"), `""`, and the
 *      type swaps 0, null, true, [], {};
 *  (d) numbers → -1, 1.5, "1"; booleans → "true", 0;
 *  (e) arrays → [] and the first element duplicated;
 *  (f) objects → [] and null.
 * Mutants identical (by JSON text) to the original or to an earlier mutant are left out.
 */
export function mutantsOf(doc: Json, pool: StringPool): Mutant[] {
  const out: Mutant[] = [];
  const seen = new Set<string>([JSON.stringify(doc)]);
  const push = (path: (string | number)[], op: string, value: Json): void => {
    const key = JSON.stringify(value);
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ pointer: pointerOf(path), op, value });
  };
  const swap = (path: (string | number)[], node: Json, to: Json): void => {
    if (JSON.stringify(node) === JSON.stringify(to)) return;
    push(
      path,
      `replace ${show(node, 60)} with ${show(to)}`,
      replaceAt(doc, path, () => to),
    );
  };

  visit(doc, (node, path, name) => {
    if (isObject(node)) {
      for (const key of Object.keys(node)) {
        push(
          [...path, key],
          `drop member ${show(key)}`,
          replaceAt(doc, path, (n) => {
            const { [key]: _dropped, ...rest } = n as { [key: string]: Json };
            return rest;
          }),
        );
      }
      if (!(UNKNOWN_MEMBER in node)) {
        push(
          path,
          `add member "${UNKNOWN_MEMBER}": 1`,
          replaceAt(doc, path, (n) => ({ ...(n as object), [UNKNOWN_MEMBER]: 1 })),
        );
      }
      for (const to of OBJECT_SWAPS) swap(path, node, to);
    } else if (Array.isArray(node)) {
      if (node.length > 0) {
        swap(path, node, []);
        push(
          path,
          'duplicate the first element',
          replaceAt(doc, path, (n) => [(n as Json[])[0] as Json, ...(n as Json[])]),
        );
      }
    } else if (typeof node === 'string') {
      const values = name === undefined ? undefined : pool.get(name);
      for (const other of values?.enumLike ?? []) if (other !== node) swap(path, node, other);
      // A few free-form values seen at the same name (e.g. other URIs, times, ids), standing in
      // for "any other string"; bounded so the mutant family stays small enough to judge quickly.
      for (const other of (values?.other ?? []).filter((o) => o !== node).slice(0, 6)) swap(path, node, other);
      for (const to of STRING_TYPE_SWAPS) swap(path, node, to);
    } else if (typeof node === 'number') {
      for (const to of NUMBER_SWAPS) swap(path, node, to);
    } else if (typeof node === 'boolean') {
      for (const to of BOOLEAN_SWAPS) swap(path, node, to);
    }
  });
  return out;
}
