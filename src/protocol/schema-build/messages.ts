// JSON-RPC 2.0 envelopes and the AHP messages built on them.
import { INTERCEPTABLE_EVENTS, METHODS, PROTOCOL_VERSION } from '../catalogue.js';
import type { SnapshotRules } from '../snapshots.js';
import {
  any,
  anyObject,
  array,
  constant,
  document,
  forbid,
  int,
  nonEmpty,
  object,
  ref,
  str,
  type Schema,
} from './dsl.js';

const J = 'jsonrpc.schema.json#/$defs/';

/** The candidate value at the events whose return replaces a typed value (intercept-request.schema.json@1d98c19). */
const TYPED_CANDIDATES: Record<string, Schema> = {
  'model.request.before': ref('content.schema.json#/$defs/messages'),
  'context.compact.before': ref('content.schema.json#/$defs/textParts'),
  'user.elicitation.request': ref('mcp-elicitation.schema.json#/$defs/result'),
};

export function jsonRpcSchema(): Record<string, unknown> {
  const version = constant('2.0');
  const defs: Record<string, Schema> = {
    protocolVersion: constant(PROTOCOL_VERSION),
    id: { anyOf: [nonEmpty(), int()] },
    responseId: { anyOf: [ref('#/$defs/id'), { type: 'null' }] },
    // AHP always sends params, so they are required here although JSON-RPC allows omitting them.
    request: object(
      { jsonrpc: version, id: ref('#/$defs/id'), method: nonEmpty(), params: anyObject() },
      {
        required: ['jsonrpc', 'id', 'method', 'params'],
      },
    ),
    notification: object(
      { jsonrpc: version, method: nonEmpty(), params: anyObject() },
      {
        required: ['jsonrpc', 'method', 'params'],
        extra: { not: { required: ['id'] } },
      },
    ),
    success: object(
      { jsonrpc: version, id: ref('#/$defs/responseId'), result: anyObject() },
      {
        required: ['jsonrpc', 'id', 'result'],
        extra: { not: { required: ['error'] } },
      },
    ),
    error: object(
      {
        jsonrpc: version,
        id: ref('#/$defs/responseId'),
        error: object({ code: int(), message: str(), data: any() }, { required: ['code', 'message'] }),
      },
      { required: ['jsonrpc', 'id', 'error'], extra: { not: { required: ['result'] } } },
    ),
  };
  return document('jsonrpc.schema.json', 'JSON-RPC 2.0 message as AHP uses it (no batches)', {
    oneOf: ['request', 'notification', 'success', 'error'].map((k) => ref(`#/$defs/${k}`)),
    $defs: defs,
  });
}

export function ahpMessagesSchema(rules: SnapshotRules): Record<string, unknown> {
  // Injections in the chain state are inject effects where the snapshot types them
  // (intercept-request.schema.json@1d98c19 $defs/*State.injections).
  const chainState = (candidateValue: Schema): Schema =>
    object(
      {
        permission: { enum: ['none', 'allow', 'ask', 'deny'] },
        candidate: {
          anyOf: [
            { type: 'null' },
            object({ value: candidateValue, provenance: anyObject() }, { required: ['value'] }),
          ],
        },
        flow: { enum: ['none', 'stop', 'continue'] },
        instructions: array(nonEmpty()),
        injections: array(rules.interceptStateTyped ? ref('effect.schema.json#/$defs/inject') : any()),
      },
      { required: ['permission', 'candidate'] },
    );
  const pv = ref(`${J}protocolVersion`);
  const ext = ref('extensions.schema.json');
  const E = 'event.schema.json';
  // What a result of one method must not carry from another's (discovery, configuration).
  const foreign = (...members: string[]): Record<string, unknown> => forbid(...members) as Record<string, unknown>;
  const result = (effects: Schema, extra: Record<string, unknown> = {}): Schema => ({
    properties: {
      result: object(
        { protocolVersion: pv, effects, extensions: ext },
        { required: rules.effectsOptional ? ['protocolVersion'] : ['protocolVersion', 'effects'], extra },
      ),
    },
  });
  // 2b5da580 keeps a manifest out of the general result only; 1d98c19 keeps a manifest and a
  // configuration out of every intercept result (intercept-*-response.schema.json@1d98c19).
  const interceptForeign = rules.interceptResultsExclusive ? foreign('manifest', 'configuration') : undefined;
  const interceptParams = object(
    {
      protocolVersion: pv,
      // Any event, and one of those that may be intercepted.
      event: { $ref: E, oneOf: INTERCEPTABLE_EVENTS.map((e) => ref(`${E}#/$defs/${e.type}`)) },
      capabilities: ref('capabilities.schema.json'),
      extensions: ext,
      // Chain state is informative and open; it is never an identity claim.
      state: chainState(any()),
    },
    {
      required: ['protocolVersion', 'event', 'capabilities'],
      extra: {
        allOf: [
          // The advertisement is narrowed to what this event allows.
          ...INTERCEPTABLE_EVENTS.map((e) => ({
            if: { properties: { event: { properties: { type: constant(e.type) } } } },
            then: { properties: { capabilities: ref(`capabilities.schema.json#/$defs/${e.type}`) } },
          })),
          // The candidate a return would replace has that boundary's type.
          ...(rules.interceptStateTyped
            ? Object.entries(TYPED_CANDIDATES).map(([type, value]) => ({
                if: {
                  required: ['event'],
                  properties: { event: { required: ['type'], properties: { type: constant(type) } } },
                },
                then: { properties: { state: chainState(value) } },
              }))
            : []),
        ],
      },
    },
  );
  const defs: Record<string, Schema> = {
    interceptRequest: {
      allOf: [
        ref(`${J}request`),
        {
          required: ['method', 'params'],
          properties: { method: constant(METHODS.intercept), params: interceptParams },
        },
      ],
    },
    interceptResponse: {
      allOf: [
        ref(`${J}success`),
        {
          required: ['result'],
          ...(result(array(ref('effect.schema.json')), interceptForeign ?? foreign('manifest')) as object),
        },
      ],
    },
    noEffectResponse: { allOf: [ref(`${J}success`), result(array(any(), { maxItems: 0 }), interceptForeign)] },
    denyResponse: {
      allOf: [ref(`${J}success`), result(array(ref(denyItem(rules)), { minItems: 1, maxItems: 1 }), interceptForeign)],
    },
    observeNotification: {
      allOf: [
        ref(`${J}notification`),
        {
          properties: {
            method: constant(METHODS.observe),
            params: object({ protocolVersion: pv, event: ref(E) }, { required: ['protocolVersion', 'event'] }),
          },
        },
      ],
    },
    capabilitiesRequest: {
      allOf: [
        ref(`${J}request`),
        {
          required: ['method', 'params'],
          properties: {
            method: constant(METHODS.capabilities),
            // Discovery takes no session or event.
            params: object({ protocolVersion: pv }, { required: ['protocolVersion'], closed: true }),
          },
        },
      ],
    },
    capabilitiesResponse: {
      allOf: [
        ref(`${J}success`),
        {
          required: ['result'],
          properties: {
            // Discovery and interception results never mix.
            result: object(
              { protocolVersion: pv, manifest: ref('manifest.schema.json') },
              {
                required: ['protocolVersion', 'manifest'],
                // capabilities-response.schema.json@1d98c19 also keeps a configuration out.
                extra: rules.configuration ? foreign('configuration', 'effects') : { not: { required: ['effects'] } },
              },
            ),
          },
        },
      ],
    },
    errorResponse: ref(`${J}error`),
  };
  if (rules.configuration) {
    // configuration-request/-response.schema.json@1d98c19: the harness asks the backend for
    // its subscriptions; the answer is a configuration, never a manifest or effects.
    defs.configurationRequest = {
      allOf: [
        ref(`${J}request`),
        {
          required: ['method', 'params'],
          properties: {
            method: constant(METHODS.configuration),
            params: object({ protocolVersion: pv }, { required: ['protocolVersion'], closed: true }),
          },
        },
      ],
    };
    defs.configurationResponse = {
      allOf: [
        ref(`${J}success`),
        {
          required: ['result'],
          properties: {
            result: object(
              { protocolVersion: pv, configuration: ref('registration.schema.json#/$defs/configuration') },
              { required: ['protocolVersion', 'configuration'], extra: foreign('manifest', 'effects') },
            ),
          },
        },
      ],
    };
  }
  return document('ahp-message.schema.json', 'AHP draft wire message (any request, response or notification)', {
    oneOf: [
      'interceptRequest',
      'interceptResponse',
      'errorResponse',
      'observeNotification',
      'capabilitiesRequest',
      'capabilitiesResponse',
      ...(rules.configuration ? ['configurationRequest', 'configurationResponse'] : []),
    ].map((k) => ref(`#/$defs/${k}`)),
    $defs: defs,
  });
}

/**
 * The effect a deny result holds: 2b5da580 names the deny effect
 * (intercept-deny-response.schema.json@2b5da580 refers to deny-effect.schema.json); 1d98c19
 * refers to effect.schema.json, so any single valid effect passes that schema.
 */
function denyItem(rules: SnapshotRules): string {
  return rules.denyResultAnyEffect ? 'effect.schema.json' : 'effect.schema.json#/$defs/deny';
}
