// What a claim file may be, so that a hostile one cannot hurt the runner: a bounded size,
// YAML that expands to a bounded document, and an implementation name and version that are
// safe as a report folder name and as text in reports and on the terminal. Each problem is
// one line (ClaimLimitError); the loader turns it into a claim error (exit 2).
// docs/claims.md ("Completeness and errors") documents these rules.
import { parseDocument } from 'yaml';
import { readRegularFile } from '../safe-fs.js';

/** One or more problems, each one line; `message` is the first. */
export class ClaimLimitError extends Error {
  readonly problems: string[];
  constructor(problems: string | string[]) {
    const list = typeof problems === 'string' ? [problems] : problems;
    super(list[0]);
    this.problems = list;
  }
}

/** A claim file is a page of YAML; anything larger is refused before it is parsed. */
export const MAX_CLAIM_BYTES = 1024 * 1024;
/** Alias expansions allowed while turning the YAML into data (yaml's own default, made explicit). */
export const MAX_ALIAS_COUNT = 100;
export const MAX_NAME_LENGTH = 100;
export const MAX_VERSION_LENGTH = 100;

/** reports/partial/: where a --grep run writes beside a full report (src/cli/report-layout.ts). */
export const PARTIAL_FOLDER = 'partial';

/**
 * Names a report folder cannot take: what `run` and `merge` write beside the implementations'
 * folders (reports/index.html, playwright/, blob/, partial/, .lock, README.md). Compared ignoring case:
 * on a case-insensitive file system `Blob` is `blob`.
 */
export const RESERVED_NAMES: ReadonlyMap<string, string> = new Map([
  ['index.html', 'reports/index.html is the matrix of implementations'],
  ['playwright', 'reports/playwright/ is the Playwright report of a run with several claims'],
  ['blob', 'reports/blob/ holds the blob reports of sharded runs'],
  [PARTIAL_FOLDER, 'reports/partial/ holds a --grep run made beside a full report'],
  ['readme.md', 'reports/README.md describes the reports folder'],
]);
/** Device names Windows reserves, with any extension. */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$/i;

/** Letters, digits and `. _ - + @`, starting and ending with a letter, digit, `_`, `+` or `@` (as in schemas/claim.schema.json). */
const NAME_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9._+@-]*[A-Za-z0-9_+@-])?$/;
/** Controls (C0, DEL, C1), line and paragraph separators, bidi controls (as in schemas/claim.schema.json). */
const NOT_IN_VERSION = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/** A character as it may be shown in a one-line message. */
const shown = (c: string): string =>
  c === '"'
    ? `'"'`
    : /^[\x21-\x7e]$/.test(c)
      ? `"${c}"`
      : `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Why `name` cannot be an implementation name (the folder reports/<name>/), or undefined. */
export function nameProblem(name: string): string | undefined {
  if (name.length === 0) return 'is empty';
  if ([...name].length > MAX_NAME_LENGTH) return `is longer than ${MAX_NAME_LENGTH} characters`;
  if (name.startsWith('.')) return 'starts with "." (hidden and reserved names, such as reports/.lock, start with ".")';
  if (name.includes('..')) return 'contains ".."';
  for (const c of ['/', '\\', '\u0000'])
    if (name.includes(c)) return `contains ${shown(c)}; it names one folder under reports/`;
  const reserved =
    RESERVED_NAMES.get(name.toLowerCase()) ??
    (WINDOWS_DEVICE.test(name) ? 'it is a device name on Windows' : undefined);
  if (reserved) return `is reserved: ${reserved}`;
  if (!NAME_PATTERN.test(name)) {
    const bad = [...name].find((c) => !/[A-Za-z0-9._+@-]/.test(c));
    return bad !== undefined
      ? `contains ${shown(bad)}; use letters, digits and . _ - + @`
      : 'must start with a letter or digit and not end with "."';
  }
  return undefined;
}

/** Why `version` cannot be an implementation version, or undefined. */
export function versionProblem(version: string): string | undefined {
  if (version.length === 0) return 'is empty';
  if ([...version].length > MAX_VERSION_LENGTH) return `is longer than ${MAX_VERSION_LENGTH} characters`;
  const bad = NOT_IN_VERSION.exec(version)?.[0];
  if (bad !== undefined) return `contains the control character ${shown(bad)}; a version is one line of printable text`;
  return undefined;
}

/** A claim's text shown in a one-line message: quoted, cut short, all but printable ASCII escaped. */
export const quoted = (s: string): string =>
  JSON.stringify([...s].length > 60 ? `${[...s].slice(0, 60).join('')}...` : s).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/**
 * Why the implementation name cannot be a report folder or the version is not one line of
 * printable text, one line each (empty: neither). Runs before the schema check, for a message
 * that says why; the schema holds the same rules for editors.
 */
export function implementationProblems(raw: unknown): { field: 'name' | 'version'; line: string }[] {
  const impl = (raw as { implementation?: unknown } | null)?.implementation as
    { name?: unknown; version?: unknown } | null | undefined;
  if (typeof impl !== 'object' || impl === null) return [];
  const found: { field: 'name' | 'version'; line: string }[] = [];
  const name = typeof impl.name === 'string' ? nameProblem(impl.name) : undefined;
  if (name) found.push({ field: 'name', line: `implementation.name: ${quoted(impl.name as string)} ${name}` });
  const version = typeof impl.version === 'string' ? versionProblem(impl.version) : undefined;
  if (version)
    found.push({ field: 'version', line: `implementation.version: ${quoted(impl.version as string)} ${version}` });
  return found;
}

/**
 * The claim file's text: a regular file of at most MAX_CLAIM_BYTES, never read past that
 * (src/safe-fs.ts: a symlink, FIFO, device or folder is refused before it is opened).
 */
export function readClaimText(path: string): string {
  const r = readRegularFile(path, { maxBytes: MAX_CLAIM_BYTES });
  if (r.kind === 'ok') return r.bytes.toString('utf8');
  if (r.kind === 'missing') throw new ClaimLimitError('cannot read the claim file (no such file)');
  if (r.over) throw new ClaimLimitError(`the claim file is larger than ${MAX_CLAIM_BYTES / 1024 / 1024} MiB`);
  throw new ClaimLimitError(`the claim is not a regular file: ${r.why.replace(/^it is /, '')}`);
}

/** A claim's YAML: the data, and the text a value was written as (for hints such as "quote 1.0"). */
export interface ParsedClaim {
  data: unknown;
  sourceAt(path: readonly (string | number)[]): string | undefined;
  /** Where the value at `path` starts in the text, or its nearest written parent's (0: the top). */
  offsetAt(path: readonly (string | number)[]): number;
}

/**
 * The claim's YAML as plain data. A YAML error is one line with its position; an alias bomb (aliases that expand past MAX_ALIAS_COUNT) and any other failure to
 * build the data (deep nesting, a parser bug) are one line too, never an exception.
 */
export function parseClaim(text: string): ParsedClaim {
  let doc: ReturnType<typeof parseDocument>;
  try {
    // prettyErrors gives line and column positions; only the first line of the message is shown.
    doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  } catch (e) {
    throw new ClaimLimitError(`the YAML cannot be parsed: ${firstLine(e)}`);
  }
  if (doc.errors.length > 0) {
    // The first only: a later YAML error is most often the parser's echo of the first.
    const e = doc.errors[0]!;
    const where = e.linePos?.[0] ? `line ${e.linePos[0].line}, column ${e.linePos[0].col}` : `offset ${e.pos[0]}`;
    // The message ends with the same position (prettyErrors): shown once, in front.
    throw new ClaimLimitError(`YAML error at ${where}: ${firstLine(e).replace(/ at line \d+, column \d+:?$/, '')}`);
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown;
  } catch (e) {
    if (e instanceof ReferenceError && /alias/i.test(e.message)) {
      throw new ClaimLimitError(
        `the YAML's aliases expand too far (more than ${MAX_ALIAS_COUNT} alias expansions; a claim needs none): ${firstLine(e)}`,
      );
    }
    throw new ClaimLimitError(`the YAML cannot be turned into data: ${firstLine(e)}`);
  }
  return {
    data,
    offsetAt(path) {
      for (let n = path.length; n > 0; n--) {
        try {
          const node = doc.getIn(path.slice(0, n), true) as { range?: [number, number, number] } | undefined;
          if (node?.range) return node.range[0];
        } catch {
          // Not a collection on the way: try the parent.
        }
      }
      return 0;
    },
    sourceAt(path) {
      try {
        const node = doc.getIn(path, true) as { source?: unknown } | undefined;
        return typeof node?.source === 'string' ? node.source : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

/** {@link parseClaim}'s data alone. */
export const parseClaimYaml = (text: string): unknown => parseClaim(text).data;

const firstLine = (e: unknown): string =>
  (e instanceof Error ? e.message : String(e)).split('\n')[0]!.replace(/\.$/, '');
