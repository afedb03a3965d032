// The validator every check uses. Two layers, never mixed:
//  - wire: what the `draft` snapshot's schemas and fixtures define, plus the rules a
//    schema cannot express (UTF-8, duplicate keys, intercept id = event id, unique hook
//    ids, inline MCP elicitation JSON). This layer alone decides a message's validity.
//  - profile: newer observable checks from the seed (Base Protocol profile), applied on
//    top; they are reported with their own check ids and never flip wire validity.
import { METHODS } from './catalogue.js';
import { isObject, parseJsonBytes, parseJsonStrict, type JsonValue } from './json.js';
import { kindEntry, kindInSnapshot, kindNotInSnapshot } from './kinds.js';
import { schemaIssues } from './schema-errors.js';
import { ourSchemas, SchemaSetError, type SchemaSet } from './schema-set.js';
import { OLDEST_SNAPSHOT, snapshotOf, type SnapshotId } from './snapshots.js';

export type Layer = 'wire' | 'profile';

export interface Finding {
  /** JSON Pointer into the judged value ('' = the whole value). */
  path: string;
  code: string;
  message: string;
  requirement?: string;
  layer: Layer;
  /** Profile-layer findings name the conformance check they come from (e.g. `base-8`). */
  check?: string;
}

export interface ValidateOptions {
  /** Schemas to judge by: ours (default) or a snapshot's (`snapshotSchemas(dir)`). */
  schemas?: SchemaSet;
  /**
   * The snapshot whose rules judge, when `schemas` is not given: our schemas of that
   * snapshot. Default OLDEST_SNAPSHOT (draft@2b5da580), so callers that name none keep
   * their verdicts.
   */
  snapshot?: SnapshotId;
  /** Skip the profile layer (the fixture verdict uses the wire layer only). */
  wireOnly?: boolean;
  /**
   * `false`: an invalid value gets only the first schema error the fast validator met, and
   * no explaining validator is compiled (about half a second of CPU). For a short-lived
   * process that needs the verdict more than every reason, such as the reference harness
   * refusing a registration. The verdict is the same either way.
   */
  explain?: boolean;
}

export const isWireValid = (findings: readonly Finding[]): boolean => !findings.some((f) => f.layer === 'wire');

function wire(path: string, code: string, message: string, requirement?: string): Finding {
  return requirement ? { path, code, message, requirement, layer: 'wire' } : { path, code, message, layer: 'wire' };
}

/** The event a value carries: `params.event` of a message, or the value itself. */
function carriedEvent(value: unknown): { event: Record<string, unknown>; base: string } | undefined {
  if (!isObject(value)) return undefined;
  const params = value.params;
  if (isObject(params) && isObject(params.event)) return { event: params.event, base: '/params/event' };
  if (typeof value.type === 'string') return { event: value, base: '' };
  return undefined;
}

/** The schemas the options name: given ones, else ours of the named (or oldest) snapshot. */
export function schemasFor(options: Pick<ValidateOptions, 'schemas' | 'snapshot'> = {}): SchemaSet {
  return options.schemas ?? ourSchemas(options.snapshot ?? OLDEST_SNAPSHOT);
}

/**
 * Validate a parsed value against a kind; returns all findings (wire first, then profile).
 * An unknown kind throws; a kind the snapshot does not have (e.g. `configuration-request`
 * under draft@2b5da580) is one wire finding: no message of that kind is valid there.
 */
export function validate(kind: string, value: unknown, options: ValidateOptions = {}): Finding[] {
  const entry = kindEntry(kind);
  if (!entry) throw new SchemaSetError(`unknown kind "${kind}"`);
  const schemas = schemasFor(options);
  // The rules of the snapshot the schemas belong to; a published folder that is no snapshot
  // we know (undefined) is judged by its files alone.
  const snapshot = schemas.snapshot;
  if (snapshot !== undefined && !kindInSnapshot(kind, snapshot))
    return [wire('', 'kind.not-in-snapshot', kindNotInSnapshot(kind, snapshot))];
  const requirement = entry.requirements[0];
  const findings: Finding[] = [];
  const first = schemas.firstErrors(kind, value);
  if (first) {
    // Only an invalid value pays for collecting and explaining every error.
    let errors = first;
    if (options.explain !== false) {
      const fn = schemas.forKind(kind);
      fn(value);
      errors = fn.errors ?? first;
    }
    const issues = schemaIssues(errors, value, options.explain === false ? undefined : schemas);
    // A fast validator may stop at a keyword no issue describes: the verdict still stands.
    if (issues.length === 0) findings.push(wire('', 'schema.invalid', `not a valid ${entry.title}`, requirement));
    for (const i of issues) findings.push(wire(i.path, i.code, i.message, requirement));
  }
  findings.push(...semanticFindings(kind, value, schemas));
  if (options.wireOnly) return findings;
  // Where the snapshot's schemas require `harness` on every event, the wire finding says it
  // and base-8 would say it again (the check id stays the same for snapshots that need it).
  if (snapshot !== undefined && snapshotOf(snapshot).rules.harnessOnEveryEvent) return findings;
  // A snapshot's schemas may require what our profile layer only recommends (a missing
  // `harness`): the wire error says it once, and the warning would say it again.
  const missing = new Set(
    findings.flatMap((f) => {
      const m = f.code === 'schema.required' ? /^missing required member "(.*)"$/.exec(f.message) : null;
      return m ? [`${f.path}/${m[1]!.replaceAll('~', '~0').replaceAll('/', '~1')}`] : [];
    }),
  );
  findings.push(...profileFindings(kind, value).filter((f) => !missing.has(f.path)));
  return findings;
}

/** Validate raw bytes (or text): UTF-8 and strict JSON first, then `validate`. */
export function validateRaw(
  kind: string,
  input: Uint8Array | string,
  options: ValidateOptions = {},
): { value?: JsonValue; findings: Finding[] } {
  const parsed = typeof input === 'string' ? parseJsonStrict(input) : parseJsonBytes(input);
  if (!parsed.ok) {
    return { findings: parsed.findings.map((f) => wire(f.path, f.code, f.message, 'AHP-RPC-001')) };
  }
  return { value: parsed.value, findings: validate(kind, parsed.value, options) };
}

// ---------------------------------------------------------------- wire: beyond schemas

function semanticFindings(kind: string, value: unknown, schemas: SchemaSet): Finding[] {
  const out: Finding[] = [];
  // JSON-RPC 2.0: a response carries its request's id; null only in an error about a request
  // whose id could not be read. The snapshot's schemas allow null in any response, so this is
  // judged here, not in the schema layer (which stays the snapshot's: test/differential.spec.ts).
  if (isObject(value) && 'result' in value && !('error' in value) && value.id === null) {
    out.push(
      wire(
        '/id',
        'jsonrpc.result-null-id',
        'a result must carry the id of the request it answers; only an error response may have a null id (JSON-RPC 2.0)',
        'AHP-RPC-001',
      ),
    );
  }
  if ((kind === 'intercept-request' || kind === 'ahp') && isObject(value) && value.method === METHODS.intercept) {
    const params = value.params;
    if ('id' in value && isObject(params) && isObject(params.event) && 'id' in params.event) {
      // A retry reuses both values, so they identify the same event; compare as JSON values.
      if (value.id !== params.event.id) {
        out.push(
          wire(
            '/id',
            'intercept.id-mismatch',
            `JSON-RPC id ${JSON.stringify(value.id)} must equal params.event.id ${JSON.stringify(params.event.id)}`,
            'AHP-RPC-002',
          ),
        );
      }
    }
  }
  if (kind === 'registration' && isObject(value) && Array.isArray(value.hooks)) {
    const seen = new Map<string, number>();
    value.hooks.forEach((hook, i) => {
      if (!isObject(hook) || typeof hook.id !== 'string') return;
      const first = seen.get(hook.id);
      if (first === undefined) seen.set(hook.id, i);
      else
        out.push(
          wire(
            `/hooks/${i}/id`,
            'registration.duplicate-hook-id',
            `hook id "${hook.id}" is already used by /hooks/${first}`,
            'AHP-REG-001',
          ),
        );
    });
  }
  out.push(...elicitationFindings(value, schemas));
  return out;
}

/**
 * Selected inline MCP elicitation JSON: a body-selected text part (no gap) holds the
 * complete serialized MCP request params or result. Parse it, validate it against the
 * MCP contract, and require agreement with the AHP envelope. Metadata, omit and gap
 * views carry no payload and are never parsed.
 */
export function elicitationFindings(
  value: unknown,
  schemasOrOptions: SchemaSet | Pick<ValidateOptions, 'schemas' | 'snapshot'> = {},
): Finding[] {
  const schemas = 'isValid' in schemasOrOptions ? schemasOrOptions : schemasFor(schemasOrOptions);
  const carried = carriedEvent(value);
  if (!carried) return [];
  const { event, base } = carried;
  const which =
    event.type === 'user.elicitation.request'
      ? 'request'
      : event.type === 'user.elicitation.result'
        ? 'result'
        : undefined;
  if (!which || !isObject(event.elicitation)) return [];
  const envelope = event.elicitation;
  const part = envelope[which];
  if (!isObject(part) || part.selection !== 'body' || 'gap' in part || typeof part.text !== 'string') return [];
  const path = `${base}/elicitation/${which}/text`;
  const req = 'AHP-CONTENT-001';
  const parsed = parseJsonStrict(part.text);
  if (!parsed.ok) {
    return [
      wire(
        path,
        'elicitation.invalid-json',
        `elicitation ${which} text must contain valid JSON: ${parsed.findings[0]?.message ?? ''}`,
        req,
      ),
    ];
  }
  const payload = parsed.value;
  const out: Finding[] = [];
  const kind = `mcp-elicitation-${which}`;
  if (!schemas.isValid(kind, payload)) {
    const fn = schemas.forKind(kind);
    fn(payload);
    for (const i of schemaIssues(fn.errors, payload, schemas)) {
      out.push(
        wire(path, 'elicitation.mcp-contract', `elicitation ${which} payload ${i.path || '(root)'}: ${i.message}`, req),
      );
    }
  }
  if (!isObject(payload)) return out;
  if (which === 'request') {
    // MCP omits `mode` for forms; the envelope always states it.
    const mode = payload.mode === undefined ? 'form' : payload.mode;
    if (mode !== envelope.mode) {
      out.push(
        wire(
          `${base}/elicitation/mode`,
          'elicitation.mode-mismatch',
          `envelope mode ${JSON.stringify(envelope.mode)} disagrees with the request's mode ${JSON.stringify(mode)}`,
          req,
        ),
      );
    }
  } else {
    if (payload.action !== envelope.action) {
      out.push(
        wire(
          `${base}/elicitation/action`,
          'elicitation.action-mismatch',
          `envelope action ${JSON.stringify(envelope.action)} disagrees with the result's action ${JSON.stringify(payload.action)}`,
          req,
        ),
      );
    }
    if ('content' in payload && (payload.action !== 'accept' || envelope.mode !== 'form')) {
      out.push(
        wire(path, 'elicitation.content-not-allowed', 'MCP content is only valid for accepted form results', req),
      );
    }
  }
  return out;
}

// ---------------------------------------------------------------- profile layer

/** Profile check ids from the seed's Base Protocol profile. */
export const PROFILE_CHECKS = {
  harnessMetadata: 'base-8',
} as const;

/**
 * Seed base check 8: every event names its originating harness with non-empty string
 * `name` and `version`, also without a preceding session.start. Newer than the
 * upstream fixtures, so it is a profile finding, never a wire one.
 */
export function profileFindings(kind: string, value: unknown): Finding[] {
  const carried =
    kind.startsWith('event') || kind === 'ahp' || kind === 'intercept-request' || kind === 'observe-notification'
      ? carriedEvent(value)
      : undefined;
  if (!carried || typeof carried.event.type !== 'string') return [];
  const { event, base } = carried;
  const h = event.harness;
  const problems: [string, string][] = [];
  if (!isObject(h)) problems.push([`${base}/harness`, 'event has no harness metadata object']);
  else {
    for (const member of ['name', 'version'] as const) {
      if (typeof h[member] !== 'string' || h[member] === '') {
        problems.push([
          `${base}/harness/${member}`,
          `harness.${member} must be a non-empty string, got ${JSON.stringify(h[member]) ?? 'nothing'}`,
        ]);
      }
    }
  }
  return problems.map(([path, message]) => ({
    path,
    code: 'profile.harness-metadata',
    message,
    layer: 'profile' as const,
    check: PROFILE_CHECKS.harnessMetadata,
  }));
}
