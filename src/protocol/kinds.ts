// The kinds of value the validator judges, and where each kind lives in our schemas
// and in an upstream snapshot's published schemas (`--spec`). One table, so that the
// fixture cross-check can map a manifest's schema path back to our kind. A kind may
// exist in some snapshots only (`snapshots`); its locations are the same in every
// snapshot that has it.
import { EVENTS, INTERCEPTABLE_EVENTS } from './catalogue.js';
import { SNAPSHOTS, type SnapshotId, type SnapshotRules } from './snapshots.js';

export type UpstreamLocation = string | { readonly inline: Record<string, unknown> };

export interface KindEntry {
  readonly kind: string;
  /** `file#pointer` in our schemas/<snapshot>. */
  readonly ours: string;
  /** `file#pointer` in an upstream snapshot's schema/draft, or an inline schema. */
  readonly upstream: UpstreamLocation;
  /** The snapshots that have this kind; absent = every snapshot. */
  readonly snapshots?: readonly SnapshotId[];
  /** Requirement ids a wire finding against this kind falls under. */
  readonly requirements: readonly string[];
  readonly title: string;
}

const entries: KindEntry[] = [
  {
    kind: 'ahp',
    ours: 'ahp-message.schema.json',
    upstream: 'schema.json',
    requirements: ['AHP-RPC-001', 'AHP-RPC-002'],
    title: 'any AHP wire message',
  },
  {
    kind: 'jsonrpc',
    ours: 'jsonrpc.schema.json',
    upstream: 'json-rpc-message.schema.json',
    requirements: ['AHP-RPC-001'],
    title: 'JSON-RPC 2.0 message',
  },
  {
    kind: 'intercept-request',
    ours: 'ahp-message.schema.json#/$defs/interceptRequest',
    upstream: 'intercept-request.schema.json',
    requirements: ['AHP-RPC-002', 'AHP-VER-001', 'AHP-CAP-002'],
    title: 'hooks/intercept request',
  },
  {
    kind: 'intercept-response',
    ours: 'ahp-message.schema.json#/$defs/interceptResponse',
    upstream: 'intercept-response.schema.json',
    requirements: ['AHP-DEC-001', 'AHP-VER-001'],
    title: 'hooks/intercept result',
  },
  {
    kind: 'intercept-no-effect-response',
    ours: 'ahp-message.schema.json#/$defs/noEffectResponse',
    upstream: 'intercept-no-effect-response.schema.json',
    requirements: ['AHP-DEC-001', 'AHP-DEC-003'],
    title: 'no-effect intercept result',
  },
  {
    kind: 'intercept-deny-response',
    ours: 'ahp-message.schema.json#/$defs/denyResponse',
    upstream: 'intercept-deny-response.schema.json',
    requirements: ['AHP-DEC-001', 'AHP-DEC-002'],
    title: 'deny intercept result',
  },
  {
    kind: 'observe-notification',
    ours: 'ahp-message.schema.json#/$defs/observeNotification',
    upstream: 'observe-notification.schema.json',
    requirements: ['AHP-RPC-002', 'AHP-VER-001'],
    title: 'hooks/observe notification',
  },
  {
    kind: 'capabilities-request',
    ours: 'ahp-message.schema.json#/$defs/capabilitiesRequest',
    upstream: 'capabilities-request.schema.json',
    requirements: ['AHP-VER-001'],
    title: 'hooks/capabilities request',
  },
  {
    kind: 'capabilities-response',
    ours: 'ahp-message.schema.json#/$defs/capabilitiesResponse',
    upstream: 'capabilities-response.schema.json',
    requirements: ['AHP-VER-001'],
    title: 'hooks/capabilities result',
  },
  {
    kind: 'error-response',
    ours: 'ahp-message.schema.json#/$defs/errorResponse',
    upstream: 'common.schema.json#/$defs/errorResponse',
    requirements: ['AHP-RPC-001'],
    title: 'JSON-RPC error response',
  },
  {
    kind: 'registration',
    ours: 'registration.schema.json',
    upstream: 'registration.schema.json',
    requirements: ['AHP-REG-001'],
    title: 'registration document',
  },
  {
    kind: 'event',
    ours: 'event.schema.json',
    upstream: 'event.schema.json',
    requirements: ['AHP-CORE-003'],
    title: 'event (any type)',
  },
  {
    kind: 'effect',
    ours: 'effect.schema.json',
    upstream: 'effect.schema.json',
    requirements: ['AHP-DEC-001'],
    title: 'effect',
  },
  {
    kind: 'effects',
    ours: 'effect.schema.json#/$defs/effects',
    upstream: { inline: { type: 'array', items: { $ref: 'effect.schema.json' } } },
    requirements: ['AHP-DEC-001'],
    title: 'ordered effect list',
  },
  {
    kind: 'capabilities',
    ours: 'capabilities.schema.json',
    upstream: 'capabilities.schema.json',
    requirements: ['AHP-CAP-001', 'AHP-CAP-002'],
    title: 'capability advertisement',
  },
  {
    kind: 'manifest',
    ours: 'manifest.schema.json',
    upstream: 'capabilities-response.schema.json#/allOf/1/properties/result/properties/manifest',
    requirements: [],
    title: 'harness manifest',
  },
  {
    kind: 'extensions',
    ours: 'extensions.schema.json',
    upstream: 'extensions.schema.json',
    requirements: ['AHP-EXT-001'],
    title: 'extensions object',
  },
  {
    kind: 'content-part',
    ours: 'content.schema.json',
    upstream: 'content-item.schema.json',
    requirements: ['AHP-CONTENT-001'],
    title: 'content part',
  },
  {
    kind: 'text-part',
    ours: 'content.schema.json#/$defs/textPart',
    upstream: 'content-item.schema.json#/$defs/textPart',
    requirements: ['AHP-CONTENT-001'],
    title: 'text part',
  },
  {
    kind: 'text-parts',
    ours: 'content.schema.json#/$defs/textParts',
    upstream: 'content-item.schema.json#/$defs/textParts',
    requirements: ['AHP-CONTENT-001'],
    title: 'text-part list',
  },
  {
    kind: 'content-message',
    ours: 'content.schema.json#/$defs/message',
    upstream: 'content-item.schema.json#/$defs/message',
    requirements: ['AHP-CONTENT-001'],
    title: 'canonical message',
  },
  {
    kind: 'content-messages',
    ours: 'content.schema.json#/$defs/messages',
    upstream: 'content-item.schema.json#/$defs/messages',
    requirements: ['AHP-CONTENT-001'],
    title: 'canonical message list',
  },
  {
    kind: 'content-reference',
    ours: 'content.schema.json#/$defs/contentReference',
    upstream: 'content-reference.schema.json',
    requirements: ['AHP-CONTENT-002'],
    title: 'body reference',
  },
  {
    kind: 'upload-receipt',
    ours: 'content.schema.json#/$defs/uploadReceipt',
    upstream: 'content-upload-receipt.schema.json',
    requirements: ['AHP-CONTENT-002'],
    title: 'upload receipt',
  },
  {
    kind: 'content-selection',
    ours: 'content.schema.json#/$defs/selection',
    upstream: 'content-selection.schema.json',
    requirements: [],
    title: 'content selection',
  },
  {
    kind: 'content-upload',
    ours: 'content.schema.json#/$defs/upload',
    upstream: 'content-upload.schema.json',
    requirements: ['AHP-CONTENT-002'],
    title: 'upload binding',
  },
  {
    kind: 'mcp-elicitation-request',
    ours: 'mcp-elicitation.schema.json#/$defs/request',
    upstream: 'mcp-elicitation.schema.json#/$defs/request',
    requirements: ['AHP-CONTENT-001'],
    title: 'MCP elicitation request params',
  },
  {
    kind: 'mcp-elicitation-result',
    ours: 'mcp-elicitation.schema.json#/$defs/result',
    upstream: 'mcp-elicitation.schema.json#/$defs/result',
    requirements: ['AHP-CONTENT-001'],
    title: 'MCP elicitation result',
  },
  {
    kind: 'mcp-elicitation-content',
    ours: 'mcp-elicitation.schema.json#/$defs/content',
    upstream: 'mcp-elicitation.schema.json#/$defs/ElicitResult/properties/content',
    requirements: ['AHP-EDIT-001'],
    title: 'MCP elicitation answer content',
  },
];

/** The snapshots whose rules say yes. */
const where = (rule: (r: SnapshotRules) => boolean): SnapshotId[] =>
  SNAPSHOTS.filter((s) => rule(s.rules)).map((s) => s.id);

// hooks/configuration: configuration-request/-response.schema.json and configuration.schema.json@1d98c19.
entries.push(
  {
    kind: 'configuration-request',
    ours: 'ahp-message.schema.json#/$defs/configurationRequest',
    upstream: 'configuration-request.schema.json',
    snapshots: where((r) => r.configuration),
    // No requirement text of 1d98c19 is published; the kind names none rather than borrow one.
    requirements: [],
    title: 'hooks/configuration request',
  },
  {
    kind: 'configuration-response',
    ours: 'ahp-message.schema.json#/$defs/configurationResponse',
    upstream: 'configuration-response.schema.json',
    snapshots: where((r) => r.configuration),
    requirements: [],
    title: 'hooks/configuration result',
  },
  {
    kind: 'configuration',
    ours: 'registration.schema.json#/$defs/configuration',
    upstream: 'configuration.schema.json',
    snapshots: where((r) => r.configuration),
    requirements: [],
    title: 'subscription configuration (hooks/configuration answer)',
  },
);

// Upstream publishes four events as files of their own and the rest in the catalogue.
const OWN_FILE: Record<string, string> = {
  'tool.before': 'tool-before.schema.json',
  'tool.after': 'tool-after.schema.json',
  'session.start': 'session-start.schema.json',
  'session.end': 'session-end.schema.json',
};
for (const e of EVENTS) {
  entries.push({
    kind: `event:${e.type}`,
    ours: `event.schema.json#/$defs/${e.type}`,
    upstream: OWN_FILE[e.type] ?? `catalogue-event.schema.json#/$defs/${e.type}`,
    requirements: e.type === 'tool.before' ? ['AHP-TB-001'] : ['AHP-CORE-003'],
    title: `${e.type} event`,
  });
}
for (const e of INTERCEPTABLE_EVENTS) {
  entries.push({
    kind: `capabilities:${e.type}`,
    ours: `capabilities.schema.json#/$defs/${e.type}`,
    upstream: `capabilities.schema.json#/$defs/${e.type}`,
    requirements: ['AHP-CAP-001'],
    title: `capability advertisement at ${e.type}`,
  });
}

export const KINDS: readonly KindEntry[] = entries;
const byKind = new Map(entries.map((e) => [e.kind, e]));

export function kindEntry(kind: string): KindEntry | undefined {
  return byKind.get(kind);
}

/** Whether a snapshot has this kind (a known kind; unknown kinds are never part of one). */
export function kindInSnapshot(kind: string, snapshot: SnapshotId): boolean {
  const e = byKind.get(kind);
  return e !== undefined && (e.snapshots === undefined || e.snapshots.includes(snapshot));
}

/** The kinds a snapshot has, in table order (`validate --kinds`). */
export function kindsOf(snapshot: SnapshotId): KindEntry[] {
  return entries.filter((e) => e.snapshots === undefined || e.snapshots.includes(snapshot));
}

/** The one-line reason a kind cannot be judged under a snapshot. */
export function kindNotInSnapshot(kind: string, snapshot: SnapshotId): string {
  const e = byKind.get(kind);
  const has = e?.snapshots?.join(', ');
  return `kind "${kind}" is not part of ${snapshot}${has ? ` (it exists in ${has})` : ''}`;
}

/**
 * The kind whose upstream location is exactly this snapshot-relative schema file (e.g.
 * `tool-after.schema.json`); with a snapshot, only the kinds that snapshot has.
 */
export function kindForUpstreamFile(file: string, snapshot?: SnapshotId): string | undefined {
  return entries.find((e) => e.upstream === file && (snapshot === undefined || kindInSnapshot(e.kind, snapshot)))?.kind;
}
