// Content boundaries, backend side (issue 14): for each boundary a claim gives a content
// sample of (`backend.samples.content`), the runner plays the harness, sends the sample's
// canonical event (suites/support/content-events.ts) and judges every modify it gets as a
// conforming harness would: applyModifyResponse under the host-resolved edit context and
// the claim's snapshot's schemas (seed "Canonical content and edit checks" 1-8,
// "Boundary-specific modification values").
//
// The effects are judged here; a result is judged on them only when the reply is valid as a
// whole for the snapshot (requireWholeReply: a harness acts on no part of a reply it cannot
// accept). What is wrong with the envelope (jsonrpc, id, protocolVersion, effects left out
// where the snapshot allows it) is still the base and ti checks' own finding.
import { BOUNDARIES, contentCheckId, type Boundary, type ContentSample } from '../../src/checks/boundaries.js';
import { applyModifyResponse, EditRejected } from '../../src/protocol/edit.js';
import { isObject } from '../../src/protocol/json.js';
import { ourSchemas } from '../../src/protocol/schema-set.js';
import type { SnapshotId } from '../../src/protocol/snapshots.js';
import type { BackendSession } from '../support/backend-session.js';
import { check, test, type Judge } from '../support/check.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import {
  contentProbe,
  elicitResultOf,
  formRequestOf,
  type ContentProbe,
  type ContentProbeOptions,
} from '../support/content-events.js';
import { clip, eachProbe, quoted, received, replyObject, requireWholeReply } from '../support/expect.js';

type Obj = Record<string, unknown>;

/** The samples of this boundary in the claim (the plan makes the check not applicable without one). */
function samplesOf(claim: { backend?: { samples: { content: ContentSample[] } } }, b: Boundary): ContentSample[] {
  return (claim.backend?.samples.content ?? []).filter((s) => s.event === b.event);
}

/** What came back for a probe: the effects of a success result, or `error` for a JSON-RPC error. */
async function ask(
  backend: BackendSession,
  probe: ContentProbe,
  j: Judge,
  expected: string,
  snapshot: SnapshotId,
): Promise<{ error: true } | { error: false; effects: unknown[] }> {
  const reply = await backend.request(probe.request);
  const v = replyObject(j, reply, probe.request, expected);
  if (isObject(v.error)) return { error: true };
  if (!isObject(v.result))
    j.fail(`expected ${expected}, got a response without a result object: ${clip(quoted(v), 200)}`, {
      sent: probe.request,
      received: received(reply),
      expected,
    });
  requireWholeReply(j, reply, probe.request, snapshot);
  const result = v.result as Obj;
  // A result may leave effects out where the snapshot allows it (ti.result-valid judges that): no effect.
  if (!('effects' in result)) return { error: false, effects: [] };
  if (!Array.isArray(result.effects))
    j.fail(`the result's effects are not a list: ${clip(quoted(result.effects), 200)}`, {
      sent: probe.request,
      received: received(reply),
      expected,
    });
  return { error: false, effects: result.effects as unknown[] };
}

const modifiesOf = (effects: unknown[]): unknown[] => effects.filter((e) => isObject(e) && e.type === 'modify');

/** Applies the modify effects as a harness would; the EditRejected message, or the effective target values. */
function apply(
  probe: ContentProbe,
  modifies: unknown[],
  snapshot: SnapshotId,
): { rejected: string } | { value: Record<string, unknown> } {
  try {
    return { value: applyModifyResponse(probe.current, modifies, { ...probe.context, schemas: ourSchemas(snapshot) }) };
  } catch (err) {
    if (err instanceof EditRejected) return { rejected: err.message };
    throw err;
  }
}

/**
 * Where an effective elicitation answer breaks the form the server asked with: a host
 * validates the edited content against the original requestedSchema before it serializes
 * the result (seed "Boundary-specific modification values").
 */
function formProblems(sample: ContentSample, content: unknown): string[] {
  const schema = formRequestOf(sample).requestedSchema as object;
  const validateForm = new Ajv2020({ strict: false, validateFormats: false, allErrors: true }).compile(schema);
  if (validateForm(content)) return [];
  return (validateForm.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}`.trim());
}

const sampleName = (s: ContentSample, i: number): string => `sample ${i + 1} (${s.event})`;

for (const b of BOUNDARIES) {
  // ------------------------------------------------------------ canonical-edits
  test(
    ...check(contentCheckId(b, 'canonical-edits'), async ({ claim, snapshot, backend, judge }) => {
      const samples = samplesOf(claim, b);
      if (samples.length === 0) judge.notApplicable(`the claim gives no content sample of ${b.event}`);
      const expected = b.target
        ? `at least one modify of ${b.target} that a harness applies (body view, replace and merge advertised): a value of the boundary's kind, judged by applyModifyResponse`
        : `no modify effect: ${b.event} has no modification target`;
      await eachProbe(
        judge,
        samples.map((s, i) => ({ s, i })),
        expected,
        ({ s, i }) => sampleName(s, i),
        async ({ s }, j) => {
          const probe = contentProbe(s, { view: 'body' }, snapshot);
          // A declined or cancelled elicitation result has no answer content to edit.
          const none = !b.target
            ? `${b.event} has no modification target`
            : b.family === 'mcp-result' && elicitResultOf(s).action !== 'accept'
              ? `the ${String(elicitResultOf(s).action)} result has no answer content`
              : undefined;
          const got = await ask(backend, probe, j, expected, snapshot);
          if (got.error) {
            if (none) return j.note('answered with a JSON-RPC error, which modifies nothing');
            return j.fail(
              `the claim gives this content sample, so the backend edits it, but it answered with a JSON-RPC error`,
            );
          }
          const modifies = modifiesOf(got.effects);
          if (none || !b.target) {
            if (modifies.length)
              j.fail(`${modifies.length} modify effect(s), but ${none}: ${clip(quoted(modifies), 300)}`);
            return j.note('no modify effect');
          }
          if (modifies.length === 0)
            j.fail(
              `the claim gives this content sample, so the backend edits it, but the result holds no modify effect: ${clip(quoted(got.effects), 200)}`,
            );
          const applied = apply(probe, modifies, snapshot);
          if ('rejected' in applied) j.fail(`a harness must reject these modify effects: ${applied.rejected}`);
          else {
            // Event-specific roles are the caller's to check (seed "Checker scope"): a user
            // message event carries user messages only, an outbound one assistant messages.
            if (b.family === 'mcp-result') {
              const problems = formProblems(s, applied.value[b.target]);
              if (problems.length)
                j.fail(
                  `the effective answer does not fit the form the server asked with, so a harness rejects it: ${problems.join('; ')}`,
                );
            }
            const role = b.messageRole;
            const value = applied.value[b.target];
            if (role && Array.isArray(value)) {
              const wrong = value.filter((m) => isObject(m) && m.role !== role);
              if (wrong.length)
                j.fail(
                  `the effective ${b.target} holds message(s) with role ${wrong.map((m) => quoted((m as Obj).role)).join(', ')}; ${b.event} carries ${role} messages only`,
                );
            }
          }
          j.note(`${modifies.length} modify effect(s) applied: ${clip(quoted(modifies), 200)}`);
        },
      );
    }),
  );

  // ------------------------------------------------------------ hidden-untouched
  test(
    ...check(contentCheckId(b, 'hidden-untouched'), async ({ claim, snapshot, backend, judge }) => {
      const samples = samplesOf(claim, b);
      if (samples.length === 0) judge.notApplicable(`the claim gives no content sample of ${b.event}`);
      const views: ContentProbeOptions[] =
        b.family === 'workspace'
          ? [{ view: 'metadata' }]
          : b.family === 'messages'
            ? [
                { view: 'metadata', attachment: true },
                { view: 'omit', attachment: true },
                { view: 'body', attachment: true },
              ]
            : b.family === 'text-parts'
              ? [{ view: 'metadata' }, { view: 'omit' }, { view: 'body', hiddenPart: true }]
              : [{ view: 'metadata' }, { view: 'omit' }];
      const expected =
        'no modify a harness must reject: none of a target that is not body-selected, no whole-list replacement over hidden text, attachments resubmitted unchanged or dropped (applyModifyResponse under the view of each probe)';
      await eachProbe(
        judge,
        samples.flatMap((s, i) => views.map((o) => ({ s, i, probe: contentProbe(s, o, snapshot) }))),
        expected,
        ({ s, i, probe }) => `${sampleName(s, i)}, ${probe.label}`,
        async ({ probe }, j) => {
          const got = await ask(backend, probe, j, expected, snapshot);
          if (got.error) return j.note('answered with a JSON-RPC error, which modifies nothing');
          const modifies = modifiesOf(got.effects);
          if (modifies.length === 0) return j.note('no modify effect');
          const applied = apply(probe, modifies, snapshot);
          if ('rejected' in applied)
            j.fail(`a harness must reject these modify effects of hidden content: ${applied.rejected}`);
          j.note(`modify effect(s) a harness applies: ${clip(quoted(modifies), 200)}`);
        },
      );
    }),
  );

  // ------------------------------------------------------------ advertised-edits
  test(
    ...check(contentCheckId(b, 'advertised-edits'), async ({ claim, snapshot, backend, judge }) => {
      const samples = samplesOf(claim, b);
      if (samples.length === 0) judge.notApplicable(`the claim gives no content sample of ${b.event}`);
      const ads = b.target ? (['none', 'merge', 'replace'] as const) : (['none'] as const);
      const expected =
        'only advertised effects: no modify where modify is not advertised, only the advertised operation where one is';
      await eachProbe(
        judge,
        samples.flatMap((s, i) => ads.map((a) => ({ s, i, probe: contentProbe(s, { advertised: a }, snapshot) }))),
        expected,
        ({ s, i, probe }) => `${sampleName(s, i)}, ${probe.label}`,
        async ({ probe }, j) => {
          const got = await ask(backend, probe, j, expected, snapshot);
          if (got.error) return j.note('answered with a JSON-RPC error, which returns no effect');
          const caps = (probe.request.params as { capabilities: { effects: string[] } }).capabilities;
          const pairs = probe.context.capabilities;
          const extra = got.effects.filter((e) => {
            if (!isObject(e)) return false;
            if (!caps.effects.includes(String(e.type))) return true;
            return e.type === 'modify' && !pairs.some(([t, o]) => t === e.target && o === e.operation);
          });
          if (extra.length)
            j.fail(
              `effect(s) outside the advertisement ${quoted(caps)}: ${clip(
                quoted(
                  extra.map((e) =>
                    [(e as Obj).type, (e as Obj).target, (e as Obj).operation].filter(Boolean).join('/'),
                  ),
                ),
                300,
              )}`,
            );
          j.note(`only advertised effects (${got.effects.length})`);
        },
      );
    }),
  );
}
