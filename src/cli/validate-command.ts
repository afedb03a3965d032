// `ahp-conformance validate <file> [--as kind] [--spec dir] [--snapshot draft|draft@<commit>] [--json]`
import { readRegularFile } from '../safe-fs.js';
import { decodeUtf8, parseJsonStrict } from '../protocol/json.js';
import { inferKind } from '../protocol/infer-kind.js';
import { kindEntry, kindsOf } from '../protocol/kinds.js';
import { ourSchemas, SchemaSetError, snapshotSchemas, type SchemaSet } from '../protocol/schema-set.js';
import {
  NEWEST_SNAPSHOT,
  resolveSnapshot,
  SNAPSHOT_IDS,
  snapshotLabel,
  type SnapshotId,
} from '../protocol/snapshots.js';
import { isWireValid, validate, type Finding } from '../protocol/validator.js';
import { UsageError } from './args.js';
import { EXIT, type Io } from './io.js';
import { terminalJson, terminalLine } from '../terminal.js';

/** A message or transcript file to validate: far above any real one, so reading it stays bounded. */
const MAX_MESSAGE_FILE_BYTES = 64 * 1024 * 1024;

interface MessageReport {
  location: string;
  kind: string;
  valid: boolean;
  findings: Finding[];
}

function formatFinding(f: Finding): string {
  const where = f.path || '(root)';
  if (f.layer === 'profile') return `  warning [${f.check ?? 'profile'}] ${where}: ${f.message}`;
  return `  error ${where}: ${f.message} [${f.code}${f.requirement ? `, ${f.requirement}` : ''}]`;
}

function judge(location: string, text: string, forced: string | undefined, schemas: SchemaSet): MessageReport {
  const parsed = parseJsonStrict(text);
  if (!parsed.ok) {
    const findings: Finding[] = parsed.findings.map((f) => ({
      path: f.path,
      code: f.code,
      message: f.message,
      requirement: 'AHP-RPC-001',
      layer: 'wire',
    }));
    return { location, kind: forced ?? 'unknown', valid: false, findings };
  }
  const kind = forced ?? inferKind(parsed.value);
  const findings = validate(kind, parsed.value, { schemas });
  return { location, kind, valid: isWireValid(findings), findings };
}

/** `--snapshot` to a snapshot (plain `draft` = the newest), or a usage error (exit 2) naming the known ones. */
export function snapshotOption(value: string | undefined, fallback: SnapshotId = NEWEST_SNAPSHOT): SnapshotId {
  if (value === undefined) return fallback;
  const s = resolveSnapshot(value);
  if (!s) throw new UsageError(`unknown snapshot "${value}" for --snapshot (known: draft, ${SNAPSHOT_IDS.join(', ')})`);
  return s.id;
}

function run(positional: string[], options: Record<string, string>, flags: Record<string, boolean>, io: Io): number {
  if (positional.length !== 1) throw new UsageError('validate needs exactly one <file>');
  const file = positional[0] as string;
  const forced = options.as;
  if (forced !== undefined && !kindEntry(forced))
    throw new UsageError(`unknown kind "${forced}" for --as (see --kinds)`);
  const requested = snapshotOption(options.snapshot);
  let schemas: SchemaSet;
  try {
    schemas = options.spec !== undefined ? snapshotSchemas(options.spec) : ourSchemas(requested);
  } catch (err) {
    if (err instanceof SchemaSetError) throw new UsageError(`--spec: ${err.message}`);
    throw err;
  }
  if (options.spec !== undefined && options.snapshot !== undefined && schemas.snapshot !== requested)
    throw new UsageError(
      `--spec ${options.spec} holds ${schemas.snapshot ?? 'no snapshot this runner knows'}, not --snapshot ${requested}`,
    );
  // Which rules judged: ours of the snapshot, or the folder's published schemas.
  const judgedBy =
    options.spec !== undefined
      ? `the published schemas in ${options.spec}${schemas.snapshot ? ` (${snapshotLabel(schemas.snapshot)})` : ' (no snapshot this runner knows)'}`
      : snapshotLabel(requested);
  // A regular file, bounded (src/safe-fs.ts): a FIFO, /dev/zero or a link is one line, not a hang.
  const read = readRegularFile(file, { maxBytes: MAX_MESSAGE_FILE_BYTES });
  if (read.kind !== 'ok')
    throw new UsageError(`cannot read ${file}: ${read.kind === 'missing' ? 'no such file' : read.why}`);
  const bytes = read.bytes;
  const decoded = decodeUtf8(bytes);
  if (!decoded.ok) throw new UsageError(`${file} is not valid UTF-8: ${decoded.finding.message}`);
  const reports: MessageReport[] = [];
  if (file.endsWith('.jsonl')) {
    // A transcript: one message per line; a line that is not JSON is itself a wire finding.
    const lines = decoded.text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    lines.forEach((line, i) => reports.push(judge(`${file}:${i + 1}`, line, forced, schemas)));
  } else {
    const parsed = parseJsonStrict(decoded.text);
    if (!parsed.ok) throw new UsageError(`${file} is not valid JSON: ${parsed.findings[0]?.message ?? ''}`);
    reports.push(judge(file, decoded.text, forced, schemas));
  }
  const invalid = reports.filter((r) => !r.valid).length;
  const warned = reports.filter((r) => r.findings.some((f) => f.layer === 'profile')).length;
  if (flags.json) {
    io.out(
      terminalJson({ snapshot: schemas.snapshot ?? null, judgedBy, messages: reports, invalid, warnings: warned }, 2),
    );
  } else {
    io.out(terminalLine(`judged by ${judgedBy}`));
    for (const r of reports) {
      io.out(terminalLine(`${r.location}: ${r.valid ? 'valid' : 'INVALID'} (${r.kind})`));
      for (const f of r.findings) io.out(terminalLine(formatFinding(f)));
    }
    io.out(
      `validate: ${reports.length} message${reports.length === 1 ? '' : 's'}, ${invalid} invalid, ${warned} with profile warnings`,
    );
  }
  return invalid > 0 ? EXIT.finding : EXIT.ok;
}

/** The kinds of a snapshot (`--kinds [--snapshot ...]`, default the newest). */
function listKinds(io: Io, options: Record<string, string> = {}): number {
  for (const k of kindsOf(snapshotOption(options.snapshot))) io.out(`${k.kind.padEnd(36)} ${k.title}`);
  return EXIT.ok;
}

export const validateCommand = { run, listKinds };
