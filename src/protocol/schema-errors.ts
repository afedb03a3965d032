// Turns ajv's raw error list into findings a person can act on. ajv reports every
// branch of every failed union; here a union keeps only the branch the value was
// evidently aiming at (its discriminating constants matched), or, when none matched,
// one finding that lists the values that would have.
import type { ErrorObject } from './schema-set.js';

export interface SchemaIssue {
  path: string;
  code: string;
  message: string;
}

const isUnion = (e: ErrorObject): boolean => e.keyword === 'oneOf' || e.keyword === 'anyOf';

function branchPrefixes(e: ErrorObject): string[] {
  const branches = Array.isArray(e.schema) ? (e.schema as unknown[]) : [];
  return branches.map((b, i) => {
    const ref = b && typeof b === 'object' ? (b as { $ref?: unknown }).$ref : undefined;
    if (typeof ref === 'string') {
      const hash = ref.indexOf('#');
      return hash >= 0 ? ref.slice(hash) : '#';
    }
    return `${e.schemaPath}/${i}`;
  });
}

const under = (path: string, parent: string): boolean => path === parent || path.startsWith(`${parent}/`);

/** A branch is ruled out when a constant one level below the union's value (a tag) or the value's type did not match. */
function ruledOut(errors: ErrorObject[], at: string): boolean {
  return errors.some(
    (e) =>
      ((e.keyword === 'const' || e.keyword === 'enum') && e.instancePath.startsWith(`${at}/`) && !e.instancePath.slice(at.length + 1).includes('/')) ||
      (e.keyword === 'type' && e.instancePath === at),
  );
}

function reduce(all: ErrorObject[]): ErrorObject[] {
  let errors = [...all];
  // Deepest unions first, so an outer union sees the already reduced inner ones.
  const unions = errors.filter(isUnion).sort((a, b) => b.instancePath.length - a.instancePath.length);
  for (const u of unions) {
    if (!errors.includes(u)) continue;
    const prefixes = branchPrefixes(u);
    if (prefixes.length === 0) continue;
    const groups = prefixes.map((p) =>
      errors.filter((e) => e !== u && under(e.instancePath, u.instancePath) && (e.schemaPath === p || e.schemaPath.startsWith(`${p}/`))),
    );
    const inGroups = new Set(groups.flat());
    const candidates = groups.filter((g) => !ruledOut(g, u.instancePath));
    if (candidates.length > 0) {
      const best = candidates.reduce((a, b) => (b.length < a.length ? b : a));
      if (best.length === 0) continue; // several branches matched: keep the union's own error
      errors = errors.filter((e) => e !== u && (!inGroups.has(e) || best.includes(e)));
    } else {
      // No branch was aimed at: one finding listing the tags that would have matched.
      const tagErrors = [...inGroups].filter((e) => e.keyword === 'const' && e.instancePath !== u.instancePath);
      const tagPath = tagErrors[0]?.instancePath;
      const allowed = [...new Set(tagErrors.filter((e) => e.instancePath === tagPath).map((e) => JSON.stringify(e.params.allowedValue)))];
      errors = errors.filter((e) => !inGroups.has(e));
      if (tagPath !== undefined && allowed.length > 0) {
        const idx = errors.indexOf(u);
        errors[idx] = { ...u, instancePath: tagPath, keyword: 'enum', message: `must be one of ${allowed.join(', ')}`, params: { allowedValues: allowed } };
      }
    }
  }
  // `if` failures only point at their `then`/`else` errors; drop them when those are present.
  errors = errors.filter((e) => e.keyword !== 'if' || !errors.some((o) => o !== e && o.keyword !== 'if' && under(o.instancePath, e.instancePath)));
  return errors;
}

function describe(e: ErrorObject, value: (path: string) => unknown): SchemaIssue {
  const p = e.params as Record<string, unknown>;
  const got = (path: string): string => {
    const v = value(path);
    const s = JSON.stringify(v);
    return s === undefined ? 'nothing' : s.length > 60 ? `${s.slice(0, 57)}...` : s;
  };
  switch (e.keyword) {
    case 'required':
      return { path: e.instancePath, code: 'schema.required', message: `missing required member "${String(p.missingProperty)}"` };
    case 'additionalProperties':
      return {
        path: `${e.instancePath}/${String(p.additionalProperty).replaceAll('~', '~0').replaceAll('/', '~1')}`,
        code: 'schema.unknown-member',
        message: `unknown member "${String(p.additionalProperty)}" is not allowed here`,
      };
    case 'const':
      return { path: e.instancePath, code: 'schema.const', message: `must be ${JSON.stringify(p.allowedValue)}, got ${got(e.instancePath)}` };
    case 'enum': {
      const allowed = (p.allowedValues as unknown[]).map((v) => (typeof v === 'string' && v.startsWith('"') ? v : JSON.stringify(v)));
      return { path: e.instancePath, code: 'schema.enum', message: `must be one of ${allowed.join(', ')}, got ${got(e.instancePath)}` };
    }
    case 'type':
      return { path: e.instancePath, code: 'schema.type', message: `must be of type ${String(p.type)}, got ${got(e.instancePath)}` };
    case 'not': {
      const names = forbiddenMembers(e.schema);
      if (names.length) return { path: e.instancePath, code: 'schema.forbidden-member', message: `member ${names.map((n) => `"${n}"`).join(' or ')} is not allowed here` };
      return { path: e.instancePath, code: 'schema.not', message: 'matches a shape that is not allowed here' };
    }
    case 'format':
      return { path: e.instancePath, code: 'schema.format', message: `must be a valid ${String(p.format)}, got ${got(e.instancePath)}` };
    case 'oneOf':
    case 'anyOf':
      return { path: e.instancePath, code: `schema.${e.keyword}`, message: e.message === 'must match exactly one schema in oneOf' ? 'must match exactly one allowed variant' : String(e.message) };
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

export function schemaIssues(errors: ErrorObject[] | null | undefined, value: unknown): SchemaIssue[] {
  if (!errors || errors.length === 0) return [];
  const seen = new Set<string>();
  const out: SchemaIssue[] = [];
  for (const e of reduce(errors)) {
    const issue = describe(e, (p) => at(value, p));
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(issue);
  }
  return out;
}

export { at as valueAt };
