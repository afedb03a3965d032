// Turns ajv's raw error list into findings a person can act on. ajv reports every
// branch of every failed union; here a union keeps only the branch the value was
// evidently aiming at (its discriminating constants matched), or, when none matched,
// one finding that lists the values that would have.
import { isObject } from './json.js';
import type { ErrorObject, SchemaSet, ValidateFunction } from './schema-set.js';

export interface SchemaIssue {
  path: string;
  code: string;
  message: string;
}

const isUnion = (e: ErrorObject): boolean =>
  (e.keyword === 'oneOf' || e.keyword === 'anyOf') && Array.isArray(e.schema);
const under = (path: string, parent: string): boolean => path === parent || path.startsWith(`${parent}/`);

/**
 * The constants a branch pins its members to (`properties.x.const`, through `allOf`).
 * An optional tagged member (e.g. MCP's `mode: "form"`) only counts when present.
 */
function tags(schema: unknown, value: unknown, out = new Map<string, unknown>()): Map<string, unknown> {
  if (!isObject(schema)) return out;
  const props = schema.properties;
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  if (isObject(props)) {
    for (const [name, sub] of Object.entries(props)) {
      if (!isObject(sub) || !('const' in sub)) continue;
      if (required.has(name) || (isObject(value) && name in value)) out.set(name, sub.const);
    }
  }
  if (Array.isArray(schema.allOf)) for (const part of schema.allOf) tags(part, value, out);
  return out;
}

function wantsType(schema: unknown): string | undefined {
  return isObject(schema) && typeof schema.type === 'string' ? schema.type : undefined;
}

function fitsType(value: unknown, type: string | undefined): boolean {
  if (!type) return true;
  if (type === 'object') return isObject(value);
  if (type === 'array') return Array.isArray(value);
  if (type === 'integer' || type === 'number') return typeof value === 'number';
  if (type === 'null') return value === null;
  return typeof value === type;
}

type Branch = { schema: unknown; validate: ValidateFunction };

const prefixed = (errors: ErrorObject[], base: string): ErrorObject[] =>
  errors.map((e) => ({ ...e, instancePath: base + e.instancePath }));

/**
 * Explain one failed union at `u.instancePath`: validate the value against the branch it
 * was aimed at (its tags match) and report that branch's errors; when no branch was
 * aimed at, report the tag that would have to change.
 */
function explainUnion(u: ErrorObject, set: SchemaSet, depth: number): ErrorObject[] {
  const branches = (u.schema as unknown[]).map((_, i) => set.branch(u.schema, i));
  if (branches.some((b) => b === undefined)) return [u];
  const value = u.data;
  const matched = (b: Branch): number =>
    [...tags(b.schema, value)].filter(([k, v]) => isObject(value) && JSON.stringify(value[k]) === JSON.stringify(v))
      .length;
  const aimed = branches.filter((b) => {
    const t = tags(b!.schema, value);
    return (
      fitsType(value, wantsType(b!.schema)) &&
      [...t].every(([k, v]) => isObject(value) && JSON.stringify(value[k]) === JSON.stringify(v))
    );
  }) as Branch[];
  if (aimed.length > 0) {
    // Prefer the branch that pins the most members to the value's own constants, then the fewest errors.
    let best: ErrorObject[] | undefined;
    let bestTags = -1;
    for (const b of aimed) {
      const errs = b.validate(value) ? [] : [...(b.validate.errors ?? [])];
      const t = matched(b);
      if (best === undefined || t > bestTags || (t === bestTags && errs.length < best.length)) {
        best = errs;
        bestTags = t;
      }
    }
    // Several branches matched at once (a oneOf ambiguity): keep the union's own error.
    if (!best || best.length === 0) return [u];
    return depth > 20 ? prefixed(best, u.instancePath) : reduceUnions(prefixed(best, u.instancePath), set, depth + 1);
  }
  // No branch was aimed at: report a tag of the closest branches (most tags matched, then fewest mismatched).
  const scored = (branches as Branch[]).map((b) => ({
    hits: matched(b),
    misses: [...tags(b.schema, value)].filter(
      ([k, v]) => !isObject(value) || JSON.stringify(value[k]) !== JSON.stringify(v),
    ),
  }));
  const top = Math.max(...scored.map((x) => x.hits));
  const closest = scored.filter((x) => x.hits === top && x.misses.length > 0).map((x) => x.misses);
  // The member most of the closest branches disagree on, e.g. `type` of an effect.
  const votes = new Map<string, number>();
  for (const m of closest) for (const [k] of m) votes.set(k, (votes.get(k) ?? 0) + 1);
  const tag = [...votes].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (tag === undefined || !isObject(value)) {
    const types = [...new Set(branches.map((b) => wantsType(b!.schema)).filter(Boolean))];
    if (types.length && !branches.some((b) => fitsType(value, wantsType(b!.schema)))) {
      return [
        { ...u, keyword: 'type', params: { type: types.join(' or ') }, message: `must be ${types.join(' or ')}` },
      ];
    }
    return [u];
  }
  if (!(tag in value)) {
    return [
      { ...u, keyword: 'required', params: { missingProperty: tag }, message: `must have required property '${tag}'` },
    ];
  }
  const allowed = [...new Set(closest.flatMap((m) => m.filter(([k]) => k === tag).map(([, v]) => JSON.stringify(v))))];
  return [
    {
      ...u,
      instancePath: `${u.instancePath}/${tag}`,
      keyword: 'enum',
      params: { allowedValues: allowed },
      message: `must be one of ${allowed.join(', ')}`,
    },
  ];
}

/** Union reduction first (outermost union, i.e. shortest path and reported last), then drop `if` summaries. */
function reduce(all: ErrorObject[], set: SchemaSet | undefined, depth = 0): ErrorObject[] {
  return dropIfSummaries(reduceUnions(all, set, depth));
}

function reduceUnions(errors: ErrorObject[], set: SchemaSet | undefined, depth: number): ErrorObject[] {
  if (!set) return errors;
  let u: ErrorObject | undefined;
  for (const e of errors) if (isUnion(e) && (!u || e.instancePath.length <= u.instancePath.length)) u = e;
  if (!u) return errors;
  const at = u.instancePath;
  const outside = errors.filter((e) => !under(e.instancePath, at));
  // Unions at the same place that are not nested inside `u` are siblings: explain each too.
  const inner = reachable(u.schema, set);
  const siblings = errors.filter(
    (e) => e !== u && isUnion(e) && e.instancePath === at && !inner.has(e.parentSchema as object),
  );
  const explained = [u, ...siblings].flatMap((x) => explainUnion(x, set, depth));
  return [...reduceUnions(outside, set, depth), ...explained];
}

/** Every schema node reachable from `root`, following `$ref`s (bounded). */
function reachable(root: unknown, set: SchemaSet): Set<object> {
  const seen = new Set<object>();
  const stack = [root];
  while (stack.length && seen.size < 20_000) {
    const node = stack.pop();
    if (!node || typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    const target = set.deref(node);
    if (target) stack.push(target);
    for (const v of Object.values(node)) if (v && typeof v === 'object') stack.push(v);
  }
  return seen;
}

// `if` failures only point at their `then`/`else` errors; drop them when those are present.
// Likewise a `propertyNames` summary when the offending name is reported itself.
function dropIfSummaries(errors: ErrorObject[]): ErrorObject[] {
  return errors.filter((e) => {
    if (e.keyword === 'if')
      return !errors.some((o) => o !== e && o.keyword !== 'if' && under(o.instancePath, e.instancePath));
    if (e.keyword === 'propertyNames')
      return !errors.some((o) => o.propertyName !== undefined && o.instancePath === e.instancePath);
    return true;
  });
}

function describe(e: ErrorObject, value: (path: string) => unknown): SchemaIssue {
  const p = e.params as Record<string, unknown>;
  const got = (path: string): string => {
    const v = value(path);
    let s: string | undefined;
    try {
      s = JSON.stringify(v);
    } catch {
      s = '(a value too deep to show)'; // e.g. pathological nesting; the finding itself still stands
    }
    return s === undefined ? 'nothing' : s.length > 60 ? `${s.slice(0, 57)}...` : s;
  };
  if (e.propertyName !== undefined) {
    // A failure inside `propertyNames` is about a member name, not its value.
    const name = e.propertyName;
    const allowed =
      e.keyword === 'enum'
        ? ` (allowed: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')})`
        : '';
    return {
      path: `${e.instancePath}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`,
      code: 'schema.member-name',
      message: `member name "${name}" is not allowed here${allowed}`,
    };
  }
  switch (e.keyword) {
    case 'propertyNames':
      return {
        path: e.instancePath,
        code: 'schema.member-name',
        message: `has a member name that is not allowed (${JSON.stringify(p.propertyName)})`,
      };
    case 'required':
      return {
        path: e.instancePath,
        code: 'schema.required',
        message: `missing required member "${String(p.missingProperty)}"`,
      };
    case 'additionalProperties':
      return {
        path: `${e.instancePath}/${String(p.additionalProperty).replaceAll('~', '~0').replaceAll('/', '~1')}`,
        code: 'schema.unknown-member',
        message: `unknown member "${String(p.additionalProperty)}" is not allowed here`,
      };
    case 'const':
      return {
        path: e.instancePath,
        code: 'schema.const',
        message: `must be ${JSON.stringify(p.allowedValue)}, got ${got(e.instancePath)}`,
      };
    case 'enum': {
      const allowed = (p.allowedValues as unknown[]).map((v) =>
        typeof v === 'string' && v.startsWith('"') ? v : JSON.stringify(v),
      );
      return {
        path: e.instancePath,
        code: 'schema.enum',
        message: `must be one of ${allowed.join(', ')}, got ${got(e.instancePath)}`,
      };
    }
    case 'type':
      return {
        path: e.instancePath,
        code: 'schema.type',
        message: `must be of type ${String(p.type)}, got ${got(e.instancePath)}`,
      };
    case 'not': {
      const names = forbiddenMembers(e.schema);
      if (names.length)
        return {
          path: e.instancePath,
          code: 'schema.forbidden-member',
          message: `member ${names.map((n) => `"${n}"`).join(' or ')} is not allowed here`,
        };
      const banned = (e.schema as { pattern?: unknown } | undefined)?.pattern;
      if (typeof banned === 'string')
        return {
          path: e.instancePath,
          code: 'schema.not-pattern',
          message: `must not match pattern ${JSON.stringify(banned)}, got ${got(e.instancePath)}`,
        };
      return { path: e.instancePath, code: 'schema.not', message: 'matches a shape that is not allowed here' };
    }
    case 'format':
      return {
        path: e.instancePath,
        code: 'schema.format',
        message: `must be a valid ${String(p.format)}, got ${got(e.instancePath)}`,
      };
    case 'oneOf':
    case 'anyOf':
      return {
        path: e.instancePath,
        code: `schema.${e.keyword}`,
        message:
          e.message === 'must match exactly one schema in oneOf'
            ? 'must match exactly one allowed variant'
            : String(e.message),
      };
    default:
      return { path: e.instancePath, code: `schema.${e.keyword}`, message: String(e.message) };
  }
}

/** Member names a `not` subschema forbids (`{required:[x]}` or `{anyOf:[{required:[x]}...]}`). */
function forbiddenMembers(schema: unknown): string[] {
  const s = schema as { required?: unknown; anyOf?: unknown };
  if (Array.isArray(s?.required)) return s.required.map(String);
  if (Array.isArray(s?.anyOf)) return s.anyOf.flatMap((b) => forbiddenMembers(b));
  return [];
}

function at(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let cur: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

export function schemaIssues(errors: ErrorObject[] | null | undefined, value: unknown, set?: SchemaSet): SchemaIssue[] {
  if (!errors || errors.length === 0) return [];
  const seen = new Set<string>();
  const out: SchemaIssue[] = [];
  for (const e of reduce([...errors], set)) {
    const issue = describe(e, (p) => at(value, p));
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(issue);
  }
  return out;
}
