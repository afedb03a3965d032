// A compiled set of JSON Schemas: ours (built in memory from the catalogue) or an
// upstream snapshot's published ones (`--spec <dir>`). Each schema is compiled once
// per process and per set; validate functions are cached by location.
//
// Ajv itself is loaded on first use (about 0.1 s of CPU): with our precompiled fast
// validators (precompiled.ts) a process that meets only valid values never needs it, and the
// reference implementations, started thousands of times by the fault matrices, mostly do not.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { isDateTime, isUri } from './formats.js';
import { parseJsonBytes } from './json.js';
import { kindEntry, kindInSnapshot, kindNotInSnapshot, type KindEntry } from './kinds.js';
import { fastValidatorGroups, loadFastValidators, type FastValidators } from './precompiled.js';
import { schemaBase, wireSchemas } from './schema-build/index.js';
import { snapshotOfSpecDir } from './snapshot-dir.js';
import { OLDEST_SNAPSHOT, type SnapshotId } from './snapshots.js';

type AjvInstance = InstanceType<typeof Ajv2020>;

const require = createRequire(import.meta.url);
const ajvClass = (): typeof Ajv2020 => (require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020;

export class SchemaSetError extends Error {}

export interface SchemaSet {
  /** `ours (<snapshot>)` or the snapshot directory. */
  readonly label: string;
  /**
   * The snapshot the set judges by: ours are built for one; a published folder's is
   * recognised by its schema digest (undefined when the folder is no snapshot we know).
   */
  readonly snapshot: SnapshotId | undefined;
  /** The verdict for a kind, fast (stops at the first error). */
  isValid(kind: string, value: unknown): boolean;
  /** The fast validator's errors for an invalid value (the first it met), undefined for a valid one. */
  firstErrors(kind: string, value: unknown): ErrorObject[] | undefined;
  /** The validate function for a kind that collects every error, or a SchemaSetError when the set cannot express it. */
  forKind(kind: string): ValidateFunction;
  /** The validate function for a `file#pointer` location inside this set. */
  forLocation(location: string): ValidateFunction;
  /**
   * One branch of a union (`oneOf`/`anyOf` array object taken from an ajv error), compiled
   * on its own, with its schema after following `$ref`s. Used to explain union failures.
   */
  branch(union: unknown, index: number): { schema: unknown; validate: ValidateFunction } | undefined;
  /** The schema a `{$ref}` node points at, resolved against the node's own document. */
  deref(node: unknown): unknown;
}

/** Where every schema node sits: its document URI and JSON Pointer. */
type NodeIndex = WeakMap<object, { uri: string; pointer: string }>;

function indexNodes(index: NodeIndex, node: unknown, uri: string, pointer: string): void {
  if (node === null || typeof node !== 'object') return;
  index.set(node, { uri, pointer });
  for (const [k, v] of Object.entries(node)) {
    indexNodes(index, v, uri, `${pointer}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`);
  }
}

/**
 * Two ajv instances per set over the same documents: `fast` stops at the first error and
 * gives the verdict; `explain` collects every error (with the data and schema involved)
 * and runs only when a value is invalid, to say why.
 */
type Mode = 'fast' | 'explain';

function newAjv(strict: boolean, mode: Mode, code: Record<string, unknown> = {}): AjvInstance {
  const Ajv = ajvClass();
  return new Ajv({
    // Our own documents are checked against the meta-schema by the self-tests, not at every start.
    validateSchema: !strict,
    allErrors: mode === 'explain',
    verbose: mode === 'explain',
    // Our schemas are checked strictly (typos become errors); third-party snapshots only
    // need to compile, so their annotation keywords (`x-...`) and the like are tolerated.
    strict: strict ? true : false,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allowUnionTypes: true,
    unicode: true, // string lengths count Unicode code points, as the spec does
    logger: false,
    // The spec defines its own grammars for these two formats; other formats are annotations.
    formats: { uri: isUri, 'date-time': isDateTime },
    validateFormats: true,
    // Compiling fast matters more than the last percent of validation speed: a per_event
    // backend or a short run compiles once and validates a handful of messages.
    inlineRefs: false,
    code: { optimize: false, ...code },
  });
}

class CompiledSet implements SchemaSet {
  /** Created on first use when the fast validators are precompiled, else at once (as an upstream set's schemas are checked when added). */
  private ajvs: Record<Mode, AjvInstance> | undefined;
  /** The documents added so far, for instances created later. */
  private readonly docs: Record<string, unknown>[] = [];
  private readonly cache: Record<Mode, Map<string, ValidateFunction>> = { fast: new Map(), explain: new Map() };
  /** Built on first use: only explaining an invalid value needs it. */
  private nodeIndex: NodeIndex | undefined;
  constructor(
    readonly label: string,
    readonly snapshot: SnapshotId | undefined,
    private readonly strict: boolean,
    private readonly base: string,
    private readonly side: 'ours' | 'upstream',
    private readonly precompiled?: FastValidators,
  ) {
    if (!precompiled) this.ajvs = { fast: newAjv(strict, 'fast'), explain: newAjv(strict, 'explain') };
  }

  private get ajv(): Record<Mode, AjvInstance> {
    if (!this.ajvs) {
      this.ajvs = { fast: newAjv(this.strict, 'fast'), explain: newAjv(this.strict, 'explain') };
      for (const doc of this.docs) for (const mode of ['fast', 'explain'] as const) this.ajvs[mode].addSchema(doc);
    }
    return this.ajvs;
  }

  add(doc: Record<string, unknown>): void {
    this.docs.push(doc);
    if (this.ajvs) for (const mode of ['fast', 'explain'] as const) this.ajvs[mode].addSchema(doc);
    if (this.nodeIndex) indexNodes(this.nodeIndex, doc, String(doc.$id), '');
  }

  private get nodes(): NodeIndex {
    if (!this.nodeIndex) {
      this.nodeIndex = new WeakMap();
      for (const doc of this.docs) indexNodes(this.nodeIndex, doc, String(doc.$id), '');
    }
    return this.nodeIndex;
  }

  /** The compiled function at an absolute schema URI (compiled once, then cached). */
  private at(uri: string, mode: Mode): ValidateFunction {
    const cached = this.cache[mode].get(uri);
    if (cached) return cached;
    let fn: ValidateFunction | undefined = mode === 'fast' ? this.precompiled?.(uri) : undefined;
    if (fn) {
      this.cache[mode].set(uri, fn);
      return fn;
    }
    try {
      fn = this.ajv[mode].getSchema(uri);
    } catch (err) {
      throw new SchemaSetError(
        `schema ${uri.slice(this.base.length)} in ${this.label} does not compile: ${(err as Error).message}`,
      );
    }
    if (!fn) throw new SchemaSetError(`no schema at ${uri.slice(this.base.length)} in ${this.label}`);
    this.cache[mode].set(uri, fn);
    return fn;
  }

  private tryAt(uri: string): ValidateFunction | undefined {
    try {
      return this.at(uri, 'explain');
    } catch {
      return undefined;
    }
  }

  /** The absolute URI of a kind, compiling an inline fragment beside the files when needed. */
  private kindUri(kind: string): string {
    const entry: KindEntry | undefined = kindEntry(kind);
    if (!entry) throw new SchemaSetError(`unknown kind "${kind}"`);
    if (this.snapshot !== undefined && !kindInSnapshot(kind, this.snapshot))
      throw new SchemaSetError(kindNotInSnapshot(kind, this.snapshot));
    const where = this.side === 'ours' ? entry.ours : entry.upstream;
    if (typeof where === 'string') return this.base + where;
    // An inline fragment lives beside the files so its relative $refs resolve among them.
    const uri = `${this.base}__inline__${kind.replace(/[^a-z0-9.-]/gi, '_')}.json`;
    if (!this.ajv.fast.getSchema(uri)) {
      for (const mode of ['fast', 'explain'] as const) this.ajv[mode].addSchema({ ...where.inline, $id: uri });
    }
    return uri;
  }

  deref(node: unknown): unknown {
    if (!node || typeof node !== 'object' || typeof (node as { $ref?: unknown }).$ref !== 'string') return undefined;
    const here = this.nodes.get(node as object);
    if (!here) return undefined;
    return this.tryAt(new URL((node as { $ref: string }).$ref, here.uri).href)?.schema;
  }

  branch(union: unknown, index: number): { schema: unknown; validate: ValidateFunction } | undefined {
    if (!Array.isArray(union)) return undefined;
    const where = this.nodes.get(union);
    if (!where) return undefined;
    let uri = `${where.uri}#${where.pointer}/${index}`;
    let schema: unknown = union[index];
    // Follow plain `$ref` hops so the caller sees the branch's own members.
    for (
      let hops = 0;
      hops < 8 && schema && typeof schema === 'object' && typeof (schema as { $ref?: unknown }).$ref === 'string';
      hops++
    ) {
      const here = this.nodes.get(schema as object);
      const target = new URL((schema as { $ref: string }).$ref, here?.uri ?? where.uri).href;
      const fn = this.tryAt(target);
      if (!fn) return undefined;
      uri = target;
      schema = fn.schema;
    }
    const validate = this.tryAt(uri);
    return validate ? { schema, validate } : undefined;
  }

  forLocation(location: string): ValidateFunction {
    return this.at(this.base + location, 'explain');
  }

  forKind(kind: string): ValidateFunction {
    return this.at(this.kindUri(kind), 'explain');
  }

  isValid(kind: string, value: unknown): boolean {
    return this.at(this.kindUri(kind), 'fast')(value) as boolean;
  }

  firstErrors(kind: string, value: unknown): ErrorObject[] | undefined {
    const fn = this.at(this.kindUri(kind), 'fast');
    return fn(value) ? undefined : [...(fn.errors ?? [])];
  }
}

const ours = new Map<SnapshotId, SchemaSet>();
function ourSet(snapshot: SnapshotId, precompiled?: FastValidators): CompiledSet {
  const set = new CompiledSet(`ours (${snapshot})`, snapshot, true, schemaBase(snapshot), 'ours', precompiled);
  for (const doc of Object.values(wireSchemas(snapshot))) set.add(doc);
  return set;
}

/** Our wire schemas of a snapshot compiled now, every validator at run time (the self-tests compare the two). */
export function compileOurSchemas(snapshot: SnapshotId = OLDEST_SNAPSHOT): SchemaSet {
  return ourSet(snapshot);
}

/**
 * Our wire schemas of a snapshot (default the oldest, so callers that name none keep their
 * verdicts), compiled once per process (the fast validators precompiled when available).
 */
export function ourSchemas(snapshot: SnapshotId = OLDEST_SNAPSHOT): SchemaSet {
  let set = ours.get(snapshot);
  if (!set) {
    set = ourSet(snapshot, loadFastValidators(snapshot));
    ours.set(snapshot, set);
  }
  return set;
}

/**
 * The fast validators of every kind of a snapshot, one CommonJS module body (Ajv's standalone
 * code) per schema document holding kinds (fastValidatorGroups), each reading the custom
 * formats from a variable `ahpFormats`. Compiled the same way as at run time, so the
 * precompiled functions give the same verdicts (a self-test compares them).
 */
export function fastValidatorsCode(snapshot: SnapshotId): Map<string, string> {
  const { _ } = require('ajv/dist/compile/codegen/index.js') as typeof import('ajv/dist/compile/codegen/index.js');
  const standalone = require('ajv/dist/standalone/index.js') as typeof import('ajv/dist/standalone/index.js');
  const ajv = newAjv(true, 'fast', { source: true, formats: _`ahpFormats` });
  for (const doc of Object.values(wireSchemas(snapshot))) ajv.addSchema(doc);
  const code = new Map<string, string>();
  for (const [document, uris] of fastValidatorGroups(snapshot))
    // A CommonJS module whose default export TypeScript sees as the namespace.
    code.set(document, standalone.default(ajv, Object.fromEntries(uris.map((u) => [u, u]))));
  return code;
}

const snapshots = new Map<string, SchemaSet>();

/**
 * An upstream snapshot's published schemas from `<dir>/schema/draft/`. References resolve
 * relative to each file's own location inside that folder (never through the published
 * `$id`, never to the network), so a snapshot is judged by exactly the files it holds.
 */
export function snapshotSchemas(specDir: string): SchemaSet {
  const dir = resolve(specDir, 'schema', 'draft');
  const cached = snapshots.get(dir);
  if (cached) return cached;
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new Error('not a directory');
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.schema.json') || n === 'schema.json')
      .sort();
  } catch {
    throw new SchemaSetError(`no schema folder at ${dir}`);
  }
  if (names.length === 0) throw new SchemaSetError(`no schemas in ${dir}`);
  const base = 'file:///ahp-snapshot/schema/draft/';
  const set = new CompiledSet(dir, snapshotOfSpecDir(resolve(specDir)), false, base, 'upstream');
  for (const name of names) {
    const parsed = parseJsonBytes(readFileSync(join(dir, name)));
    if (!parsed.ok) throw new SchemaSetError(`${name}: ${parsed.findings[0]?.message ?? 'unreadable'}`);
    const doc = parsed.value;
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
      throw new SchemaSetError(`${name}: schema root is not an object`);
    set.add({ ...doc, $id: base + name });
  }
  snapshots.set(dir, set);
  return set;
}

export type { ErrorObject, ValidateFunction };
