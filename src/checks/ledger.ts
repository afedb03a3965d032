// The traceability ledger (issue 25, item 4): every requirement id of a snapshot and every
// sentence of the conformance profile documents, each mapped to the checks that judge it or
// to why none does. It is what a certificate proves and, as much, what it does not.
//
// Wording is ours. A row names its source by location and, where we hold the document, by
// the sha256 of the sentence's whitespace-normalised text ({@link sentenceSha256}); the text
// itself is never copied here. test/unit/ledger.spec.ts extracts the sentences of the
// user's Base Protocol profile mechanically and matches them against these rows.
//
// Locations in the Base Protocol profile: `<section> <n>` is numbered item n of a section,
// `<section> <n>.<k>` its k-th sentence (when it has several); `<section> bullet <i>` the i-th
// bullet; `<section> para <p>[.<k>]` the p-th prose paragraph (and its k-th sentence).
// Sentences end at a full stop followed by a capital. The other profile documents are not
// held beside the project: their items are those of our digest (spec-notes/spec-core.md
// 13.2-13.5), named by the digest's item labels (`H1`, `B2`, `LO3`, `S4`, `HT5`, `auth (c)`).
import { createHash } from 'node:crypto';
import type { SnapshotId } from '../protocol/snapshots.js';
import {
  BOUNDARIES,
  contentCheckId,
  type BackendAspect,
  type BoundaryFamily,
  type HarnessAspect,
} from './boundaries.js';
import { CHECKS, type CheckSpec, type Lifecycle, type ProfileId, type Role, type Transport } from './catalogue.js';
import { REQUIREMENTS } from './requirements.js';

/** The documents the ledger accounts for. */
export type LedgerDocument =
  | 'base-profile'
  | 'tool-interception-profile'
  | 'lifecycle-observation-profile'
  | 'stdio-binding-profile'
  | 'http-binding-profile'
  | 'requirements';

export interface DocumentInfo {
  readonly title: string;
  /** The profile a claim makes to be judged by it (base: every claim). */
  readonly profile: ProfileId | undefined;
  /** Where the document comes from, and how far we hold it. */
  readonly source: string;
  /** sha256 (hex) of the document as we hold it, or as the snapshot's conformance manifest lists it. */
  readonly sha256?: string;
}

/**
 * The upstream conformance manifest (conformance/draft/manifest.json @ 2b5da580) lists each
 * profile document with its digest; we hold the Base Protocol profile only as the user's
 * seed, and the others through our digest of them.
 */
export const LEDGER_DOCUMENTS: Readonly<Record<LedgerDocument, DocumentInfo>> = {
  requirements: {
    title: 'Requirement catalogue',
    profile: undefined,
    source: 'spec/draft/requirements.json of the snapshot (1d98c19 publishes none: 2b5da580’s stand in)',
  },
  'base-profile': {
    title: 'Base Protocol profile',
    profile: 'base',
    source: "the user's seed file 000_c82f765ccaade63f.txt (sha256 of the file)",
    sha256: 'd6dee597a81361b8c4ffc0161bd4b8bc461eaf5c93561dabc931c8506ee66c74',
  },
  'tool-interception-profile': {
    title: 'Tool Interception profile',
    profile: 'tool-interception',
    source:
      'conformance/draft/profiles/tool-interception.md (sha256 as the 2b5da580 manifest lists it); items as our digest numbers them (spec-core 13.2)',
    sha256: '4d4c53d6f1cb19f26bba105b4ee2b096af0607a5db097e323a754473253f54b8',
  },
  'lifecycle-observation-profile': {
    title: 'Lifecycle Observation profile',
    profile: 'lifecycle-observation',
    source:
      'conformance/draft/profiles/lifecycle-observation.md (sha256 as the 2b5da580 manifest lists it); items as our digest numbers them (spec-core 13.3)',
    sha256: '29202f9a00d052db4a116e2b5ab2ee7aa1cae9fb74637e558785667012e84afa',
  },
  'stdio-binding-profile': {
    title: 'stdio binding profile',
    profile: 'stdio',
    source:
      'conformance/draft/profiles/stdio-binding.md (sha256 as the 2b5da580 manifest lists it); items as our digest numbers them (spec-core 13.4)',
    sha256: '5c53689bae4e15bd587a28d29150f68b0e96e8320bc916a176becd2c17c3b8d7',
  },
  'http-binding-profile': {
    title: 'HTTP binding profile',
    profile: 'http',
    source:
      'conformance/draft/profiles/http-binding.md (sha256 as the 2b5da580 manifest lists it); items as our digest numbers them (spec-core 13.5)',
    sha256: 'e534c02804b6cecdf6ba819835bd8255de0a0a4b3155241604e43582925228f2',
  },
};

export interface LedgerSource {
  readonly document: LedgerDocument;
  /** Where in the document (see the head of this file), or the requirement id. */
  readonly item: string;
  /** sha256 (hex) of the sentence's whitespace-normalised text, where we hold the document. */
  readonly sha256?: string;
}

/**
 * Why (part of) a row is judged by no check:
 * - `not-observable`: a duty no outside observer can see (the reason says why);
 * - `gap`: it could be seen, but no check looks yet;
 * - `informative`: the sentence puts no duty on an implementation (document status, upstream
 *   tools and fixtures, a sentence introducing others).
 */
export type UnjudgedKind = 'not-observable' | 'gap' | 'informative';

export interface Unjudged {
  readonly kind: UnjudgedKind;
  readonly reason: string;
  /** Whose share of the duty it is, where not every role of the row's (a claim of the others is judged whole). */
  readonly roles?: readonly Role[];
}

/** One sentence (or requirement) and what judges it. */
export interface LedgerRow {
  readonly source: LedgerSource;
  /** The profile whose claim makes it apply. */
  readonly profile: ProfileId;
  /** Whose duty it is (none for an informative sentence). */
  readonly roles: readonly Role[];
  /** What it says, in our words. */
  readonly says: string;
  /** The checks that judge it: all of it, or all but what `unjudged` names. */
  readonly checks: readonly string[];
  /** Judged by validating the claim file instead of a check: how. */
  readonly claimValidation?: string;
  /** What of it no check judges, and why (with no checks: all of it). */
  readonly unjudged?: Unjudged;
}

/** sha256 (hex) of a text with every run of whitespace made one space and the ends trimmed. */
export function sentenceSha256(text: string): string {
  return createHash('sha256').update(text.replace(/\s+/g, ' ').trim(), 'utf8').digest('hex');
}

// ------------------------------------------------------------------ check groups

/** The content checks of one aspect, at the boundaries of the given families (all when none). */
function content(aspect: HarnessAspect | BackendAspect, ...families: BoundaryFamily[]): string[] {
  return BOUNDARIES.filter((b) => families.length === 0 || families.includes(b.family)).map((b) =>
    contentCheckId(b, aspect),
  );
}
/** The content checks of one aspect at named boundaries (by slug). */
function at(aspect: HarnessAspect | BackendAspect, ...slugs: string[]): string[] {
  return BOUNDARIES.filter((b) => slugs.includes(b.slug)).map((b) => contentCheckId(b, aspect));
}
/** Boundaries with a modify target (all but the elicitation request). */
const withTarget = (aspect: HarnessAspect | BackendAspect): string[] =>
  BOUNDARIES.filter((b) => b.target !== undefined).map((b) => contentCheckId(b, aspect));

const H: Role[] = ['harness'];
const B: Role[] = ['backend'];
const BOTH: Role[] = ['harness', 'backend'];
const NONE: Role[] = [];

// Reasons said more than once, said once.
const HOST_INTERNAL =
  "the host's own authorization, permission and sandbox decisions happen inside the harness: the runner sees only the outcomes the adapter can stage (a call the host allows, asks about and is refused, or denies) through the sentinel tool";
const BEFORE_USE =
  'when validation happens is internal: it is seen only through its effect, an invalid registration refused with nothing sent to its backend';
const RETRY_OPTIONAL =
  "retries are optional: a harness that does not retry in the runner's scenario is not applicable there, and retries it makes only in other circumstances are not seen";
const CATEGORY_POLICY =
  "the host's category policy and read/write authorization of parts are resolved inside the harness; the runner can set only the subscription's view";

function informative(reason: string): Pick<LedgerRow, 'checks' | 'unjudged'> {
  return { checks: [], unjudged: { kind: 'informative', reason } };
}

type Judged = Pick<LedgerRow, 'checks' | 'claimValidation' | 'unjudged'>;

const seed = (item: string, sha256: string, roles: readonly Role[], says: string, judged: Judged): LedgerRow => ({
  source: { document: 'base-profile', item, sha256 },
  profile: 'base',
  roles,
  says,
  ...judged,
});

const profileItem =
  (document: LedgerDocument, profile: ProfileId) =>
  (item: string, roles: readonly Role[], says: string, judged: Judged): LedgerRow => ({
    source: { document, item },
    profile,
    roles,
    says,
    ...judged,
  });

// ------------------------------------------------------------------ the Base Protocol profile (the seed)

const CLAIM_FILE = 'the claim file is validated before anything runs (src/claims/load.ts, schemas/claim.schema.json)';

const BASE_PROFILE: readonly LedgerRow[] = [
  seed(
    'Base Protocol profile para 1.1',
    '28342d405a46187d3be4d7888ed92640c3310b4ba18915b68c00b38ce887c55c',
    NONE,
    'The document is a working draft, for protocol version draft.',
    informative('document status'),
  ),
  seed(
    'Base Protocol profile para 1.2',
    'a36018eaab6a18de73d0161c28cad4648ad2d8a56f1754736f4bc9ebc27e820c',
    NONE,
    "Which requirements count for a snapshot is what that snapshot's conformance manifest selects; the profile describes tests without tying them to a language.",
    informative(
      "says where requirements come from: the ledger's requirement rows are the snapshot's catalogue (src/checks/requirements.ts)",
    ),
  ),
  seed(
    'Claim inputs para 1',
    'd96a89fdd004769cca15fbc5d24168e07ee64ed5859ceda452f1da4c1c393176',
    BOTH,
    'A claim states the inputs listed next.',
    { checks: [], claimValidation: CLAIM_FILE },
  ),
  seed(
    'Claim inputs bullet 1',
    '8b38b4a052c1e180c07df6b4fb66d2a08ce57af34fdbf46200f7fe4bdd6cb2b3',
    BOTH,
    'The claim names its role: harness, backend or both.',
    { checks: [], claimValidation: 'a claim without a known role is refused (schemas/claim.schema.json: role)' },
  ),
  seed(
    'Claim inputs bullet 2',
    '66219fa36d5b89fbe085fe0404fe11d01f3834609c55f3543d5ab4a6c6016b8f',
    BOTH,
    'The claim names its transport bindings: stdio, http or both.',
    {
      checks: [],
      claimValidation: 'a claim without a transport is incomplete, one with an unknown transport refused (transports)',
    },
  ),
  seed(
    'Claim inputs bullet 3',
    '250c73620c8a6d895912f7b801708a0a892be43cc5e6fd6c2e30de8e59da81b0',
    BOTH,
    'The claim names one capability profile or more.',
    {
      checks: [],
      claimValidation:
        'a claim without a capability profile is incomplete, one with an unknown profile refused (profiles)',
    },
  ),
  seed(
    'Observable checks 1',
    '5c74d72b075221ee12b5a2afa457922d43dc784f05e04534d3e681e446aef7b8',
    BOTH,
    'What an implementation sends is UTF-8 encoded JSON-RPC 2.0, message by message.',
    { checks: ['base.jsonrpc-utf8', 'base.harness-jsonrpc', 'lo.notification-shape'] },
  ),
  seed(
    'Observable checks 2',
    'c0a536f2b87362c490b65a74c732f41a39f0e651c7416c21f7b5ce90879c545a',
    BOTH,
    'Requests and notifications, and results that succeed, carry protocolVersion "draft" in the place the payload defines for it.',
    {
      checks: ['base.protocol-version', 'base.harness-version', 'lo.notification-shape', 'base.configuration'],
    },
  ),
  seed(
    'Observable checks 3.1',
    'ff57982f12de3f7827715511028811cb47cb184250b2deebc188d86e26580bb1',
    BOTH,
    'A member nobody defined, inside an object, does not turn a valid message invalid.',
    { checks: ['base.unknown-fields', 'base.unknown-result-fields'] },
  ),
  seed(
    'Observable checks 3.2',
    'aeef684074b0e02510ca24fd484264d580d881183145800e43f2e253c4d89acf',
    BOTH,
    'An event type, effect type or enum value nobody defined is still unsupported: it is not silently ignored.',
    {
      checks: ['base.unknown-event', 'base.unknown-effect', 'base.registration-validated'],
      unjudged: {
        roles: B,
        kind: 'gap',
        reason:
          'unknown enum values are sent to a harness only inside registrations (failure policy, mode); no check sends a backend a request with an unknown enum value',
      },
    },
  ),
  seed(
    'Observable checks 4',
    'fd7765e2d2c7f472694d30c5adf8098550c24241eeb8b20e1922c19f45666468',
    BOTH,
    'Keys of extensions are reverse-DNS names.',
    { checks: ['base.extension-keys', 'base.harness-extension-keys'] },
  ),
  seed(
    'Observable checks 5',
    'e7d38c465f5e79d9a03b5895402180d1662c87c231677dc1fab56d1b6d2fba29',
    H,
    'A harness checks a portable registration before it uses it, and delivers an event to a backend only through a subscription that names exactly that event, in the mode that fits how it is delivered.',
    {
      checks: [
        'base.registration-validated',
        'auth.portable-mechanisms',
        'base.exact-dispatch',
        'base.configuration-request',
        'base.configuration-dispatch',
        'base.configuration-invalid',
      ],
      unjudged: { kind: 'not-observable', reason: BEFORE_USE },
    },
  ),
  seed(
    'Observable checks 6',
    '043e402138a2dcebc6c7d4aeeffa584cc04ca752326cd055509c9f784d451c99',
    H,
    'When a harness sends an event again, it keeps the identity the first attempt had.',
    {
      checks: ['base.retry-identity'],
      unjudged: { kind: 'not-observable', reason: RETRY_OPTIONAL },
    },
  ),
  seed(
    'Observable checks 7',
    '2cca59bd591b64538f0cfbf475c414218f8790f56afb8a99217ef645946ac49d',
    B,
    'A backend answers a request whose semantics it does not support with a defined JSON-RPC error, and answers no notification at all.',
    {
      checks: [
        'base.unknown-method',
        'base.unsupported-version',
        'base.unknown-event',
        'base.invalid-params',
        'base.unparseable-input',
        'base.notification-silence',
        'lo.observe-silence',
        'base.configuration-unoffered',
      ],
    },
  ),
  seed(
    'Observable checks 8.1',
    '076d36dc3b49e38adc740bbef9ee37e1c7f9fac7df6ab7c3a0201071641a6a8b',
    H,
    'Each event names the harness with a name and a version that are non-empty strings, observations and intercepts sent before any session.start included.',
    { checks: ['base.harness-metadata'] },
  ),
  seed(
    'Observable checks 8.2',
    'a951bae0512ba66267c3b70e24bef01d93f3e62b6a555fe4c33fc42a410bf48a',
    H,
    'An adapter names the harness it speaks for, not itself; that name neither authenticates anyone nor negotiates capabilities.',
    {
      checks: ['base.harness-metadata'],
      unjudged: {
        kind: 'not-observable',
        reason:
          "the events are compared with the harness the adapter's own report names; whether a receiver treats the name as authentication or as capabilities is its internal policy",
      },
    },
  ),
  seed(
    'Observable checks 9',
    '27de1a05fbe4d22402b6485915c6e4d4e2adb653fc1f4868d783840123447c6b',
    H,
    "A successful AHP result never loosens the host's authorization, permissions, approvals or sandbox.",
    { checks: ['base.no-weakening'], unjudged: { kind: 'not-observable', reason: HOST_INTERNAL } },
  ),
  seed(
    'Observable checks para 1',
    '2d8ab057709c7057a7509f676d015ea19fc51a181cc7710a81f072cad457afe1',
    BOTH,
    'A Base Protocol claim that names no capability profile, or no transport binding, is incomplete.',
    {
      checks: [],
      claimValidation: 'such a claim gets the verdict incomplete and nothing runs (src/claims/load.ts)',
    },
  ),
  seed(
    'Canonical content and edit checks para 1',
    '9221ebdb1c3eef99f56c8739402d1b994bab20560bbc6dbcb2279e8c6fcc748e',
    NONE,
    'The checks that follow apply to the events an implementation supports and the edits it advertises, on top of validating the envelope.',
    informative(
      'sets the scope of the content checks: a boundary is exercised only where the claim lists it (harness.boundaries) or gives a content sample of it (backend.samples.content); a claim listing none is judged on no content rule',
    ),
  ),
  seed(
    'Canonical content and edit checks 1.1',
    '6e12b61e4a09ee31ee7ac9644d016fbbb4fa7ca798666fd4b90f465b124e1337',
    BOTH,
    'Items of the model, of a turn and of the context are lists of messages in canonical form.',
    { checks: [...content('canonical', 'messages'), ...content('canonical-edits', 'messages')] },
  ),
  seed(
    'Canonical content and edit checks 1.2',
    '649c11b73bdcad56ad7f535c5e2feb2470694effbb9f689828dcc8a01d16353a',
    BOTH,
    'A message has its own id, role and parts, and may have the synthesized flag.',
    { checks: [...content('canonical', 'messages'), ...content('canonical-edits', 'messages')] },
  ),
  seed(
    'Canonical content and edit checks 1.3',
    '93f3cce3ddd547b9a7d04032f63046a2bbb23a5bce96fc193e488772afdf9da6',
    H,
    'Events about user messages carry them in message.messages.',
    { checks: at('canonical', 'user-inbound', 'user-outbound') },
  ),
  seed(
    'Canonical content and edit checks 1.4',
    '5103f77df3c7c446d501eb9af7c06d1691bc7a4e40c66c61e8e6b5643d25d2f1',
    BOTH,
    "A part does not restate its message's role or its parent's identity.",
    {
      checks: [
        ...content('canonical', 'messages', 'text-parts'),
        ...content('canonical-edits', 'messages', 'text-parts'),
      ],
    },
  ),
  seed(
    'Canonical content and edit checks 2.1',
    '15018af872fb3ad612ac82a0748f071a14afe33d40812684a4254b7735cdd2b3',
    H,
    'A text part in the body view is of kind text, media type text/plain and selection body, with its text inline: no body reference, no upload.',
    { checks: [...content('canonical'), 'upload.media'] },
  ),
  seed(
    'Canonical content and edit checks 2.2',
    'a3f51ac3d87af4e5e8ec64aaa6a35437e4e227e92ca2074cd73931936c8b6568',
    H,
    'Parts shown in a metadata, omit or gap view have neither text nor body.',
    {
      checks: content('selection', 'messages', 'text-parts', 'mcp-request', 'mcp-result'),
      unjudged: {
        kind: 'gap',
        reason: 'metadata and omit views are exercised; no scenario makes a harness send a gap view',
      },
    },
  ),
  seed(
    'Canonical content and edit checks 3.1',
    '0b820918166756e921f54e35fb95d266ac90277c5bfeed0f1bea20e39ec2300d',
    BOTH,
    'The body of an attachment is a {ref} reference and stays unchanged.',
    {
      checks: [
        ...content('canonical', 'messages'),
        ...content('selection', 'messages'),
        ...content('hidden-untouched', 'messages'),
        'upload.before-event',
      ],
    },
  ),
  seed(
    'Canonical content and edit checks 3.2',
    'a16abb81458fbbf932284f89c1c055f6be09c13dc4494d74a1c36b79fb040dcb',
    BOTH,
    'A replacing edit may keep attachment descriptors as they were (where authorized) or leave them out.',
    { checks: [...content('edits', 'messages'), ...content('hidden-untouched', 'messages')] },
  ),
  seed(
    'Canonical content and edit checks 3.3',
    'df2557a883de5d298ebd016799dae2f706e652b3bd4c0cc62875acf7f31e1c4f',
    BOTH,
    'Edits that change attachment bytes, or swap in a reference that was not authorized, are refused; dropping an attachment leaves its stored bytes alone.',
    {
      checks: [...content('selection', 'messages'), ...content('hidden-untouched', 'messages')],
      unjudged: {
        roles: H,
        kind: 'not-observable',
        reason: 'what happens to stored attachment bytes is inside the harness and its store',
      },
    },
  ),
  seed(
    'Canonical content and edit checks 3.4',
    'ffcae7bbe875dc5bf9a53115d0e3f23990a596dac7be9c5e5da947493a9719a7',
    BOTH,
    'A list holding any text part in a metadata, omit or gap view cannot be replaced whole, so new identities cannot get around the hidden text.',
    {
      checks: [
        ...content('selection', 'messages', 'text-parts'),
        ...content('hidden-untouched', 'messages', 'text-parts'),
      ],
    },
  ),
  seed(
    'Canonical content and edit checks 3.5',
    '2c7d0b26d5ccd95222fd2a3e7ef65983bb8e0a78873f81ed4dd8bad9010224fd',
    BOTH,
    'Appending by merge keeps those hidden entries; what it adds is still subject to the selection and category rules of the host.',
    {
      checks: [
        ...content('hidden-untouched', 'messages', 'text-parts'),
        ...content('selection', 'messages', 'text-parts'),
      ],
      unjudged: { roles: H, kind: 'not-observable', reason: CATEGORY_POLICY },
    },
  ),
  seed(
    'Canonical content and edit checks 3.6',
    '40957c491206787eb416e621c61b4e818d9611c10da740447ec7cf6fea8bd787',
    BOTH,
    'Attachments may still be dropped or put in another order, as long as their bytes stay the same.',
    { checks: [...content('edits', 'messages'), ...content('hidden-untouched', 'messages')] },
  ),
  seed(
    'Canonical content and edit checks 4.1',
    '972004eff6dcb5ab80af9d41a3e69437c8e5830c3805fbca391e27b9079f1164',
    BOTH,
    'A modify value for the prompt, a request, a response, an output or ordinary outgoing content is a canonical message list; for instructions and a summary it is a list of text parts.',
    {
      checks: [...content('edits', 'messages', 'text-parts'), ...content('canonical-edits', 'messages', 'text-parts')],
    },
  ),
  seed(
    'Canonical content and edit checks 4.2',
    'd652431a5a9587345760ac334eecc06e6312e54ab407af5cb9afb421d8b68b41',
    BOTH,
    'At an elicitation result the content value differs: it is the MCP answer object, parsed, of a form that was accepted.',
    { checks: [...at('edits', 'elicitation-result'), ...at('canonical-edits', 'elicitation-result')] },
  ),
  seed(
    'Canonical content and edit checks 4.3',
    '9b62710f068126189dbf271d50e4b5a41b66964819dfefba9e22252bff5ce7a9',
    BOTH,
    'Edits of the input and of the workspace need a target that is an object and a value that is an object.',
    {
      checks: [
        'ti.modify-input',
        'ti.modify-samples',
        ...at('edits', 'workspace-change'),
        ...at('selection', 'workspace-change'),
        ...at('canonical-edits', 'workspace-change'),
      ],
    },
  ),
  seed(
    'Canonical content and edit checks 4.4',
    'ec300104837bce20cb81a0199c16138f596adf41414b5807658692e1c4e8e993',
    BOTH,
    'Output edits go to the items of tool.after only; no target stands for native output as opaque JSON.',
    { checks: [...at('edits', 'tool-output'), ...at('canonical-edits', 'tool-output')] },
  ),
  seed(
    'Canonical content and edit checks 5.1',
    '7bbea471e832e45bda07a63e23e12932f65eae5d3ccb110ade2b5dd78468ebad',
    H,
    'A replace puts its value in place of the entire target.',
    { checks: [...withTarget('edits'), 'ti.modify-input'] },
  ),
  seed(
    'Canonical content and edit checks 5.2',
    'bebe0fa096e996eb60507efee6df6930e5a68e49c684c2b56d08c22782e16189',
    H,
    'Merging into a list adds the new entries at the end, in their order, and removes no message or part that repeats.',
    { checks: content('edits', 'messages', 'text-parts') },
  ),
  seed(
    'Canonical content and edit checks 5.3',
    '105d21a16a896881d3b8e4e08a891f46c97be4e7642aa33438d8b7a5d93d78b6',
    H,
    'Merging into an object works one level deep: a nested value is replaced as a whole, and a null value is kept as null, never taken to mean removal.',
    { checks: ['ti.modify-input', ...at('edits', 'elicitation-result', 'workspace-change')] },
  ),
  seed(
    'Canonical content and edit checks 6.1',
    '41a03a698035004e2718a304eee4e0d043a919ae29edcb1c7150fbc8d88e2098',
    BOTH,
    'An edit is refused unless the exact target and operation were advertised, the content is in the body view, and the hook may both read and write it.',
    {
      checks: [
        ...content('edits'),
        ...content('selection'),
        'base.unknown-effect',
        ...content('advertised-edits'),
        ...content('hidden-untouched'),
        'ti.advertised-effects',
        'ti.modify-samples',
      ],
      unjudged: { roles: H, kind: 'not-observable', reason: CATEGORY_POLICY },
    },
  ),
  seed(
    'Canonical content and edit checks 6.2',
    'e2659efb55d412e1eb71e6866cd4c87e5609dcb38b8f7b424fc3e3f4332d01a8',
    H,
    'Having text inline is no way around selection, category policy or host authorization, and holding an opaque reference gives no access.',
    {
      checks: content('selection'),
      unjudged: {
        kind: 'not-observable',
        reason: `${CATEGORY_POLICY}; what a reference would give access to lies in the harness and its store`,
      },
    },
  ),
  seed(
    'Canonical content and edit checks 7.1',
    'e962b40fff2d08318609c9470763ed6e4ac53eb2991dd2b9d02ac21f98070e0b',
    H,
    'The whole response is staged and validated before any of its changes takes effect.',
    {
      checks: ['ti.modify-atomic', ...withTarget('edits'), 'base.unknown-effect', 'base.effect-unknown-field'],
      unjudged: {
        kind: 'not-observable',
        reason: 'staging is internal: the runner sees that nothing of a rejected response reaches the sentinel',
      },
    },
  ),
  seed(
    'Canonical content and edit checks 7.2',
    'b7765f3c980c93f02d78b3df4348c27f6c5fe51386b73e99b138af6b65c4d95f',
    H,
    'If a later effect of a response is invalid, none of that response’s edits apply.',
    { checks: ['ti.modify-atomic', ...withTarget('edits')] },
  ),
  seed(
    'Canonical content and edit checks 7.3',
    '03ecaaf83b40a716f6d77fc3a5a845cfee9f580408b70974cee793ae6d47788f',
    H,
    'Accepted responses apply one after another, each to the value the previous ones left; rejecting a later one under fail-open takes back nothing accepted before it.',
    { checks: [...withTarget('edits'), 'ti.modify-input'] },
  ),
  seed(
    'Canonical content and edit checks 8.1',
    '070d9492d7369dc65dd5d843cbd577b4773135ce503b05d46bb4df11908be38b',
    BOTH,
    'The text of a body-view elicitation part (request or result) is parsed whole as MCP JSON and checked against the pinned MCP schema.',
    {
      checks: [
        ...at('canonical', 'elicitation-request', 'elicitation-result'),
        ...at('canonical-edits', 'elicitation-result'),
      ],
    },
  ),
  seed(
    'Canonical content and edit checks 8.2',
    'e1e7b8f292810a1afb7b102764aceb0a10aeab891c7375dde93a5d5b4d8be441',
    H,
    "The envelope's mode agrees with the request's (a request without a mode counts as a form), and its action with the result's.",
    { checks: at('canonical', 'elicitation-request', 'elicitation-result') },
  ),
  seed(
    'Canonical content and edit checks 8.3',
    '3d93c5f8cef0fffa0fdf4eb98a36ec379fa9d18e7176b730239431144cdf5495',
    BOTH,
    'A result carries content only when a form was accepted.',
    {
      checks: [...at('canonical-edits', 'elicitation-result'), ...at('edits', 'elicitation-result')],
      unjudged: {
        roles: H,
        kind: 'gap',
        reason:
          'the harness scenario sends accepted results only; a declined or cancelled one with content is not tried',
      },
    },
  ),
  seed(
    'Canonical content and edit checks 8.4',
    '9b50cd357edb0ab07dda0531be171793504f08a91b653707794e68105c04611a',
    BOTH,
    'A metadata, omit or gap view is never parsed as an MCP payload to act on.',
    {
      checks: [
        ...at('selection', 'elicitation-request', 'elicitation-result'),
        ...at('hidden-untouched', 'elicitation-request', 'elicitation-result'),
      ],
      unjudged: {
        kind: 'not-observable',
        reason:
          'whether a receiver parses a hidden view is internal to it; what is judged is that hidden views carry nothing to parse, and that a backend does not edit them',
      },
    },
  ),
  seed(
    'Checker scope para 1.1',
    '3ecdd5bdfe4e344827d7879c988a0a4242898ced263cfb649b20845d07f6527e',
    NONE,
    "Upstream's fixture checker uses the schemas for the value shapes of edits in response fixtures, and adds meaning checks of inline MCP elicitation JSON against the schema pinned in the snapshot.",
    informative(
      'describes an upstream tool, not an implementation; our counterpart is `ahp-conformance fixtures` (src/fixtures/)',
    ),
  ),
  seed(
    'Checker scope para 1.2',
    '1738958090f037c1c380fd35cbaea0aba6bc6b607371f870eeb1ee0dafb5235f',
    NONE,
    'Schemas and fixtures on their own cannot show registration selection, authorization of categories and parts, the scope of references, the real type of the output target, or that a host executes atomically.',
    informative(
      'a limit of fixture checking, not a duty; the live checks take up what they can see (rows Observable checks 5, Canonical content and edit checks 4.4, 6.1, 7.1) and the rest is marked not observable there',
    ),
  ),
  seed(
    'Checker scope para 2.1',
    '25555639e26b4d64e75ba3b48daf2a25406612c19deb3208f0ca2ad8eb7ad948',
    NONE,
    "Upstream's apply_modify_response is a narrow runtime helper for tests: draft only, modify effects only.",
    informative(
      'describes an upstream helper; ours is applyModifyResponse (src/protocol/edit.ts), the oracle of the content checks',
    ),
  ),
  seed(
    'Checker scope para 2.2',
    '76dc90130d06b237236e799587c285119ce5bb52e59de38bd229f064a0a9c55c',
    NONE,
    "The helper's edit context gives it what the host resolved: the target selection, read and write rights, the exact capabilities and the attachment descriptors allowed to stay.",
    informative('describes an upstream helper'),
  ),
  seed(
    'Checker scope para 2.3',
    'd1a6dd3ae16acb3578f48716086acfc0bb9f35b71c519152297add3857649d28',
    NONE,
    'The helper checks the whole effect list against the canonical schema first, then stages copies, leaving what it was given untouched.',
    informative('describes an upstream helper'),
  ),
  seed(
    'Checker scope para 2.4',
    '150758e8aaef320c9d3e6b0ce7e42d1e49901fbc834145f8e2d068c2f83d12bb',
    NONE,
    "What the helper leaves to its caller: the whole envelope's validation, the roles each event allows, JSON contracts of particular targets, policy per part and category, and duplicated bodies inside native, input or output JSON.",
    informative(
      'describes an upstream helper; our content checks take the caller’s part where it is visible (message roles per event in content.*.canonical and content.*.canonical-edits, the envelope in the base checks)',
    ),
  ),
  seed(
    'Checker scope para 2.5',
    'e74a01a293c1be6add46f6861804a4a2e3c831afe0597df8d03f78c861942389',
    H,
    'The helper fails closed on any effect but modify and executes nothing else; a real implementation stages control state and outside side effects together with all the other effects of a response.',
    {
      checks: ['ti.modify-atomic', 'base.unknown-effect', 'base.effect-unknown-field', ...withTarget('edits')],
      unjudged: {
        kind: 'not-observable',
        reason:
          "the only side effect the runner sees is the sentinel tool's run and what the sentinels record; other control state and side effects stay inside the harness",
      },
    },
  ),
  seed(
    'Checker scope para 2.6',
    '59d101c38afd868ed877eb1e5ffe596e6a49acd3c4c33bdf35c30dde992c2c7e',
    NONE,
    "Upstream's focused tests cover these limits, atomic rejection and serial chaining among them, and do not claim that fixtures on the wire prove permissions are enforced at run time.",
    informative('describes upstream tests'),
  ),
  seed(
    'Boundary-specific modification values para 1.1',
    '417b36f4c610bf5973f45f13dc30b8f21585e15d02ef16bb1ff05c81f5200b67',
    BOTH,
    'The schema of a content effect on its own allows messages or an object; conformance must in addition settle which boundary is pending.',
    { checks: [...content('canonical-edits'), ...content('edits')] },
  ),
  seed(
    'Boundary-specific modification values para 1.2',
    '9ce1d23cb58cf228da95c3f00aa31757aa7a659243e0bbf7c1db9a206fc196de',
    BOTH,
    "Outgoing user content takes canonical message lists; an elicitation result's content takes the answer object MCP gives for an accepted form.",
    {
      checks: [
        ...at('canonical-edits', 'user-outbound', 'elicitation-result'),
        ...at('edits', 'user-outbound', 'elicitation-result'),
      ],
    },
  ),
  seed(
    'Boundary-specific modification values para 1.3',
    '2ea344a79382665b21d6cfd495e608c9d2f8e11ea5e72776a053b617e71233da',
    NONE,
    "Upstream's contextual edit helper checks, before staging, what the host settled: the event, the selection, permissions and capabilities, mode and action, and the shape of the pinned answer.",
    informative(
      'describes an upstream helper; applyModifyResponse (src/protocol/edit.ts) does the same for our checks',
    ),
  ),
  seed(
    'Boundary-specific modification values para 1.4',
    '2c2b8d4bd7d3a940f27c87cb529bf2ed5985b2f097d3adba37a314e3bd10825f',
    BOTH,
    'A host also checks an edited answer against the form schema first requested, and serializes the full effective MCP result.',
    {
      checks: [...at('canonical-edits', 'elicitation-result'), ...at('edits', 'elicitation-result')],
      unjudged: {
        roles: H,
        kind: 'gap',
        reason:
          "a backend's edits are judged against the requested form; no harness scenario answers with an edit that is a valid MCP answer yet breaks the requested form",
      },
    },
  ),
  seed(
    'Boundary-specific modification values para 1.5',
    '05638a8b368d67ff0dd1bff24f0bbfd76368310dcb31b1948b0beaa3745304f7',
    BOTH,
    'An elicitation request may not be modified; its structured parameters are no message-list target.',
    {
      checks: [
        ...at('edits', 'elicitation-request'),
        ...at('canonical-edits', 'elicitation-request'),
        ...at('advertised-edits', 'elicitation-request'),
      ],
    },
  ),
  seed(
    'Boundary-specific modification values para 1.6',
    'f11e82bd00e7d4a63b211eb0aca631926b0ea0e171bfd8b01561327b21a04909',
    NONE,
    "Upstream's contextual fixtures state, in their manifest, an edit context only a host has and a contextual verdict kept apart from wire validity.",
    informative('describes upstream fixtures; `ahp-conformance fixtures` reads both (src/fixtures/cross-check.ts)'),
  ),
  seed(
    'Boundary-specific modification values para 2.1',
    '479a1eb1c12e4c9b104d1384f8fbf9495596ab9b677f7a8a867a0dd793657e8c',
    BOTH,
    'At tool.after, output edits go to the canonical messages of items.',
    { checks: [...at('edits', 'tool-output'), ...at('canonical-edits', 'tool-output')] },
  ),
  seed(
    'Boundary-specific modification values para 2.2',
    'b03e9d475ab2e454f9afe6b15b3a4f0941f9cda6da0ff1814bcbdee80c65fc50',
    NONE,
    'Upstream’s contextual output fixtures cover replacing, appending in order and refusing objects and bare parts, and infer no native JSON output member.',
    informative('describes upstream fixtures; the live counterpart is content.tool-output.edits'),
  ),
];

// ------------------------------------------------------------------ the other profiles (our digest, spec-core 13.2-13.5)

const ti = profileItem('tool-interception-profile', 'tool-interception');
const TOOL_INTERCEPTION: readonly LedgerRow[] = [
  ti(
    'H1',
    H,
    'Each tool call sends exactly one valid tool.before intercept to each matching interceptor, with the final tool name and input, before the tool has any effect.',
    {
      checks: ['ti.intercept-request'],
    },
  ),
  ti('H2', H, "An intercept's JSON-RPC id is its event id; a retry keeps every identity and the content.", {
    checks: ['ti.request-id', 'base.retry-identity'],
    unjudged: { kind: 'not-observable', reason: RETRY_OPTIONAL },
  }),
  ti('H3', H, "Every intercept's capabilities.effects is a list holding deny.", { checks: ['ti.capabilities-deny'] }),
  ti('H4', H, 'Interceptors are called one at a time in registration order, each within its own deadline.', {
    checks: ['ti.serial-order', 'stdio.one-outstanding', 'ti.deadline'],
    unjudged: {
      kind: 'gap',
      reason: 'the order is judged in one run; that it is the same over repeated runs is not tried',
    },
  }),
  ti(
    'H5',
    H,
    "When every interceptor answers with no effect, the call goes through the host's usual permission flow, granted nothing.",
    {
      checks: ['base.no-weakening'],
      unjudged: { kind: 'not-observable', reason: HOST_INTERNAL },
    },
  ),
  ti('H6', H, 'A valid deny stops the chain and the tool, under fail-open and fail-closed alike.', {
    checks: ['ti.deny-stops'],
  }),
  ti(
    'H7',
    H,
    "Each kind of operational failure applies the subscription's failure policy: fail-open goes on, fail-closed denies with a generic reason and calls no one after.",
    {
      checks: [
        'ti.failure-policy',
        'ti.deadline',
        'http.no-redirect',
        'stdio.framing-rejected',
        'base.unknown-effect',
        'base.effect-unknown-field',
      ],
    },
  ),
  ti(
    'H8',
    H,
    'Without a matching intercept subscription nothing is asked, and the tool follows the usual authorization.',
    {
      checks: ['base.exact-dispatch'],
      unjudged: {
        kind: 'gap',
        reason:
          'an observer of tool.before is judged never to be asked; a harness with no intercept subscription at all is not run, so the authorization its tool then follows is not seen',
      },
    },
  ),
  ti('B1', B, 'A tool.before intercept gets exactly one successful response with the same id and a valid result.', {
    checks: ['ti.result-valid', 'ti.response-id', 'base.protocol-version', 'ti.deny-samples'],
  }),
  ti('B2', B, 'A backend returns only effects the request advertised, also when it advertised none.', {
    checks: ['ti.advertised-effects', 'ti.state-independent'],
  }),
  ti('B3', B, 'The same request sent twice gets answers that mean the same.', {
    checks: ['ti.duplicate-delivery', 'ti.duplicate-answered'],
  }),
];

const lo = profileItem('lifecycle-observation-profile', 'lifecycle-observation');
const LIFECYCLE_OBSERVATION: readonly LedgerRow[] = [
  lo(
    'LO1',
    H,
    'Only observe subscriptions naming the exact event get its observations; intercept-only subscriptions get none.',
    {
      checks: ['base.exact-dispatch', 'base.configuration-dispatch'],
    },
  ),
  lo('LO2', H, 'An observation is a hooks/observe notification with no id, carrying protocolVersion and the event.', {
    checks: ['lo.notification-shape'],
  }),
  lo('LO3', B, 'A receiver answers no notification, valid or not (over HTTP: 202 or 204 and no body).', {
    checks: ['lo.observe-silence', 'base.notification-silence', 'http.observe-empty', 'stdio.per-event-exit'],
  }),
  lo(
    'LO4',
    H,
    'Observers are best effort and never block: one that hangs, fails or answers garbage changes neither the timing nor the outcome of the call.',
    {
      checks: ['lo.observer-isolation'],
    },
  ),
  lo(
    'LO5',
    H,
    'tool.after reuses the call id of its tool.before; a denied call is reported as denied and skipped for policy.',
    {
      checks: ['lo.call-identity'],
    },
  ),
  lo('LO6', H, 'A retried notification keeps its event id.', {
    checks: [],
    unjudged: {
      kind: 'gap',
      reason:
        'no check fails a notification in a retryable way to see a retry (base.retry-identity does so for intercepts)',
    },
  }),
];

const st = profileItem('stdio-binding-profile', 'stdio');
const STDIO_BINDING: readonly LedgerRow[] = [
  st(
    'S1',
    BOTH,
    'Each line is one UTF-8 JSON-RPC object ended by a newline: nothing spread over lines, no two objects on a line.',
    {
      checks: ['stdio.framing', 'stdio.harness-framing'],
    },
  ),
  st('S2', B, "A backend's stdout carries protocol messages only; stderr is free.", { checks: ['stdio.stdout-clean'] }),
  st(
    'S3',
    H,
    'Messages reach the backend on stdin; the command and its arguments are those registered, started without a shell.',
    {
      checks: ['stdio.literal-args', 'stdio.harness-framing'],
      unjudged: {
        kind: 'gap',
        reason: 'that no copy of an event also goes in arguments, the environment or files is not looked for',
      },
    },
  ),
  st(
    'S4',
    BOTH,
    'A persistent process serves many exchanges, and a harness keeps at most one intercept outstanding on it.',
    {
      checks: ['stdio.persistent-exchanges', 'stdio.persistent-reuse', 'stdio.one-outstanding'],
    },
  ),
  st(
    'S5',
    BOTH,
    'A per_event process gets one message and end of input, replies at most once and exits 0; a harness treats a bad exit or output as an operational failure.',
    {
      checks: ['stdio.per-event-exit', 'stdio.per-event-eof', 'ti.failure-policy'],
    },
  ),
  st('S6', H, 'A harness treats badly framed output as an operational failure, never as a decision.', {
    checks: ['stdio.framing-rejected'],
  }),
];

const ht = profileItem('http-binding-profile', 'http');
const HTTP_BINDING: readonly LedgerRow[] = [
  ht('HT1', H, 'Each message is one POST of one JSON object, with a JSON media type, to exactly the registered URL.', {
    checks: ['http.post-json'],
  }),
  ht('HT2', B, 'A request gets one JSON-RPC response with its id, status 200 and a JSON media type.', {
    checks: ['http.intercept-response', 'http.error-status'],
  }),
  ht('HT3', B, 'A notification gets 202 or 204 and an empty body.', { checks: ['http.observe-empty'] }),
  ht('HT4', H, 'Any status but a success is an operational failure, and a redirect is never followed.', {
    checks: ['ti.failure-policy', 'http.no-redirect', 'auth.challenge'],
    unjudged: {
      kind: 'gap',
      reason:
        'the statuses tried are 202, 404, 500, 307 and a 401 with a challenge; a 204 answer to an intercept is not',
    },
  }),
  ht(
    'HT5',
    H,
    'The bearer credential is taken by reference and sent once, in the header only; with it unset, nothing is sent.',
    {
      checks: ['http.bearer', 'base.registration-validated'],
    },
  ),
  ht(
    'HT6',
    H,
    'A registration with plain http to a host that is not loopback is refused; a certificate not trusted is refused.',
    {
      checks: [],
      unjudged: {
        kind: 'gap',
        reason:
          "no registration in the corpus names a non-loopback http URL, and the hook endpoint's certificate is never made untrusted (auth.token-validation does so for the authorization server only)",
      },
    },
  ),
  ht(
    'auth (a)',
    BOTH,
    'Event and upload endpoints each handle success, a 401 with metadata, the well-known fallbacks and discovery of the authorization server on their own.',
    {
      checks: [
        'auth.challenge',
        'auth.oauth-client-credentials',
        'auth.refuses-unauthenticated',
        'auth.refusal-challenge',
        'auth.resource-metadata',
        'upload.receiver-auth',
      ],
      unjudged: {
        roles: H,
        kind: 'gap',
        reason:
          "a harness's discovery from a challenge (metadata, well-known fallbacks, several authorization servers) and an upload binding's own authentication are not driven",
      },
    },
  ),
  ht(
    'auth (b)',
    BOTH,
    'Untrusted issuers, another resource or audience, too narrow a scope, expired tokens, disallowed destinations and credentials leaking between endpoints are refused.',
    {
      checks: [
        'auth.token-validation',
        'auth.token-binding',
        'upload.credentials',
        'upload.receiver-auth',
        'auth.refuses-wrong-credentials',
      ],
      unjudged: {
        roles: H,
        kind: 'not-observable',
        reason: "a client sees a token's audience only inside the token, and its token cache is internal",
      },
    },
  ),
  ht(
    'auth (c)',
    H,
    'A failed bearer or OAuth preset leads to no other identity, no unauthenticated retry, and no discovery overriding the preset.',
    {
      checks: ['auth.no-fallback', 'auth.token-validation'],
    },
  ),
  ht('auth (d)', H, 'A preconfigured TLS client certificate is used without waiting for a challenge.', {
    checks: ['auth.portable-mechanisms'],
    unjudged: {
      kind: 'informative',
      reason:
        'not portable in the snapshot (AHP-AUTH-001: client certificates are deployment-specific); what is judged is that a registration naming one is refused',
    },
  }),
  ht('auth (e)', H, 'Missing or unsupported workload profiles are refused before any token is acquired.', {
    checks: ['auth.portable-mechanisms'],
    unjudged: {
      kind: 'informative',
      reason:
        'not portable in the snapshot (AHP-AUTH-001: workload identity is deployment-specific); a registration naming it is refused',
    },
  }),
  ht(
    'auth (f)',
    H,
    'Acquiring, refreshing and retrying stay within the dispatch deadline, uploads have budgets of their own, both failure policies apply and nothing is delivered late.',
    {
      checks: ['auth.acquisition-deadline', 'auth.no-fallback', 'ti.deadline'],
      unjudged: { kind: 'gap', reason: 'token refresh and the upload budgets are not exercised' },
    },
  ),
  ht(
    'content-upload',
    H,
    'An upload is one raw POST to the exact endpoint with exact framing, follows no redirect, counts only a matching 201 receipt, carries no event credential, and completes before the event that refers to it.',
    {
      checks: ['upload.request', 'upload.no-redirect', 'upload.receipt', 'upload.credentials', 'upload.before-event'],
    },
  ),
];

// ------------------------------------------------------------------ requirements

/** What of a requirement its checks do not judge, and why (our reading of each check's body). */
const REQUIREMENT_UNJUDGED: Readonly<Record<string, Unjudged>> = {
  'AHP-CORE-003': { roles: B, kind: 'gap', reason: 'no check sends a backend a request holding an unknown enum value' },
  'AHP-EXT-001': {
    kind: 'gap',
    reason:
      'that core behaviour never depends on an undeclared extension is not tried: no check sends one and compares',
  },
  'AHP-CORE-004': { roles: H, kind: 'not-observable', reason: RETRY_OPTIONAL },
  'AHP-REG-001': { kind: 'not-observable', reason: BEFORE_USE },
  'AHP-SEC-001': {
    roles: H,
    kind: 'not-observable',
    reason: `${HOST_INTERNAL}; credentials are looked for in replies and uploads over HTTP only`,
  },
  'AHP-CONTENT-002': { roles: H, kind: 'not-observable', reason: CATEGORY_POLICY },
  'AHP-CAP-001': {
    roles: H,
    kind: 'gap',
    reason:
      'enforcement is tried for deny, modify and allow; ask, message, return, flow and inject, where a harness advertises them, are not',
  },
  'AHP-DEC-003': { kind: 'not-observable', reason: HOST_INTERNAL },
  'AHP-AUTH-001': { roles: H, kind: 'gap', reason: 'token refresh is not exercised' },
};

const REQUIREMENT_ROWS: readonly LedgerRow[] = REQUIREMENTS.map((q) => {
  const unjudged = REQUIREMENT_UNJUDGED[q.id];
  return {
    source: { document: 'requirements', item: q.id },
    profile: q.profile,
    roles: q.roles,
    says: q.text,
    checks: CHECKS.filter((c) => c.requirements.includes(q.id)).map((c) => c.id),
    ...(q.coveredBy ? { claimValidation: q.coveredBy } : {}),
    ...(unjudged ? { unjudged } : {}),
  };
});

/** Every row: the requirements, then each profile document in order. */
export const LEDGER: readonly LedgerRow[] = [
  ...REQUIREMENT_ROWS,
  ...BASE_PROFILE,
  ...TOOL_INTERCEPTION,
  ...LIFECYCLE_OBSERVATION,
  ...STDIO_BINDING,
  ...HTTP_BINDING,
];

/** `Base Protocol profile, Observable checks 3.2`; `AHP-CORE-003`. */
export const sourceLabel = (s: LedgerSource): string =>
  s.document === 'requirements' ? s.item : `${LEDGER_DOCUMENTS[s.document].title}, ${s.item}`;

// ------------------------------------------------------------------ the ledger of a scope

/**
 * What a row comes to for one scope (a claim, or `--checks --trace`'s filters):
 * - `judged`: checks of the scope judge all of it;
 * - `partly-judged`: checks judge it, but not all of it (the reason says what not, and why);
 * - `claim-validation`: the claim file is what is judged;
 * - `not-observable`, `gap`, `informative`: no check of the scope judges it (see {@link UnjudgedKind});
 * - `not-claimed`: its profile or role is not in the scope: the certificate says nothing of it.
 */
export type LedgerStatus =
  'judged' | 'partly-judged' | 'claim-validation' | 'not-observable' | 'gap' | 'informative' | 'not-claimed';

export const LEDGER_STATUSES: readonly LedgerStatus[] = [
  'judged',
  'partly-judged',
  'claim-validation',
  'not-observable',
  'gap',
  'informative',
  'not-claimed',
];

export interface LedgerEntry {
  source: LedgerSource;
  profile: ProfileId;
  roles: Role[];
  says: string;
  status: LedgerStatus;
  /** The row's checks that apply in the scope. */
  checks: string[];
  /** How the claim file judges it (claim-validation). */
  claimValidation?: string;
  /** What no check of the scope judges, and why (every status but judged and claim-validation). */
  reason?: string;
  /** For partly-judged: what kind the part no check judges is (the other statuses say it themselves). */
  unjudged?: UnjudgedKind;
}

/** How a reason is introduced where it is shown: `not observable from outside: ...`. */
export const UNJUDGED_WORDS: Readonly<Record<UnjudgedKind | 'not-claimed', string>> = {
  'not-observable': 'not observable from outside',
  gap: 'gap, no check yet',
  informative: 'informative, no duty',
  'not-claimed': 'not claimed',
};

/** The kind of what an entry leaves unjudged, if it leaves anything. */
export function unjudgedKind(e: Pick<LedgerEntry, 'status' | 'unjudged'>): UnjudgedKind | 'not-claimed' | undefined {
  if (e.status === 'partly-judged') return e.unjudged;
  if (e.status === 'judged' || e.status === 'claim-validation') return undefined;
  return e.status;
}

/** Undefined members mean "any": `--checks --trace` without filters is every row with every check. */
export interface LedgerScope {
  snapshot?: SnapshotId;
  roles?: readonly Role[];
  /** Profiles claimed: base, the transports and the capability profiles. */
  profiles?: readonly ProfileId[];
  transports?: readonly Transport[];
  /** stdio lifecycles certified (only narrows checks that run on stdio alone). */
  lifecycles?: readonly Lifecycle[];
}

export interface Ledger {
  snapshot?: SnapshotId;
  /** Each document the entries cite: its title and digest (see {@link LEDGER_DOCUMENTS}). */
  documents: Record<LedgerDocument, { title: string; sha256?: string }>;
  counts: Record<LedgerStatus, number>;
  entries: LedgerEntry[];
}

const byId = new Map(CHECKS.map((c) => [c.id, c]));

const some = <T>(of: readonly T[], scope: readonly T[] | undefined): boolean =>
  scope === undefined || of.some((x) => scope.includes(x));

/** Whether a check can judge anything in the scope (a check of another snapshot's rule does not count). */
export function checkInScope(c: CheckSpec, scope: LedgerScope): boolean {
  if (scope.snapshot !== undefined && c.snapshots !== undefined && !c.snapshots.includes(scope.snapshot)) return false;
  if (!some(c.roles, scope.roles) || !some([c.profile], scope.profiles) || !some(c.transports, scope.transports))
    return false;
  // Lifecycles are stdio's: a check that also runs on a claimed http target applies whatever they are.
  const onHttp = c.transports.includes('http') && some(['http' as Transport], scope.transports);
  return onHttp || scope.lifecycles === undefined || c.lifecycles.some((l) => scope.lifecycles!.includes(l));
}

function outOfScope(row: LedgerRow, scope: LedgerScope): string | undefined {
  if (scope.profiles !== undefined && !scope.profiles.includes(row.profile))
    return `the ${row.profile} profile is not claimed`;
  if (row.roles.length > 0 && !some(row.roles, scope.roles))
    return `a ${row.roles.join(' and ')} duty; the ${scope.roles!.join(' and ')} role is claimed`;
  return undefined;
}

function entryOf(row: LedgerRow, scope: LedgerScope): LedgerEntry {
  const base = {
    source: row.source,
    profile: row.profile,
    roles: [...row.roles],
    says: row.says,
    ...(row.claimValidation ? { claimValidation: row.claimValidation } : {}),
  };
  const away = outOfScope(row, scope);
  if (away) return { ...base, status: 'not-claimed', checks: [], reason: away };
  const checks = row.checks.filter((id) => checkInScope(byId.get(id)!, scope));
  const elsewhere = row.checks.filter((id) => !checks.includes(id));
  // The unjudged part counts where it is a duty of a role in the scope (or of nobody: informative).
  const restRoles = row.unjudged?.roles ?? row.roles;
  const rest = restRoles.length === 0 || some(restRoles, scope.roles) ? row.unjudged : undefined;
  if (checks.length > 0)
    return rest
      ? { ...base, status: 'partly-judged', checks, reason: rest.reason, unjudged: rest.kind }
      : { ...base, status: 'judged', checks };
  if (row.claimValidation) return { ...base, status: 'claim-validation', checks };
  // Checks exist, but none of them for this scope's role, transport, lifecycle or snapshot.
  const only = elsewhere.length
    ? `judged only on targets or snapshots outside this scope (${elsewhere.join(', ')})`
    : undefined;
  if (rest) return { ...base, status: rest.kind, checks, reason: only ? `${rest.reason}; ${only}` : rest.reason };
  return { ...base, status: 'gap', checks, reason: only ?? 'no check yet' };
}

/** The ledger of a scope: every row, with the checks that count there and what it comes to. */
export function ledgerFor(scope: LedgerScope = {}): Ledger {
  const entries = LEDGER.map((row) => entryOf(row, scope));
  const counts = Object.fromEntries(LEDGER_STATUSES.map((s) => [s, 0])) as Record<LedgerStatus, number>;
  for (const e of entries) counts[e.status]++;
  const documents = Object.fromEntries(
    Object.entries(LEDGER_DOCUMENTS).map(([id, d]) => [
      id,
      { title: d.title, ...(d.sha256 ? { sha256: d.sha256 } : {}) },
    ]),
  ) as Ledger['documents'];
  return { ...(scope.snapshot ? { snapshot: scope.snapshot } : {}), documents, counts, entries };
}

/** The scope of a claim: its roles, base plus its transports and capability profiles, its snapshot. */
export function claimScope(claim: {
  snapshot: SnapshotId;
  roles: readonly Role[];
  transports: readonly Transport[];
  profiles: readonly string[];
  lifecycles?: readonly Lifecycle[];
}): LedgerScope {
  const profiles = [
    'base',
    ...claim.transports,
    ...claim.profiles.filter((p) => p === 'tool-interception' || p === 'lifecycle-observation'),
  ] as ProfileId[];
  return {
    snapshot: claim.snapshot,
    roles: claim.roles,
    profiles,
    transports: claim.transports,
    ...(claim.lifecycles?.length ? { lifecycles: claim.lifecycles } : {}),
  };
}
