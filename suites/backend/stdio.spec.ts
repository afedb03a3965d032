// stdio binding profile, backend side (AHP-STDIO-001).
import { HARMLESS_TOOL, interceptRequest, observeNotification, toolBeforeEvent } from '../../src/checks/probes.js';
import { check } from '../support/fixtures.js';
import { clip, describeReply } from '../support/expect.js';

/** After a reply, nothing more may come: wait a short window for stray lines. */
const SETTLE_MS = 250;

check('stdio.framing', async ({ backend, judge, target }) => {
  const req = interceptRequest(toolBeforeEvent(HARMLESS_TOOL));
  const reply = await backend.request(req);
  judge.evidence({ sent: req, expected: 'one complete JSON-RPC object on one LF-terminated line' });
  if (reply.kind === 'none') judge.fail(`no reply line: ${reply.why}`);
  if (reply.parseError !== undefined) judge.fail(`the first stdout line is not one JSON object (${reply.parseError}): ${clip(reply.raw, 200)}`);
  const stray = target.lifecycle === 'per_event' ? reply.extraLines ?? [] : await strayLines(backend);
  if (stray.length) judge.fail(`more stdout lines followed the reply: ${clip(stray.join(' | '), 300)}`);
});

check('stdio.stdout-clean', async ({ backend, judge, target }) => {
  if (target.lifecycle === 'per_event') {
    // Start-up output shows up as lines before (or instead of) the reply.
    const req = interceptRequest(toolBeforeEvent(HARMLESS_TOOL));
    const reply = await backend.request(req);
    judge.evidence({ sent: req, expected: 'only the reply on stdout' });
    if (reply.kind === 'reply' && (reply.parseError !== undefined || (reply.extraLines ?? []).length)) {
      judge.fail(`stdout holds more than the reply: ${clip([reply.raw, ...(reply.extraLines ?? [])].join(' | '), 300)}`);
    }
    return;
  }
  const p = await backend.process();
  // Before anything is sent, a conforming backend writes nothing on stdout.
  const early = await p.nextLine(Math.min(500, backend.timeoutMs));
  if (early.kind === 'line') judge.fail(`stdout carried output before any request: ${clip(early.text, 200)}`, { expected: 'no banner or log on stdout' });
  const req = interceptRequest(toolBeforeEvent(HARMLESS_TOOL));
  const reply = await backend.request(req);
  if (reply.kind === 'reply' && reply.parseError !== undefined) judge.fail(`a non-protocol line on stdout: ${clip(reply.raw, 200)}`);
  const stray = await strayLines(backend);
  if (stray.length) judge.fail(`non-protocol output on stdout after the reply: ${clip(stray.join(' | '), 300)}`);
});

check('stdio.persistent-exchanges', async ({ backend, judge }) => {
  const n = 5;
  for (let i = 1; i <= n; i++) {
    const req = interceptRequest(toolBeforeEvent(HARMLESS_TOOL));
    const reply = await backend.request(req);
    judge.evidence({ sent: req, received: describeReply(reply), expected: `${n} sequential replies from one process, each with the matching id` });
    if (reply.kind === 'none') judge.fail(`exchange ${i} of ${n} on the same process got no reply: ${reply.why}`);
    const id = (reply.value as { id?: unknown } | undefined)?.id;
    if (reply.parseError === undefined && id !== req.id) judge.fail(`exchange ${i}: the reply line carries id ${JSON.stringify(id)}, expected ${JSON.stringify(req.id)}`);
  }
});

check('stdio.per-event-exit', async ({ backend, judge }) => {
  const req = interceptRequest(toolBeforeEvent(HARMLESS_TOOL));
  const reply = await backend.request(req);
  judge.evidence({ sent: req, received: describeReply(reply), expected: 'exactly one reply line, then exit status 0' });
  if (reply.kind === 'none') judge.fail(`no reply line before the process ended: ${reply.why}`);
  if ((reply.extraLines ?? []).length) judge.fail(`${(reply.extraLines ?? []).length + 1} lines instead of one`);
  if (reply.exit === 'timeout' || reply.exit === undefined) judge.fail('the process did not exit after its reply and end of input');
  if (reply.exit.code !== 0) judge.fail(`the process exited with ${reply.exit.code === null ? `signal ${reply.exit.signal}` : `status ${reply.exit.code}`} after its reply`);
  const note = observeNotification(toolBeforeEvent(HARMLESS_TOOL));
  const outcome = await backend.notify(note);
  if (!outcome.silent) judge.fail(`a notification produced output: ${clip(outcome.got ?? '', 200)}`);
  const exit = outcome.reply?.exit;
  if (exit === 'timeout' || exit === undefined) judge.fail('the process did not exit after a notification and end of input');
});

async function strayLines(backend: { process(): Promise<{ nextLine(ms: number): Promise<{ kind: string; text?: string }> }> }): Promise<string[]> {
  const p = await backend.process();
  const out: string[] = [];
  for (;;) {
    const line = await p.nextLine(SETTLE_MS);
    if (line.kind !== 'line') return out;
    out.push(line.text ?? '');
  }
}
