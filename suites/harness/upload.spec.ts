// Content upload, harness side (issue 15 B; spec/draft/content-upload.md@2b5da580, the binary
// upload binding; spec-core 13.5 "content-upload checks"): the harness's upload requests as
// the runner's receiver recorded them, and the events that refer to the uploaded bytes.
// Each check judges one rule of the binding and nothing else, so a harness that breaks one
// rule fails one check (suites/support/upload-scenarios.ts describes the scenario).
import { check, test, type Judge } from '../support/check.js';
import { reportedAs, reportedOutcome, requireUsable, summary } from '../support/harness-observations.js';
import {
  pngPartOf,
  uploadIntercepts,
  uploadRun,
  uploadsOf,
  UPLOAD_STEP,
  type UploadRun,
} from '../support/upload-scenarios.js';
import { REDIRECTED_PREFIX, type UploadRecord } from '../../drivers/upload-receiver.js';
import { isObject } from '../../src/protocol/json.js';
import { together, type HarnessSession } from '../support/harness-session.js';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A run whose adapter ran the upload step; the claim says it uploads, so "unsupported" fails. */
async function usableRun(harness: HarnessSession, judge: Judge, answer: UploadRun['answer']): Promise<UploadRun> {
  return usable(await uploadRun(harness, answer), judge);
}

function usable(u: UploadRun, judge: Judge): UploadRun {
  if (reportedOutcome(u.run, UPLOAD_STEP) === 'unsupported')
    judge.fail('the adapter reports the upload step as unsupported, although the claim says the harness uploads', {
      received: summary(u.run),
      expected: 'harness.uploads: the upload step runs',
    });
  requireUsable(judge, u.run);
  return u;
}

/** What one upload request looked like, for evidence. */
const framing = (r: UploadRecord) => ({
  method: r.method,
  url: r.url,
  contentType: r.contentType,
  contentLength: r.contentLength,
  transferEncoding: r.transferEncoding,
  sha256Header: r.sha256Header,
  bodySize: r.size,
  bodySha256: r.sha256,
  answered: r.status,
});

test.describe('upload (harness)', () => {
  test(
    ...check('upload.request', async ({ harness, judge, spec }) => {
      const u = await usableRun(harness, judge, 'receipt');
      const uploads = uploadsOf(u);
      if (!uploads.length)
        judge.fail('the image attachment was not uploaded: the receiver got no POST', {
          sent: { endpoint: u.endpointPath, file: u.files.png },
          received: summary(u.run),
          expected: spec.expectation,
        });
      for (const r of uploads) {
        const problems: string[] = [];
        if (r.url !== u.endpointPath)
          problems.push(`it went to ${JSON.stringify(r.url)}, not the configured ${JSON.stringify(u.endpointPath)}`);
        if (r.contentType !== 'application/octet-stream')
          problems.push(`Content-Type is ${JSON.stringify(r.contentType ?? null)}, not application/octet-stream`);
        if (r.transferEncoding !== undefined)
          problems.push(`it has Transfer-Encoding ${JSON.stringify(r.transferEncoding)}`);
        if (r.contentLength === undefined) problems.push('it has no Content-Length');
        else if (r.contentLength !== String(r.size))
          problems.push(`Content-Length is ${JSON.stringify(r.contentLength)}, the body had ${r.size} bytes`);
        if (r.sha256Header === undefined) problems.push('it has no AHP-Content-SHA256');
        else if (!SHA256_HEX.test(r.sha256Header))
          problems.push(`AHP-Content-SHA256 ${JSON.stringify(r.sha256Header)} is not 64 lowercase hex digits`);
        else if (r.sha256Header !== r.sha256) problems.push('AHP-Content-SHA256 is not the SHA-256 of the body');
        if (problems.length)
          judge.fail(`an upload request is not framed as the binding says: ${problems.join('; ')}`, {
            received: framing(r),
            expected: spec.expectation,
          });
      }
      if (!uploads.some((r) => r.sha256 === u.files.png.sha256 && r.size === u.files.png.size))
        judge.fail("no upload carried the image's exact bytes (raw, not encoded or converted)", {
          sent: { file: u.files.png },
          received: uploads.map(framing),
          expected: spec.expectation,
        });
      // One POST per media attachment (contract 2, section 10: its bytes read once, one POST):
      // once an upload of the image is confirmed, its bytes are not POSTed again. A later POST
      // counts only after a receipt the receiver sent within the binding's timeout, so a retry
      // by a harness that gave up on a slow receiver is never taken for a second upload.
      const image = uploads.filter((r) => r.sha256 === u.files.png.sha256);
      const confirmedBefore = (r: UploadRecord, i: number): boolean =>
        image
          .slice(0, i)
          .some(
            (e) =>
              e.status === 201 &&
              e.receipt?.sha256 === e.sha256 &&
              e.answeredAt !== undefined &&
              e.answeredAt <= r.t &&
              e.answeredAt - e.t <= harness.timeoutMs,
          );
      const again = image.filter((r, i) => i > 0 && confirmedBefore(r, i));
      if (again.length)
        judge.fail(
          `the image was uploaded ${image.length} times: ${again.length} POST(s) of its bytes came after an earlier one was confirmed (one POST per media attachment)`,
          { sent: { file: u.files.png }, received: image.map(framing), expected: spec.expectation },
        );
      else if (image.length > 1)
        judge.note(
          `the image's bytes were POSTed ${image.length} times, each after no timely confirmation (taken as retries)`,
        );
      judge.evidence({
        sent: { endpoint: u.endpointPath, file: u.files.png },
        received: uploads.map(framing),
        expected: spec.expectation,
      });
    }),
  );

  test(
    ...check('upload.no-redirect', async ({ harness, judge, spec }) => {
      const u = await usableRun(harness, judge, 'redirect');
      const followed = u.records.filter((r) => r.url.startsWith(REDIRECTED_PREFIX));
      if (!uploadsOf(u).length)
        judge.incomplete('the harness made no upload, so whether it follows a redirected one could not be seen', {
          received: summary(u.run),
        });
      if (followed.length)
        judge.fail(`the harness followed the upload's 307: ${followed.length} request(s) reached the redirect target`, {
          received: followed.map(framing),
          expected: spec.expectation,
        });
      judge.evidence({ received: uploadsOf(u).map(framing), expected: spec.expectation });
    }),
  );

  test(
    ...check('upload.receipt', async ({ harness, judge, spec }) => {
      // The three answers that confirm nothing, each in its own run, all at once.
      // (together: none is left running behind a failure of another.)
      const raw = await together((['accepted', 'no-content', 'mismatch'] as const).map((a) => uploadRun(harness, a)));
      const runs = raw.map((u) => usable(u, judge));
      for (const u of runs) {
        const uploads = uploadsOf(u);
        if (!uploads.length)
          judge.incomplete(
            `the harness made no upload in run "${u.run.label}", so what it does with the answer could not be seen`,
            {
              received: summary(u.run),
            },
          );
        const answered = `an upload answered ${uploads[0]!.status}${u.answer === 'mismatch' ? ' with a receipt that does not match the bytes' : ''}`;
        // A reference for the image in any intercept is unconfirmed: nothing confirmed it.
        const refs = uploadIntercepts(u)
          .map((f) => pngPartOf(f))
          .filter((p) => p !== undefined && isObject(p.body));
        const mismatched = uploads.flatMap((r) => (r.receipt ? [r.receipt.ref] : []));
        const leaked = mismatched.filter(
          (ref) =>
            uploadIntercepts(u).some((f) => (f.text ?? '').includes(ref)) ||
            JSON.stringify(u.run.effective).includes(ref),
        );
        if (refs.length || leaked.length)
          judge.fail(
            `after ${answered}, an event carried a reference for the image: the upload was taken as confirmed`,
            {
              received: { parts: refs, unconfirmedRefs: leaked, ...summary(u.run) },
              expected: spec.expectation,
            },
          );
        if (u.run.effective[UPLOAD_STEP] !== undefined || reportedOutcome(u.run, UPLOAD_STEP) === 'delivered')
          judge.fail(`after ${answered}, the fail-closed step was delivered (${reportedAs(u.run, UPLOAD_STEP)})`, {
            received: summary(u.run),
            expected: spec.expectation,
          });
      }
      judge.evidence({
        received: runs.map((u) => ({
          answer: u.answer,
          uploads: uploadsOf(u).map(framing),
          outcome: reportedAs(u.run, UPLOAD_STEP),
        })),
        expected: spec.expectation,
      });
    }),
  );

  test(
    ...check('upload.before-event', async ({ harness, judge, spec }) => {
      const u = await usableRun(harness, judge, 'receipt');
      const confirmed = uploadsOf(u).filter((r) => r.receipt && r.sha256 === u.files.png.sha256);
      const events = uploadIntercepts(u);
      if (!confirmed.length && !events.length)
        judge.incomplete('the harness neither uploaded the image nor sent the event, so the order could not be seen', {
          received: summary(u.run),
        });
      if (!events.length)
        judge.incomplete(
          `the event referring to the image never reached the interceptor (${reportedAs(u.run, UPLOAD_STEP)})`,
          {
            received: summary(u.run),
          },
        );
      const first = events[0]!;
      const late = confirmed.filter((r) => r.answeredAt === undefined || r.answeredAt > first.t);
      if (!confirmed.length || late.length)
        judge.fail(
          confirmed.length
            ? `the event arrived before the image's upload was confirmed (${(late[0]!.t - first.t).toFixed(1)} ms after the event the upload began)`
            : 'the event arrived but the image was never uploaded with its exact bytes before it',
          { received: { uploads: uploadsOf(u).map(framing), event: first.text }, expected: spec.expectation },
        );
      const refs = new Set(confirmed.map((r) => r.receipt!.ref));
      for (const f of events) {
        const part = pngPartOf(f);
        const ref = part && isObject(part.body) ? part.body.ref : undefined;
        if (typeof ref !== 'string' || !refs.has(ref))
          judge.fail("the event's image part does not carry body {ref} with the receipt's ref", {
            received: part ?? f.text,
            expected: `body {ref: ${JSON.stringify([...refs][0])}} (the receipt's ref)`,
          });
      }
      judge.evidence({
        received: { uploads: uploadsOf(u).map(framing), part: pngPartOf(first) },
        expected: spec.expectation,
      });
    }),
  );

  test(
    ...check('upload.credentials', async ({ harness, judge, spec }) => {
      const u = await usableRun(harness, judge, 'receipt');
      if (!uploadsOf(u).length)
        judge.incomplete('the harness made no upload, so which credentials it sends there could not be seen', {
          received: summary(u.run),
        });
      const leaked = u.records.filter((r) => r.secretSeen);
      if (leaked.length)
        judge.fail("the event endpoint's bearer token was sent to the upload endpoint, which has no upload.auth", {
          received: leaked.map((r) => ({ ...framing(r), authorizationHeaders: r.authorizationCount })),
          expected: spec.expectation,
        });
      const other = u.records.filter((r) => r.authorizationCount > 0);
      if (other.length)
        judge.note(`${other.length} upload request(s) had an Authorization header without the event token`);
      judge.evidence({
        received: u.records.map((r) => ({ ...framing(r), authorizationHeaders: r.authorizationCount })),
        expected: spec.expectation,
      });
    }),
  );

  test(
    ...check('upload.media', async ({ harness, judge, spec }) => {
      const u = await usableRun(harness, judge, 'receipt');
      const uploads = uploadsOf(u);
      const inline = [u.files.json, u.files.text].filter((f) => uploads.some((r) => r.sha256 === f.sha256));
      if (inline.length)
        judge.fail(
          `a ${inline.map((f) => f.mediaType).join(' and a ')} attachment was uploaded: text and JSON stay inline`,
          {
            received: uploads.map(framing),
            expected: spec.expectation,
          },
        );
      if (!uploads.some((r) => r.sha256 === u.files.png.sha256))
        judge.incomplete(
          'the image was not uploaded either, so what the harness selects for upload could not be seen',
          {
            received: uploads.map(framing),
          },
        );
      judge.evidence({ sent: u.files, received: uploads.map(framing), expected: spec.expectation });
    }),
  );
});
