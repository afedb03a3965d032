// Effects (what a backend answers), capability advertisements (what a harness
// allows per event) and the harness manifest (`hooks/capabilities`).
import {
  AUTH_MECHANISMS,
  EFFECT_TYPES,
  EVENT_TYPES,
  FLOW_OPERATIONS,
  INTERCEPTABLE_EVENTS,
  MODIFY_OPERATIONS,
  MODIFY_TARGETS,
  REVERSE_DNS_PATTERN,
  TARGET_FAMILY,
  type ModifyTarget,
  type TargetFamily,
} from '../catalogue.js';
import {
  any,
  anyObject,
  array,
  bool,
  constant,
  document,
  int,
  nonEmpty,
  object,
  oneOfValues,
  pattern,
  ref,
  str,
  type Schema,
} from './dsl.js';
import type { SnapshotRules } from '../snapshots.js';

const C = 'content.schema.json#/$defs/';

const VALUE_BY_FAMILY: Record<TargetFamily, Schema> = {
  messages: ref(`${C}messages`),
  'text-parts': ref(`${C}textParts`),
  object: anyObject(),
  // Canonical messages everywhere except the elicitation answer object; the edit
  // engine resolves which one applies at the boundary.
  'messages-or-object': { oneOf: [ref(`${C}messages`), anyObject()] },
};

function targetsOf(family: TargetFamily): ModifyTarget[] {
  return MODIFY_TARGETS.filter((t) => TARGET_FAMILY[t] === family);
}

/**
 * Modify values by target: by family, and where the snapshot types them further
 * (effect.schema.json@1d98c19 ModifyFormEffect, ModifyWorkspaceEffect) an elicitation answer
 * object is MCP form answers and a workspace value is a workspace state.
 */
function modifyValues(rules: SnapshotRules): [ModifyTarget[], Schema][] {
  const byFamily = (Object.keys(VALUE_BY_FAMILY) as TargetFamily[]).map((family): [ModifyTarget[], Schema] => [
    targetsOf(family),
    VALUE_BY_FAMILY[family],
  ]);
  if (!rules.modifyValuesTyped) return byFamily;
  const typed: Partial<Record<ModifyTarget, Schema>> = {
    content: { oneOf: [ref(`${C}messages`), ref('mcp-elicitation.schema.json#/$defs/content')] },
    workspace: ref('event.schema.json#/$defs/workspaceState'),
  };
  return byFamily.flatMap(([targets, schema]) => {
    const rest = targets.filter((t) => typed[t] === undefined);
    return [
      ...(rest.length ? [[rest, schema] as [ModifyTarget[], Schema]] : []),
      ...targets.filter((t) => typed[t] !== undefined).map((t): [ModifyTarget[], Schema] => [[t], typed[t]!]),
    ];
  });
}

export function effectSchema(rules: SnapshotRules): Record<string, unknown> {
  const closed = (properties: Record<string, Schema>, required: string[]): Schema =>
    object(properties, { required, closed: true });
  const defs: Record<string, Schema> = {
    deny: closed(
      {
        type: constant('deny'),
        reason: nonEmpty(),
        code: pattern(REVERSE_DNS_PATTERN),
        extensions: ref('extensions.schema.json'),
      },
      ['type', 'reason'],
    ),
    allow: closed({ type: constant('allow') }, ['type']),
    ask: closed({ type: constant('ask') }, ['type']),
    modify: object(
      {
        type: constant('modify'),
        target: oneOfValues(MODIFY_TARGETS),
        operation: oneOfValues(MODIFY_OPERATIONS),
        value: any(),
      },
      {
        required: ['type', 'target', 'operation', 'value'],
        closed: true,
        // The value is typed by its target family.
        extra: {
          allOf: modifyValues(rules).map(([targets, value]) => ({
            if: { properties: { target: oneOfValues(targets) } },
            then: { properties: { value } },
          })),
        },
      },
    ),
    message: closed({ type: constant('message'), text: str() }, ['type', 'text']),
    return: closed({ type: constant('return'), value: any() }, ['type', 'value']),
    stop: closed({ type: constant('flow'), operation: constant('stop'), reason: nonEmpty() }, [
      'type',
      'operation',
      'reason',
    ]),
    continue: closed({ type: constant('flow'), operation: constant('continue'), instruction: nonEmpty() }, [
      'type',
      'operation',
    ]),
    inject: closed(
      {
        type: constant('inject'),
        target: constant('context'),
        operation: constant('append'),
        deliverAt: oneOfValues(['now', 'next_turn']),
        value: ref(`${C}messages`),
      },
      ['type', 'target', 'operation', 'deliverAt', 'value'],
    ),
  };
  return document('effect.schema.json', 'AHP draft effect (closed variants; one invalid effect rejects the response)', {
    oneOf: Object.keys(defs).map((k) => ref(`#/$defs/${k}`)),
    $defs: {
      ...defs,
      effects: array(ref('#')),
    },
  });
}

export function capabilitiesSchema(): Record<string, unknown> {
  const operations = object(
    { replace: bool(), merge: bool() },
    {
      required: ['replace', 'merge'],
      // An advertised target grants at least one operation.
      extra: { anyOf: MODIFY_OPERATIONS.map((op) => ({ required: [op], properties: { [op]: constant(true) } })) },
    },
  );
  const contains = (name: string) => ({ properties: { effects: { contains: constant(name) } } });
  // Each option block and its effect name imply each other.
  const tied = ['flow', 'inject', 'modify'].flatMap((name) => [
    { if: { required: ['effects'], ...contains(name) }, then: { required: [name] } },
    { if: { required: [name] }, then: contains(name) },
  ]);
  const continueNeedsCounts: Schema = {
    if: { required: ['operations'], properties: { operations: { contains: constant('continue') } } },
    then: { required: ['remainingContinuations', 'continuationCount'] },
  };
  const defs: Record<string, Schema> = {};
  for (const spec of INTERCEPTABLE_EVENTS) {
    const narrow: Record<string, Schema> = { effects: array(oneOfValues(spec.effects)) };
    if (spec.modifyTargets.length) narrow.modify = { type: 'object', propertyNames: oneOfValues(spec.modifyTargets) };
    if (spec.flowOperations.length) {
      narrow.flow = { type: 'object', properties: { operations: array(oneOfValues(spec.flowOperations)) } };
    }
    defs[spec.type] = { allOf: [ref('#'), { properties: narrow }] };
  }
  return document(
    'capabilities.schema.json',
    'AHP draft capability advertisement (per request or per manifest event)',
    {
      type: 'object',
      required: ['effects'],
      properties: {
        // Core effect names, or reverse-DNS extension effects advertised by exact name.
        effects: array({ anyOf: [oneOfValues(EFFECT_TYPES), pattern(REVERSE_DNS_PATTERN)] }, { unique: true }),
        modify: {
          type: 'object',
          properties: Object.fromEntries(MODIFY_TARGETS.map((t) => [t, operations])),
          minProperties: 1,
        },
        flow: object(
          {
            operations: array(oneOfValues(FLOW_OPERATIONS), { minItems: 1, unique: true }),
            remainingContinuations: int(0),
            continuationCount: int(0),
            maxContinuations: int(0),
          },
          { required: ['operations'], extra: { allOf: [continueNeedsCounts] } },
        ),
        inject: object(
          {
            context: object(
              {
                append: constant(true),
                deliverAt: array(oneOfValues(['now', 'next_turn']), { minItems: 1, unique: true }),
              },
              { required: ['append', 'deliverAt'] },
            ),
          },
          { required: ['context'] },
        ),
        // Form and URL elicitation are independent opt-ins.
        elicitation: object({ form: anyObject(), url: anyObject() }),
      },
      allOf: tied,
      $defs: defs,
    },
  );
}

export function manifestSchema(): Record<string, unknown> {
  const interceptable = INTERCEPTABLE_EVENTS.map((e) => e.type);
  const hasIntercept = { contains: constant('intercept') };
  const entry = object(
    {
      event: oneOfValues(EVENT_TYPES),
      modes: array(oneOfValues(['observe', 'intercept']), { minItems: 1, unique: true }),
      capabilities: ref('capabilities.schema.json'),
    },
    {
      required: ['event', 'modes'],
      extra: {
        allOf: [
          // Observation-only entries claim no effects; intercept entries say what they allow.
          {
            if: { properties: { modes: { not: hasIntercept } } },
            then: { properties: { capabilities: { properties: { effects: { maxItems: 0 } } } } },
          },
          { if: { properties: { modes: hasIntercept } }, then: { required: ['capabilities'] } },
          {
            if: { properties: { event: { not: oneOfValues(interceptable) } } },
            then: { properties: { modes: { not: hasIntercept } } },
          },
          ...INTERCEPTABLE_EVENTS.map((e) => ({
            if: { properties: { event: constant(e.type) } },
            then: { properties: { capabilities: ref(`capabilities.schema.json#/$defs/${e.type}`) } },
          })),
        ],
      },
    },
  );
  const names = (): Schema => array(nonEmpty(), { unique: true });
  return document('manifest.schema.json', 'AHP draft harness manifest (hooks/capabilities result, session.start)', {
    type: 'object',
    required: [
      'events',
      'gaps',
      'transports',
      'authentication',
      'toolPaths',
      'contentCategories',
      'limits',
      'managedPolicy',
      'correlationIdentityFields',
    ],
    properties: {
      events: array(entry),
      gaps: ref('event.schema.json#/$defs/gaps'),
      transports: array(oneOfValues(['http', 'stdio', 'in_process']), { unique: true }),
      authentication: array(oneOfValues(AUTH_MECHANISMS), { unique: true }),
      // An absent limit is unknown, never unlimited.
      limits: object({ maxUploadBytes: int(0), maxContinuations: int(0), minTimeoutMs: int(0), maxTimeoutMs: int(0) }),
      toolPaths: names(),
      contentCategories: names(),
      managedPolicy: object(
        { scopes: array(oneOfValues(['user', 'project', 'managed']), { unique: true }), disableable: bool() },
        {
          required: ['scopes', 'disableable'],
          // Managed policy cannot be switched off by the user.
          extra: {
            allOf: [
              {
                if: { properties: { scopes: { contains: constant('managed') } } },
                then: { properties: { disableable: constant(false) } },
              },
            ],
          },
        },
      ),
      correlationIdentityFields: names(),
    },
    // Identity is never negotiated through the manifest.
    not: { required: ['identity'] },
  });
}
