// MCP elicitation payloads (MCP 2025-11-25) as AHP carries them inside text parts.
// MCP's own request/result objects stay open (`_meta`, vendor fields); the form
// vocabulary of `requestedSchema` is closed to the published primitive field kinds.
import { array, document, object, oneOfValues, ref, str, type Schema } from './dsl.js';

const num = (): Schema => ({ type: 'number' });
const strings = (): Schema => array(str());
const labelled = { title: str(), description: str() };
const option = (): Schema => object({ const: str(), title: str() }, { required: ['const', 'title'], closed: true });
const field = (props: Record<string, Schema>, required: string[]): Schema =>
  object({ ...labelled, ...props }, { required, closed: true });

export function mcpElicitationSchema(): Record<string, unknown> {
  const typeString = { type: 'string', const: 'string' };
  const typeArray = { type: 'string', const: 'array' };
  const meta = {
    type: 'object',
    properties: { progressToken: { type: ['string', 'number'] } },
    additionalProperties: {},
  };
  const task = object({ ttl: num() });
  const defs: Record<string, Schema> = {
    stringField: field(
      {
        type: typeString,
        default: str(),
        format: { type: 'string', enum: ['date', 'date-time', 'email', 'uri'] },
        minLength: num(),
        maxLength: num(),
      },
      ['type'],
    ),
    numberField: field(
      { type: { type: 'string', enum: ['integer', 'number'] }, default: num(), minimum: num(), maximum: num() },
      ['type'],
    ),
    booleanField: field({ type: { type: 'string', const: 'boolean' }, default: { type: 'boolean' } }, ['type']),
    singleSelect: field({ type: typeString, enum: strings(), default: str() }, ['enum', 'type']),
    titledSingleSelect: field({ type: typeString, oneOf: array(option()), default: str() }, ['oneOf', 'type']),
    legacyTitledSelect: field({ type: typeString, enum: strings(), enumNames: strings(), default: str() }, [
      'enum',
      'type',
    ]),
    multiSelect: field(
      {
        type: typeArray,
        items: object({ type: typeString, enum: strings() }, { required: ['enum', 'type'], closed: true }),
        minItems: num(),
        maxItems: num(),
        default: strings(),
      },
      ['items', 'type'],
    ),
    titledMultiSelect: field(
      {
        type: typeArray,
        items: object({ anyOf: array(option()) }, { required: ['anyOf'], closed: true }),
        minItems: num(),
        maxItems: num(),
        default: strings(),
      },
      ['items', 'type'],
    ),
    formField: {
      anyOf: [
        'stringField',
        'numberField',
        'booleanField',
        'singleSelect',
        'titledSingleSelect',
        'multiSelect',
        'titledMultiSelect',
        'legacyTitledSelect',
      ].map((k) => ref(`#/$defs/${k}`)),
    },
    formRequest: object(
      {
        mode: { type: 'string', const: 'form' }, // optional: an omitted mode means form
        message: str(),
        requestedSchema: object(
          {
            $schema: str(),
            type: { type: 'string', const: 'object' },
            properties: { type: 'object', additionalProperties: ref('#/$defs/formField') },
            required: strings(),
          },
          { required: ['properties', 'type'], closed: true },
        ),
        task,
        _meta: meta,
      },
      { required: ['message', 'requestedSchema'] },
    ),
    urlRequest: object(
      {
        mode: { type: 'string', const: 'url' },
        message: str(),
        url: str({ format: 'uri' }),
        elicitationId: str(),
        task,
        _meta: meta,
      },
      { required: ['elicitationId', 'message', 'mode', 'url'] },
    ),
    request: { anyOf: [ref('#/$defs/urlRequest'), ref('#/$defs/formRequest')] },
    // Answer values are flat: string, number, boolean or a list of strings.
    content: {
      type: 'object',
      additionalProperties: { anyOf: [strings(), { type: ['string', 'number', 'boolean'] }] },
    },
    result: object(
      {
        action: { type: 'string', ...(oneOfValues(['accept', 'cancel', 'decline']) as object) },
        content: ref('#/$defs/content'),
        _meta: { type: 'object', additionalProperties: {} },
      },
      { required: ['action'] },
    ),
  };
  return document(
    'mcp-elicitation.schema.json',
    'MCP 2025-11-25 elicitation request params and result, as carried by AHP',
    {
      $defs: defs,
    },
  );
}
