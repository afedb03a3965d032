// Canonical content model: messages own id/role/parts; parts are one of eight closed
// variants (text|attachment × body|gap|metadata|omit); attachment bodies are `{ref}`.
import { CONTENT_SELECTION_MODES, MESSAGE_ROLES } from '../catalogue.js';
import {
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

const SHA256_PATTERN = '^[a-f0-9]{64}$';
/** Media types an attachment may not use: text/* and JSON (incl. +json suffixes). */
const TEXT_OR_JSON_MEDIA_TYPE = '^(?:[Tt][Ee][Xx][Tt]/|[^/]+/(?:[^;]+\\+)?[Jj][Ss][Oo][Nn](?:;|$))';
const HTTPS_OR_LOOPBACK_URL =
  '^(?:https://|http://(?:localhost|127\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}|\\[::1\\])(?::[0-9]+)?(?:[/?#]|$))';

const sha256 = (): Schema => pattern(SHA256_PATTERN, { minLength: 64, maxLength: 64 });
const gap = (): Schema => object({ reason: nonEmpty(), path: nonEmpty() }, { required: ['reason'], closed: true });

type Kind = 'text' | 'attachment';
type View = 'body' | 'gap' | 'metadata' | 'omit';

function part(kind: Kind, view: View): Schema {
  const props: Record<string, Schema> = {
    id: nonEmpty(),
    kind: constant(kind),
    mediaType:
      kind === 'text' ? constant('text/plain') : str({ minLength: 1, not: { pattern: TEXT_OR_JSON_MEDIA_TYPE } }),
    selection: constant(view === 'gap' ? 'body' : view),
    category: nonEmpty(),
    synthesized: bool(),
  };
  const required = ['id', 'kind', 'mediaType', 'selection'];
  if (view === 'body') {
    // Inline text or an opaque body reference; size/hash live only in upload receipts.
    if (kind === 'text') props.text = str();
    else props.body = ref('#/$defs/contentReference');
    required.push(kind === 'text' ? 'text' : 'body');
  } else {
    // Views without a payload may describe it by size and digest.
    props.size = int(0);
    props.sha256 = sha256();
    if (view === 'gap') {
      props.gap = gap();
      required.push('gap');
    }
  }
  return object(props, { required, closed: true });
}

const PART_DEFS: [string, Kind, View][] = [
  ['textBodyPart', 'text', 'body'],
  ['textGapPart', 'text', 'gap'],
  ['textMetadataPart', 'text', 'metadata'],
  ['textOmittedPart', 'text', 'omit'],
  ['attachmentBodyPart', 'attachment', 'body'],
  ['attachmentGapPart', 'attachment', 'gap'],
  ['attachmentMetadataPart', 'attachment', 'metadata'],
  ['attachmentOmittedPart', 'attachment', 'omit'],
];

const selectionMode = (): Schema => oneOfValues(CONTENT_SELECTION_MODES);

export function contentSchema(): Record<string, unknown> {
  const defs: Record<string, Schema> = {};
  for (const [name, kind, view] of PART_DEFS) defs[name] = part(kind, view);
  Object.assign(defs, {
    part: { oneOf: PART_DEFS.map(([name]) => ref(`#/$defs/${name}`)) },
    textPart: { oneOf: PART_DEFS.filter(([, k]) => k === 'text').map(([name]) => ref(`#/$defs/${name}`)) },
    parts: array(ref('#/$defs/part')),
    textParts: array(ref('#/$defs/textPart')),
    message: object(
      { id: nonEmpty(), role: oneOfValues(MESSAGE_ROLES), parts: ref('#/$defs/parts'), synthesized: bool() },
      { required: ['id', 'role', 'parts'], closed: true },
    ),
    messages: array(ref('#/$defs/message')),
    contentReference: object({ ref: nonEmpty() }, { required: ['ref'], closed: true }),
    uploadReceipt: object(
      { ref: nonEmpty(), size: int(0), sha256: sha256() },
      {
        required: ['ref', 'size', 'sha256'],
        closed: true,
      },
    ),
    // Flat per-category selection; unknown categories are allowed and use the same modes.
    selection: { type: 'object', required: ['default'], additionalProperties: selectionMode() },
    upload: object(
      {
        endpoint: str({ format: 'uri', pattern: HTTPS_OR_LOOPBACK_URL }),
        auth: ref('registration.schema.json#/$defs/authentication'),
        timeoutMs: int(1),
        maxBytes: int(0),
      },
      { required: ['endpoint', 'timeoutMs', 'maxBytes'] },
    ),
  });
  return document('content.schema.json', 'AHP draft canonical content model', {
    $ref: '#/$defs/part',
    $defs: defs,
  });
}
