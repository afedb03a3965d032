// stdio binding profile, backend side (AHP-STDIO-001). Other checks read stdout leniently
// (see drivers/stdio-framing.ts); these judge the framing itself.
import type { Exit, StdioReply } from '../../drivers/channel.js';
import { isObject } from '../../src/protocol/json.js';
import { PersistentStdioChannel } from '../../drivers/stdio-channel.js';
import {
  deliberately,
  HARMLESS_TOOL,
  interceptRequest,
  newId,
  observeNotification,
  sampleRequest,
  toolBeforeEvent,
  type DeliberateProbe,
} from '../../src/checks/probes.js';
import type { BackendSession, Reply } from '../support/backend-session.js';
import { check, test } from '../support/check.js';
import { clip, describeReply, received } from '../support/expect.js';

/**
 * After a reply, nothing more may come: wait a short window for stray lines. Not ended by a
 * follow-up request: its reply bounds only what came before it, and an object line that is
 * not its reply (a second reply, or its reply under a wrong id) needs a clock to tell apart.
 * A stray line that comes later is missed (a pass), never a false failure.
 */
const SETTLE_MS = 250;

// These checks run on stdio targets only (src/checks/catalogue.ts), so their replies are stdio's.
function stdioReply(r: Reply): StdioReply {
  if (r.transport !== 'stdio') throw new Error(`a stdio check got a ${r.transport} reply`);
  return r;
}

/** The persistent process's channel, for the checks that read its stdout between exchanges. */
function stream(backend: BackendSession): PersistentStdioChannel {
  if (!(backend.channel instanceof PersistentStdioChannel)) throw new Error('not a persistent stdio session');
  return backend.channel;
}

const exitOf = (r: Reply): Exit | undefined => ('exit' in r ? r.exit : undefined);

test(
  ...check('stdio.framing', async ({ backend, judge, target }) => {
    const req = interceptRequest(toolBeforeEvent(HARMLESS_TOOL));
    const reply = stdioReply(await backend.request(req));
    judge.evidence({
      sent: req,
      received: describeReply(reply),
      expected: 'one complete JSON-RPC object on one LF-terminated line',
    });
    const oversize = reply.kind === 'reply' ? (reply.framing?.oversize ?? 0) : reply.oversize;
    if (oversize) return judge.fail(`${oversize} stdout line(s) over the line size bound`);
    if (reply.kind === 'none') return judge.fail(`no reply line: ${reply.why}`);
    if (reply.framing?.multiLine)
      return judge.fail(`the reply spans several lines (pretty-printed or with raw newlines): ${clip(reply.raw, 200)}`);
    if (reply.parseError !== undefined)
      return judge.fail(`no stdout line holds one JSON object (${reply.parseError}): ${clip(reply.raw, 200)}`);
    const after =
      target.lifecycle === 'per_event' && reply.lifecycle === 'per_event'
        ? reply.extraLines
        : await strayLines(backend);
    if (after.length) return judge.fail(`more stdout lines followed the one reply: ${clip(after.join(' | '), 300)}`);
  }),
);

/** stdout lines around a reply that are not protocol messages. */
function nonProtocol(r: Reply): string[] {
  const reply = stdioReply(r);
  if (reply.kind === 'none') return reply.skipped;
  const extra = reply.lifecycle === 'per_event' ? reply.extraLines : [];
  const lines = [...(reply.framing?.skipped ?? []), ...extra.filter((l) => !l.trimStart().startsWith('{'))];
  if (reply.parseError !== undefined) lines.push(reply.raw);
  return lines;
}

test(
  ...check('stdio.stdout-clean', async ({ backend, judge, target }) => {
    const persistent = target.lifecycle !== 'per_event';
    const sent: unknown[] = [];
    const got: unknown[] = [];
    const expected =
      'nothing but protocol messages on stdout, on the success path and on every error path (diagnostics belong on stderr)';
    const garbage: string[] = [];
    const look = (reply: Reply, what: string): void => {
      got.push(received(reply));
      for (const line of nonProtocol(reply))
        garbage.push(`${persistent ? 'before the reply to ' : 'with '}${what}: ${clip(line, 200)}`);
    };
    try {
      if (persistent) {
        // Before anything is sent, a conforming backend writes nothing on stdout. (Lines that
        // are not objects show up before the first reply anyway; this window also catches
        // an object written unasked, which the reader would take for that reply.)
        const p = await stream(backend).process();
        const early = await p.nextLine(Math.min(500, backend.timeoutMs));
        if (early.kind === 'line') garbage.push(`before any request: ${clip(early.text, 200)}`);
      }
      const harmlessCall = interceptRequest(toolBeforeEvent(HARMLESS_TOOL));
      type Req = Record<string, unknown> & { params: Record<string, unknown> & { event: Record<string, unknown> } };
      const wrongVersion = interceptRequest(toolBeforeEvent(HARMLESS_TOOL)) as Req;
      wrongVersion.params.protocolVersion = '1999-01-01';
      const unknownEvent = interceptRequest(toolBeforeEvent(HARMLESS_TOOL)) as Req;
      unknownEvent.params.event.type = 'com.example.unknown.event';
      const requests: { what: string; message: Record<string, unknown> | DeliberateProbe }[] = [
        { what: 'a harmless intercept', message: harmlessCall },
        {
          what: 'an unknown method',
          message: deliberately(
            { jsonrpc: '2.0', id: newId('bogus'), method: 'hooks/bogus', params: { protocolVersion: 'draft' } },
            'an unknown method, to see the error path',
          ),
        },
        {
          what: 'an unsupported protocolVersion',
          message: deliberately(wrongVersion, 'an unsupported protocolVersion, to see the error path'),
        },
        {
          what: 'an unknown event type',
          message: deliberately(unknownEvent, 'an unknown event type, to see the error path'),
        },
        {
          what: 'params without an event',
          message: deliberately(
            {
              jsonrpc: '2.0',
              id: newId('no-event'),
              method: 'hooks/intercept',
              params: { protocolVersion: 'draft', capabilities: { effects: ['deny'] } },
            },
            'params without an event, to see the error path',
          ),
        },
      ];
      for (const r of requests) {
        sent.push('deliberate' in r.message ? r.message.message : r.message);
        look(await backend.request(r.message), r.what);
      }
      // Unparseable input: no reply or a -32700 error; either way nothing else on stdout.
      const garbageInput = '{"jsonrpc": "2.0", "id": "x", "method": ';
      sent.push(garbageInput);
      if (persistent) {
        // A follow-up request whose reply ends the search, so silence costs no waiting.
        const follow = interceptRequest(toolBeforeEvent(HARMLESS_TOOL, newId('follow-up')));
        sent.push(follow);
        const s = stream(backend);
        const p = await s.process();
        backend.transcript.record({
          dir: 'note',
          channel: 'stdio',
          note: 'probe is wrong on purpose: bytes that do not parse, to see the error path; then a follow-up request',
        });
        p.send(`${garbageInput}\n`);
        p.send(`${JSON.stringify(follow)}\n`);
        let reply = await s.next(p);
        look(reply, 'unparseable input and a follow-up request');
        if (reply.kind === 'reply' && isObject(reply.value) && reply.value.id !== follow.id) {
          reply = await s.next(p);
          look(reply, 'the follow-up request after unparseable input');
        }
      } else {
        look(
          await backend.request(deliberately(garbageInput, 'the bytes do not parse as JSON, to see the error path')),
          'unparseable input',
        );
      }
      // A malformed notification: no reply, and no diagnostics on stdout either.
      const note = observeNotification(toolBeforeEvent(HARMLESS_TOOL)) as Req;
      delete (note.params as Record<string, unknown>).event;
      sent.push(note);
      const outcome = await backend.notify(
        deliberately(note, 'a notification without an event, to see the error path'),
      );
      if (outcome.reply) look(outcome.reply, 'a notification without an event');
      if (persistent)
        for (const line of await strayLines(backend))
          if (!line.trimStart().startsWith('{')) garbage.push(`after the last reply: ${clip(line, 200)}`);
    } finally {
      judge.evidence({ sent, received: got, expected });
    }
    if (garbage.length)
      judge.fail(
        `non-protocol output on stdout (${garbage.length} line${garbage.length === 1 ? '' : 's'}):\n${garbage.slice(0, 8).join('\n')}`,
      );
  }),
);

/** How many exchanges the long run makes on one persistent process. */
const LONG_RUN = 50;

test(
  ...check('stdio.persistent-exchanges', async ({ claim, backend, judge }) => {
    // Content judged on every exchange: the harmless call and a sample the backend decides on
    // (a modify sample, else a deny sample), alternating, each compared with its first answer.
    const sample = claim.backend!.samples.modify[0] ?? claim.backend!.samples.deny[0];
    const kinds = [
      { label: 'the harmless call', build: () => interceptRequest(toolBeforeEvent(HARMLESS_TOOL)) },
      ...(sample
        ? [
            {
              label: `sample ${sample.tool.name}`,
              build: () => sampleRequest(sample, claim.backend!.samples.modify[0] ? 'modify' : 'deny'),
            },
          ]
        : []),
    ];
    const first = new Map<string, string>();
    const problems: string[] = [];
    const sent: unknown[] = [];
    const got: unknown[] = [];
    const expected = `${LONG_RUN} sequential replies from one long-lived process, each with its request's id and the result the same content got the first time`;
    try {
      for (let i = 1; i <= LONG_RUN; i++) {
        const kind = kinds[(i - 1) % kinds.length]!;
        const req = kind.build();
        const reply = await backend.request(req);
        const had = problems.length;
        // Evidence: the first exchanges, and the first few that went wrong (bounded).
        const keep = (): void => {
          if (i <= 3 || (problems.length > had && sent.length < 8)) {
            sent.push(req);
            got.push(received(reply));
          }
        };
        if (reply.kind === 'none') {
          problems.push('no reply');
          keep();
          return judge.fail(
            `exchange ${i} of ${LONG_RUN} got no reply: ${reply.why}${problems.length > 1 ? `; before that:\n${problems.slice(0, -1).join('\n')}` : ''}`,
          );
        }
        if (stream(backend).restarts > 0)
          return judge.fail(
            `the process ended after exchange ${i - 1} of ${LONG_RUN}; a persistent backend serves many messages until end of input`,
          );
        const v = isObject(reply.value) ? reply.value : undefined;
        if (!v) {
          problems.push(`exchange ${i} (${kind.label}): the reply is not one JSON object: ${clip(reply.raw, 120)}`);
          keep();
          continue;
        }
        if (v.id !== req.id)
          problems.push(
            `exchange ${i} (${kind.label}): reply id ${clip(JSON.stringify(v.id) ?? 'absent', 80)}, request id ${JSON.stringify(req.id)}`,
          );
        const content = isObject(v.result)
          ? `result ${decisionOf(v.result)}`
          : isObject(v.error)
            ? `error ${JSON.stringify(v.error.code)}`
            : 'neither result nor error';
        const before = first.get(kind.label);
        if (before === undefined) first.set(kind.label, content);
        else if (content !== before)
          problems.push(`exchange ${i} (${kind.label}): ${clip(content, 120)}, the first time ${clip(before, 120)}`);
        keep();
      }
    } finally {
      judge.evidence({ sent, received: got, expected });
    }
    if (problems.length)
      judge.fail(
        `${problems.length} of ${LONG_RUN} exchanges on one process were answered wrongly:\n${problems.slice(0, 8).join('\n')}${problems.length > 8 ? `\n… and ${problems.length - 8} more` : ''}`,
      );
    judge.note(`${LONG_RUN} exchanges on one process, each with its own id and a consistent result`);
  }),
);

/** Effect types, with target and operation for modify (free text such as a reason may name the event). */
const decisionOf = (r: Record<string, unknown>): string =>
  JSON.stringify(
    Array.isArray(r.effects)
      ? r.effects.map((e) =>
          isObject(e) ? [e.type, e.target, e.operation].filter((x) => x !== undefined).join('/') : typeof e,
        )
      : r.effects,
  );

test(
  ...check('stdio.per-event-exit', async ({ backend, judge }) => {
    const req = interceptRequest(toolBeforeEvent(HARMLESS_TOOL));
    const reply = await backend.request(req);
    judge.evidence({ sent: req, received: describeReply(reply), expected: 'exactly one reply, then exit status 0' });
    if (reply.kind === 'none') return judge.fail(`no reply before the process ended: ${reply.why}`);
    const exited = exitOf(reply);
    if (exited === 'timeout' || exited === undefined)
      return judge.fail('the process did not exit after its reply and end of input');
    if (exited.code !== 0)
      return judge.fail(
        `the process exited with ${exited.code === null ? `signal ${exited.signal}` : `status ${exited.code}`} after its reply`,
      );
    const note = observeNotification(toolBeforeEvent(HARMLESS_TOOL));
    const outcome = await backend.notify(note);
    if (!outcome.silent) return judge.fail(`a notification produced output: ${clip(outcome.got ?? '', 200)}`);
    const exit = exitOf(outcome.reply);
    if (exit === 'timeout' || exit === undefined)
      return judge.fail('the process did not exit after a notification and end of input');
  }),
);

async function strayLines(backend: BackendSession): Promise<string[]> {
  const p = await stream(backend).process();
  const out: string[] = [];
  for (;;) {
    const line = await p.nextLine(SETTLE_MS);
    if (line.kind !== 'line') return out;
    out.push(line.text);
  }
}
