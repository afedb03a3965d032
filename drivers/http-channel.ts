// The HTTP channel: each message is one POST to the implementation's endpoint; a server the
// channel launches is started on first use and stopped on close.
import {
  noReplyWithin,
  parseBody,
  unansweredBehindFence,
  type Channel,
  type Fence,
  type HttpDetails,
  type ParseJson,
  type Reply,
  type ReplyTiming,
  type RequestOptions,
  type Silence,
  type SilenceProbe,
  type WireMessage,
} from './channel.js';
import { HttpServerProcess, postJson, type HttpOutcome, type HttpServerLaunch } from './http.js';
import type { Transcript } from './transcript.js';

export interface HttpChannelOptions {
  /** Where to POST and how to start the server (its `url` is the endpoint); called once, on first use. */
  launch: () => Promise<HttpServerLaunch>;
  /** Sent as a bearer token unless a request brings its own credential. */
  token?: string;
  transcript: Transcript;
  timing: ReplyTiming;
  parse: ParseJson;
  /** A new fence for a request that got no reply by its deadline (see Fence). */
  fence?: () => Fence;
}

export class HttpChannel implements Channel {
  readonly transport = 'http';
  private server?: HttpServerProcess;
  private url?: string;

  constructor(private readonly o: HttpChannelOptions) {}

  private async endpoint(): Promise<string> {
    if (this.url) return this.url;
    const launch = await this.o.launch();
    // Without a command the server must already run: waiting for its port (bounded) turns an
    // unreachable implementation into a launch failure rather than a string of failed exchanges.
    this.server = await HttpServerProcess.start(launch);
    this.url = launch.url;
    return launch.url;
  }

  /**
   * The outcome of the request's POST: awaited until its deadline (timeoutMs); then, with a
   * fence, judged by causality (see Fence: the fence is a POST of its own), else with patience.
   */
  private async exchange(
    url: string,
    m: WireMessage,
    token: string | undefined,
    opts: RequestOptions,
  ): Promise<HttpOutcome | string> {
    const { timeoutMs, patienceMs } = this.o.timing;
    const giveUp = new AbortController();
    const start = Date.now();
    const post = postJson(url, m.text, {
      timeoutMs: patienceMs,
      transcript: this.o.transcript,
      giveUp: giveUp.signal,
      ...(token ? { token } : {}),
      ...(opts.authorization ? { authorization: opts.authorization } : {}),
      ...(m.note ? { note: m.note } : {}),
    });
    if (!this.o.fence) return post;
    const inTime = await within(post, timeoutMs);
    if (inTime !== undefined) return inTime;
    const fence = this.o.fence().message;
    this.o.transcript.record({
      dir: 'note',
      channel: 'http',
      note: `no reply within ${timeoutMs} ms (timeoutMs): a fence request (${JSON.stringify(fence.id)}) follows; once it is answered, the request counts as unanswered`,
    });
    const fenceSent = Date.now();
    const fenced = postJson(url, fence.text, {
      timeoutMs: Math.max(1, start + patienceMs - fenceSent),
      transcript: this.o.transcript,
      ...(this.o.token ? { token: this.o.token } : {}),
    });
    const first = await Promise.race([post.then((o) => ({ post: o })), fenced.then((o) => ({ fence: o }))]);
    if ('post' in first) return first.post;
    // Any complete answer to the fence shows the server took and answered a later request.
    if (!first.fence.ok) return post;
    const fenceMs = Date.now() - fenceSent;
    const margin = this.o.timing.fenceMarginMs(fenceMs);
    const late = await within(post, margin);
    if (late !== undefined) return late;
    const why = unansweredBehindFence(timeoutMs, fenceMs, margin);
    giveUp.abort(why);
    await post;
    return why;
  }

  async request(m: WireMessage, opts: RequestOptions = {}): Promise<Reply> {
    const url = withQuery(await this.endpoint(), opts.query);
    const { timeoutMs, patienceMs } = this.o.timing;
    const token = opts.credential ?? this.o.token;
    const out = await this.exchange(url, m, token, opts);
    if (typeof out === 'string') return { kind: 'none', transport: 'http', why: out };
    if (!out.ok) {
      return {
        kind: 'none',
        transport: 'http',
        why:
          out.error === 'timeout'
            ? `${noReplyWithin(timeoutMs, patienceMs)}: ${out.message}`
            : `${out.error}: ${out.message}`,
      };
    }
    const r = out.reply;
    const http: HttpDetails = { status: r.status, headers: r.headers, contentType: r.headers['content-type'] ?? '' };
    if (r.body.length === 0)
      return { kind: 'none', transport: 'http', why: `HTTP ${r.status} with an empty body`, http };
    const utf8 = isUtf8(r.body);
    return this.o.timing.timed(
      {
        kind: 'reply',
        transport: 'http',
        raw: r.text,
        utf8,
        http,
        ...parseBody(this.o.parse, r.text, utf8),
        latencyMs: Math.round(r.ms),
      },
      false,
    );
  }

  /**
   * Whatever came back is handed on: silence is judged on the message layer (a body that is
   * no response counts as silence); status and body are for the caller to judge.
   */
  async notify(m: WireMessage, probe: SilenceProbe): Promise<Silence> {
    const reply = await this.request(m);
    const body = reply.kind === 'reply' ? reply.raw : '';
    const status = reply.transport === 'http' ? (reply.http?.status ?? '?') : '?';
    return reply.kind === 'reply' && probe.isResponse(reply.value)
      ? { silent: false, got: body, reply, detail: `HTTP ${status} with a JSON-RPC response` }
      : {
          silent: true,
          reply,
          detail: `HTTP ${status} with ${body.trim() ? 'a body that is not a JSON-RPC response' : 'an empty body'}`,
        };
  }

  async close(): Promise<void> {
    await this.server?.stop();
  }
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function withQuery(url: string, query: Readonly<Record<string, string>> | undefined): string {
  if (!query) return url;
  const u = new URL(url);
  for (const [k, v] of Object.entries(query)) u.searchParams.append(k, v);
  return u.toString();
}

/** The promise's value if it settles within `ms`, else undefined (the promise runs on). */
async function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const wait = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
  });
  try {
    return await Promise.race([p, wait]);
  } finally {
    clearTimeout(timer);
  }
}
