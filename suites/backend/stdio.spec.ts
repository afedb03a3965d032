// stdio binding profile, backend side (AHP-STDIO-001). Other checks read stdout leniently
// (see findObject); these judge the framing itself.
import { HARMLESS_TOOL, interceptRequest, observeNotification, toolBeforeEvent } from '../../src/checks/probes.js';
import type { BackendSession } from '../support/backend-session.js';
import { check, test } from '../support/fixtures.js';
import { clip, describeReply } from '../support/expect.js';

/** After a reply, nothing more may come: wait a short window for stray lines. */
const SETTLE_MS = 250;

test(...check('stdio.framing', async ({ backend, judge, target }) => {
  const req = interceptRequest(toolBeforeEvent(HARMLESS_TOOL));
  const reply = await backend.request(req);
  judge.evidence({ sent: req, received: describeReply(reply), expected: 'one complete JSON-RPC object on one LF-terminated line' });
  const oversize = reply.kind === 'reply' ? reply.framing?.oversize ?? 0 : reply.oversize ?? 0;
  if (oversize) return judge.fail(`${oversize} stdout line(s) over the line size bound`);
  if (reply.kind === 'none') return judge.fail(`no reply line: ${reply.why}`);
  if (reply.framing?.multiLine) return judge.fail(`the reply spans several lines (pretty-printed or with raw newlines): ${clip(reply.raw, 200)}`);
  if (reply.parseError !== undefined) return judge.fail(`no stdout line holds one JSON object (${reply.parseError}): ${clip(reply.raw, 200)}`);
  const after = target.lifecycle === 'per_event' ? reply.extraLines ?? [] : await strayLines(backend);
  if (after.length) return judge.fail(`more stdout lines followed the one reply: ${clip(after.join(' | '), 300)}`);
}));

test(...check('stdio.stdout-clean', async ({ backend, judge, target }) => {
  const req = interceptRequest(toolBeforeEvent(HARMLESS_TOOL));
  judge.evidence({ sent: req, expected: 'nothing but protocol messages on stdout (diagnostics belong on stderr)' });
  if (target.lifecycle !== 'per_event') {
    // Before anything is sent, a conforming backend writes nothing on stdout.
    const p = await backend.process();
    const early = await p.nextLine(Math.min(500, backend.timeoutMs));
    if (early.kind === 'line') return judge.fail(`stdout carried output before any request: ${clip(early.text, 200)}`);
  }
  const reply = await backend.request(req);
  const skipped = reply.kind === 'reply' ? reply.framing?.skipped ?? [] : reply.skipped ?? [];
  if (skipped.length) return judge.fail(`non-protocol output on stdout before the reply: ${clip(skipped.join(' | '), 300)}`);
  if (reply.kind === 'reply' && reply.parseError !== undefined) return judge.fail(`a non-protocol line on stdout: ${clip(reply.raw, 200)}`);
  const after = target.lifecycle === 'per_event' ? reply.kind === 'reply' ? reply.extraLines ?? [] : [] : await strayLines(backend);
  const garbage = after.filter((l) => !l.trimStart().startsWith('{'));
  if (garbage.length) return judge.fail(`non-protocol output on stdout after the reply: ${clip(garbage.join(' | '), 300)}`);
}));

test(...check('stdio.persistent-exchanges', async ({ backend, judge }) => {
  const n = 5;
  for (let i = 1; i <= n; i++) {
    const req = interceptRequest(toolBeforeEvent(HARMLESS_TOOL));
    const reply = await backend.request(req);
    judge.evidence({ sent: req, received: describeReply(reply), expected: `${n} sequential replies from one long-lived process` });
    if (reply.kind === 'none') return judge.fail(`exchange ${i} of ${n} got no reply: ${reply.why}`);
    if (backend.restarts > 0) return judge.fail(`the process ended after exchange ${i - 1} of ${n}; a persistent backend serves many messages until end of input`);
    const id = (reply.value as { id?: unknown } | undefined)?.id;
    if (id !== req.id) judge.note(`exchange ${i}: reply id ${JSON.stringify(id)} differs from the request id (judged by ti.response-id)`);
  }
}));

test(...check('stdio.per-event-exit', async ({ backend, judge }) => {
  const req = interceptRequest(toolBeforeEvent(HARMLESS_TOOL));
  const reply = await backend.request(req);
  judge.evidence({ sent: req, received: describeReply(reply), expected: 'exactly one reply, then exit status 0' });
  if (reply.kind === 'none') return judge.fail(`no reply before the process ended: ${reply.why}`);
  if (reply.exit === 'timeout' || reply.exit === undefined) return judge.fail('the process did not exit after its reply and end of input');
  if (reply.exit.code !== 0) return judge.fail(`the process exited with ${reply.exit.code === null ? `signal ${reply.exit.signal}` : `status ${reply.exit.code}`} after its reply`);
  const note = observeNotification(toolBeforeEvent(HARMLESS_TOOL));
  const outcome = await backend.notify(note);
  if (!outcome.silent) return judge.fail(`a notification produced output: ${clip(outcome.got ?? '', 200)}`);
  const exit = outcome.reply?.exit;
  if (exit === 'timeout' || exit === undefined) return judge.fail('the process did not exit after a notification and end of input');
}));

async function strayLines(backend: BackendSession): Promise<string[]> {
  const p = await backend.process();
  const out: string[] = [];
  for (;;) {
    const line = await p.nextLine(SETTLE_MS);
    if (line.kind !== 'line') return out;
    out.push(line.text);
  }
}
