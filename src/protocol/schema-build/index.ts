// All wire schemas of a snapshot, built in memory from the catalogue. The validator compiles
// these objects directly; `npm run gen:schemas` writes the same objects to
// schemas/<snapshot>/ for editors and other tools (a test keeps the two identical).
// One builder per document for every snapshot: where snapshots differ, the builder reads
// the snapshot's `rules` (src/protocol/snapshots.ts), never a fork of its own.
import { REVERSE_DNS_PATTERN } from '../catalogue.js';
import { OLDEST_SNAPSHOT, snapshotOf, type SnapshotId } from '../snapshots.js';
import { contentSchema } from './content.js';
import { capabilitiesSchema, effectSchema, manifestSchema } from './control.js';
import { schemaBase } from './dsl.js';
import { eventSchema, extensionsSchema } from './events.js';
import { mcpElicitationSchema } from './mcp.js';
import { ahpMessagesSchema, jsonRpcSchema } from './messages.js';
import { registrationSchema } from './registration.js';

export { schemaBase } from './dsl.js';

const built = new Map<SnapshotId, Record<string, Record<string, unknown>>>();

/** File name → schema document of a snapshot (default the oldest). Built once per process and snapshot. */
export function wireSchemas(snapshot: SnapshotId = OLDEST_SNAPSHOT): Record<string, Record<string, unknown>> {
  const cached = built.get(snapshot);
  if (cached) return cached;
  const { rules } = snapshotOf(snapshot);
  const docs = Object.fromEntries(
    [
      ahpMessagesSchema(rules),
      jsonRpcSchema(),
      eventSchema(rules),
      effectSchema(rules),
      capabilitiesSchema(),
      manifestSchema(),
      contentSchema(),
      registrationSchema(rules),
      extensionsSchema(REVERSE_DNS_PATTERN),
      mcpElicitationSchema(),
    ].map((doc) => {
      const file = String(doc.$id);
      return [file, { ...doc, $id: schemaBase(snapshot) + file }];
    }),
  );
  built.set(snapshot, docs);
  return docs;
}
