// The portable registration document a harness validates before use.
import { EVENT_TYPES, EVENT_WILDCARD_PATTERN, INTERCEPTABLE_EVENTS, REVERSE_DNS_PATTERN } from '../catalogue.js';
import {
  array,
  bool,
  constant,
  document,
  forbid,
  int,
  nonEmpty,
  object,
  oneOfValues,
  pattern,
  ref,
  str,
  whenMember,
  type Schema,
} from './dsl.js';

const ENV_NAME = '^[A-Za-z_][A-Za-z0-9_]*$';

export function registrationSchema(): Record<string, unknown> {
  // Exact event names, a whole family (`tool.*`) or everything (`*`).
  const events = (names: readonly string[]): Schema =>
    array({ anyOf: [oneOfValues(names), pattern(EVENT_WILDCARD_PATTERN)] }, { minItems: 1, unique: true });
  const managedNotDisableable = whenMember('scope', ['managed'], {
    required: ['disableable'],
    properties: { disableable: constant(false) },
  });
  const common = {
    includeNative: bool(),
    content: ref('content.schema.json#/$defs/selection'),
    upload: ref('content.schema.json#/$defs/upload'),
    // Hints only; they never widen or replace the event selection.
    filters: object({ toolKinds: array(nonEmpty(), { unique: true }), paths: array(nonEmpty(), { unique: true }) }),
    scope: oneOfValues(['managed', 'project', 'user']),
    disableable: bool(),
  };
  const defs: Record<string, Schema> = {
    reverseDns: pattern(REVERSE_DNS_PATTERN),
    stdioTransport: object(
      {
        type: constant('stdio'),
        command: nonEmpty(),
        args: array(str()),
        lifecycle: oneOfValues(['persistent', 'per_event']),
        cwd: str(),
      },
      { required: ['type', 'command', 'lifecycle'] },
    ),
    httpTransport: object(
      { type: constant('http'), url: str({ format: 'uri', pattern: '^https?://' }) },
      { required: ['type', 'url'] },
    ),
    // Credentials are referenced (environment variable or secret reference), never literal.
    authentication: {
      anyOf: [
        object(
          { type: constant('bearer'), tokenEnv: pattern(ENV_NAME), tokenRef: nonEmpty() },
          {
            required: ['type'],
            extra: {
              oneOf: [
                { required: ['tokenEnv'], not: { required: ['tokenRef'] } },
                { required: ['tokenRef'], not: { required: ['tokenEnv'] } },
              ],
            },
          },
        ),
        object(
          {
            type: constant('oauth'),
            resource: nonEmpty(),
            issuer: str({ format: 'uri', pattern: '^https://' }),
            clientId: nonEmpty(),
            clientSecretRef: nonEmpty(),
            flow: oneOfValues(['authorization_code_pkce', 'client_credentials']),
            scopes: array(nonEmpty(), { unique: true }),
          },
          { required: ['type', 'resource', 'issuer', 'clientId', 'flow'] },
        ),
      ],
    },
    interceptSubscription: object(
      {
        events: events(INTERCEPTABLE_EVENTS.map((e) => e.type)),
        mode: constant('intercept'),
        timeoutMs: int(1),
        failurePolicy: oneOfValues(['fail-open', 'fail-closed']),
        ...common,
      },
      {
        required: ['events', 'mode', 'timeoutMs', 'failurePolicy', 'content'],
        extra: { allOf: [managedNotDisableable] },
      },
    ),
    observeSubscription: object(
      { events: events(EVENT_TYPES), mode: constant('observe'), ...common },
      // Observers never block, so deadlines and failure policies do not apply.
      {
        required: ['events', 'mode', 'content'],
        extra: { ...(forbid('timeoutMs', 'failurePolicy') as object), allOf: [managedNotDisableable] },
      },
    ),
    backend: object(
      {
        id: ref('#/$defs/reverseDns'),
        transport: { oneOf: [ref('#/$defs/stdioTransport'), ref('#/$defs/httpTransport')] },
        authentication: ref('#/$defs/authentication'),
        subscriptions: array(
          { oneOf: [ref('#/$defs/interceptSubscription'), ref('#/$defs/observeSubscription')] },
          { minItems: 1 },
        ),
      },
      {
        required: ['id', 'transport', 'subscriptions'],
        extra: {
          allOf: [
            // Authentication objects belong to HTTP endpoints only.
            {
              if: { properties: { transport: { properties: { type: constant('stdio') } } } },
              then: forbid('authentication'),
            },
            {
              if: { required: ['authentication'] },
              then: { properties: { transport: { properties: { type: constant('http') } } } },
            },
          ],
          // Content receivers were replaced by per-subscription upload bindings.
          not: { required: ['contentReceiver'] },
        },
      },
    ),
  };
  return document('registration.schema.json', 'AHP draft registration document', {
    type: 'object',
    required: ['protocolVersion', 'hooks'],
    properties: {
      protocolVersion: ref('jsonrpc.schema.json#/$defs/protocolVersion'),
      hooks: array(ref('#/$defs/backend'), { minItems: 1 }),
    },
    $defs: defs,
  });
}
