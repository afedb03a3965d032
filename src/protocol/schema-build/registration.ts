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
import type { SnapshotRules } from '../snapshots.js';

const ENV_NAME = '^[A-Za-z_][A-Za-z0-9_]*$';

export function registrationSchema(rules: SnapshotRules): Record<string, unknown> {
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
        // Literal values, never interpolated (registration.schema.json@1d98c19 stdioTransport.env).
        ...(rules.transportHeadersAndEnv ? { env: { type: 'object', additionalProperties: str() } } : {}),
      },
      { required: ['type', 'command', 'lifecycle'] },
    ),
    httpTransport: object(
      {
        type: constant('http'),
        url: str({ format: 'uri', pattern: '^https?://' }),
        // Header names are RFC 9110 tokens; a value is literal (no CR, LF or NUL) or names its
        // source (registration.schema.json@1d98c19 httpTransport.headers).
        ...(rules.transportHeadersAndEnv
          ? {
              headers: {
                type: 'object',
                propertyNames: pattern("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"),
                additionalProperties: ref('#/$defs/httpHeaderValue'),
              },
            }
          : {}),
      },
      { required: ['type', 'url'] },
    ),
    ...(rules.transportHeadersAndEnv
      ? {
          httpHeaderValue: { anyOf: [str({ not: { pattern: '[\\r\\n\\u0000]' } }), ref('#/$defs/httpHeaderSource')] },
          // Exactly one of the two sources, as bearer credentials.
          httpHeaderSource: object(
            { valueEnv: pattern(ENV_NAME), valueRef: nonEmpty() },
            { extra: { oneOf: [{ required: ['valueEnv'] }, { required: ['valueRef'] }] } },
          ),
        }
      : {}),
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
        subscriptions: ref('#/$defs/subscriptions'),
      },
      {
        // Without subscriptions the harness asks the backend (hooks/configuration); registration.schema.json@1d98c19.
        required: rules.subscriptionsOptional ? ['id', 'transport'] : ['id', 'transport', 'subscriptions'],
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
  defs.subscriptions = array(
    { oneOf: [ref('#/$defs/interceptSubscription'), ref('#/$defs/observeSubscription')] },
    { minItems: 1 },
  );
  if (rules.configuration) {
    // The hooks/configuration answer (configuration.schema.json@1d98c19): subscriptions only,
    // never connection or authentication settings; open like the upstream object.
    defs.configuration = object({ subscriptions: ref('#/$defs/subscriptions') }, { required: ['subscriptions'] });
  }
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
