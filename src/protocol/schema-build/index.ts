// All wire schemas, built in memory from the catalogue. The validator compiles these
// objects directly; `npm run gen:schemas` writes the same objects to schemas/draft/
// for editors and other tools (a test keeps the two identical).
import { REVERSE_DNS_PATTERN } from '../catalogue.js';
import { contentSchema } from './content.js';
import { capabilitiesSchema, effectSchema, manifestSchema } from './control.js';
import { eventSchema, extensionsSchema } from './events.js';
import { mcpElicitationSchema } from './mcp.js';
import { ahpMessagesSchema, jsonRpcSchema } from './messages.js';
import { registrationSchema } from './registration.js';

export { SCHEMA_BASE } from './dsl.js';

let built: Record<string, Record<string, unknown>> | undefined;

/** File name → schema document. Built once per process. */
export function wireSchemas(): Record<string, Record<string, unknown>> {
  built ??= Object.fromEntries(
    [
      ahpMessagesSchema(),
      jsonRpcSchema(),
      eventSchema(),
      effectSchema(),
      capabilitiesSchema(),
      manifestSchema(),
      contentSchema(),
      registrationSchema(),
      extensionsSchema(REVERSE_DNS_PATTERN),
      mcpElicitationSchema(),
    ].map((doc) => [String(doc.$id).split('/').pop() as string, doc]),
  );
  return built;
}
