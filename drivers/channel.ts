// The transport seam: one way to exchange messages with an implementation, whatever carries
// them. A caller picks one Channel (stdio persistent, stdio per_event, HTTP) and from then on
// only sends messages and reads what came back, typed per transport.
//
// Channels know serialized messages, not their meaning: what a message is, and which reply
// answers which request, the caller says (WireMessage, SilenceProbe). JSON parsing is the
// caller's too (ParseJson), so that every reply is read by the same strict parser.
import type { Transcript } from './transcript.js';

/** A JSON value (structurally the same as the protocol layer's). */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Strict JSON parsing, given by the caller (drivers carry no parser of their own). */
export type ParseJson = (text: string) => { ok: true; value: Json } | { ok: false; message: string };

/** One message as it goes on the wire, and an optional transcript note sent before it (e.g. "wrong on purpose"). */
export interface WireMessage {
  text: string;
  note?: string;
  /**
   * The JSON-RPC id the caller gave it, when it has one: a reply carrying it that comes
   * after the channel gave up on the request is set aside, never taken for a later one's.
   */
  id?: string | number;
}

/**
 * A healthy request the implementation answers (caller-made, e.g. a harmless intercept),
 * sent on the same process or endpoint when a request got no reply within its deadline.
 * Silence is then judged by causality: once the implementation has answered this later
 * request (and a margin from its own turnaround has passed), the earlier one is
 * unanswered; patience stays only for an implementation that answers nothing at all.
 */
export interface Fence {
  message: WireMessage & { id: string | number };
}

export type ExitStatus = { code: number | null; signal: string | null };
/** How a process ended, or 'timeout' when it had not by the deadline. */
export type Exit = ExitStatus | 'timeout';

export interface HttpDetails {
  status: number;
  headers: Record<string, string>;
  contentType: string;
}

export interface Framing {
  /** Lines before the reply that were not JSON objects (banners, logs). */
  skipped: string[];
  /** The reply object spanned several lines (pretty-printed). */
  multiLine: boolean;
  /** Lines over the line size bound seen before the reply. */
  oversize: number;
}

/** What every reply holds, whatever carried it. */
interface Answered {
  kind: 'reply';
  raw: string;
  utf8: boolean;
  /** Parsed when the raw text is one strict JSON value. */
  value?: Json;
  parseError?: string;
  /** ms from sending to the reply (per_event: including the process start). */
  latencyMs: number;
}

/** stdio persistent: the next JSON object on stdout, read leniently (framing says how it came). */
export interface PersistentReply extends Answered {
  transport: 'stdio';
  lifecycle: 'persistent';
  framing: Framing;
}

/** stdio per_event: the process's output for one message, and how it ended. */
export interface PerEventReply extends Answered {
  transport: 'stdio';
  lifecycle: 'per_event';
  /** Absent when no line held a JSON object: the first line is then the reply. */
  framing?: Framing;
  /** stdout lines after the reply. */
  extraLines: string[];
  exit: Exit;
}

export interface HttpAnswer extends Answered {
  transport: 'http';
  http: HttpDetails;
}

/** stdio: no reply (silence, a deadline, stdout closed, or too much output without one). */
export interface StdioNoReply {
  kind: 'none';
  transport: 'stdio';
  lifecycle: 'persistent' | 'per_event';
  why: string;
  /** Lines that came but held no JSON object, and how many of them were over the size bound. */
  skipped: string[];
  oversize: number;
  /** per_event: always; persistent: when stdout closed. */
  exit?: Exit;
  /** Nothing came by the deadline (rather than stdout closing or the bounds). */
  timedOut?: true;
  /** Unanswered behind an answered fence: the process is alive (it answered a later request). */
  fenced?: true;
}

/** HTTP: no reply body (an empty one, with its status), or no response at all (timeout, refused, cut short). */
export interface HttpNoReply {
  kind: 'none';
  transport: 'http';
  why: string;
  /** When a response came (with an empty body). */
  http?: HttpDetails;
}

/** What came back for one message. */
export type Reply = PersistentReply | PerEventReply | HttpAnswer | StdioNoReply | HttpNoReply;
export type StdioReply = Extract<Reply, { transport: 'stdio' }>;

/** How silence after a notification is seen: the caller says what its messages mean. */
export interface SilenceProbe {
  /** Sent after the notification on a stream transport: its reply must be the next reply. */
  followUp: WireMessage;
  /** Is this the follow-up's reply? */
  isFollowUp(value: Json | undefined): boolean;
  /** Is this a response to a message (as opposed to an acknowledgement without one)? */
  isResponse(value: Json | undefined): boolean;
}

/** What a notification got: silence, an answer, or (stream transports) no way to tell. */
export interface Silence {
  silent: boolean;
  /** The follow-up got no reply, so silence could not be judged. */
  undetermined?: true;
  /** The raw answer, when there was one. */
  got?: string;
  reply: Reply;
  detail: string;
}

/** How one request carries credentials, where it differs from the channel's own (HTTP only). */
export interface RequestOptions {
  /** Sent as the bearer token instead of the channel's. */
  credential?: string;
  /** The exact Authorization header lines instead (none, or several): authentication probes. */
  authorization?: readonly string[];
  /** Query parameters added to the endpoint URL (a credential where none belongs). */
  query?: Readonly<Record<string, string>>;
}

/** One implementation's messages over one transport. A new transport implements this. */
export interface Channel {
  readonly transport: 'stdio' | 'http';
  /** Send one message that expects a reply; wait at most the patience of the ReplyTiming. */
  request(m: WireMessage, opts?: RequestOptions): Promise<Reply>;
  /** Send one notification and observe whether anything answered it. */
  notify(m: WireMessage, probe: SilenceProbe): Promise<Silence>;
  /** Stop whatever the channel started; idempotent, never throws. */
  close(): Promise<void>;
}

/** The JSON-RPC id of a reply value, when it has one of the kinds a request can carry. */
export function replyId(value: Json | undefined): string | number | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const id = value.id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** Why a request counts as unanswered once a later request (the fence) was answered. */
export function unansweredBehindFence(timeoutMs: number, fenceMs: number, marginMs: number): string {
  return `no reply within ${timeoutMs} ms (timeoutMs), while a later request (a fence) was answered in ${Math.round(fenceMs)} ms and ${Math.round(marginMs)} ms more brought nothing: unanswered`;
}

/** "no reply within 2000 ms (timeoutMs); waited 10000 ms in all" */
export function noReplyWithin(timeoutMs: number, patience: number): string {
  return patience > timeoutMs
    ? `no reply within ${timeoutMs} ms (timeoutMs); waited ${patience} ms in all`
    : `no reply within ${timeoutMs} ms`;
}

/**
 * The deadlines of one session's exchanges: replies are awaited up to `patienceMs`, and one
 * after `timeoutMs` is noted (transcript, `late`) but still handed back to be judged.
 */
export class ReplyTiming {
  /** Replies that came after timeoutMs: each one's latency, and whether it included a process start. */
  readonly late: { ms: number; includesStart: boolean }[] = [];

  /**
   * `fenceMarginMs`: after a fence is answered, how long a request that got no reply by its
   * deadline may still take, given the fence's measured turnaround and, when the request was
   * the first of a process just started, the deadline (src/timing.ts).
   */
  constructor(
    readonly timeoutMs: number,
    readonly patienceMs: number,
    private readonly transcript: Transcript,
    readonly fenceMarginMs: (fenceTurnaroundMs: number, startUp?: { timeoutMs: number }) => number = (t) => t,
  ) {}

  /** Note `reply` if late. `includesStart`: the exchange also started the process, so start-up is part of the latency. */
  timed<R extends Reply>(reply: R, includesStart: boolean): R {
    if (reply.kind === 'reply' && reply.latencyMs > this.timeoutMs) {
      this.late.push({ ms: reply.latencyMs, includesStart });
      this.transcript.record({
        dir: 'note',
        channel: reply.transport,
        note: `the reply came after ${reply.latencyMs} ms${includesStart ? ' (including the process start-up)' : ''}, over timeoutMs (${this.timeoutMs} ms); judged on its content`,
      });
    }
    return reply;
  }
}

/** A body's value or why it has none: not UTF-8, or not strict JSON. */
export function parseBody(parse: ParseJson, raw: string, utf8: boolean): { value?: Json; parseError?: string } {
  if (!utf8) return { parseError: 'the reply is not valid UTF-8' };
  const p = parse(raw);
  return p.ok ? { value: p.value } : { parseError: p.message };
}
