// The scripted backend's script: what the runner's side of each exchange answers when it
// certifies a harness. A check writes one script per harness run; the stdio backend
// (a process the harness launches) and the HTTP backend (a loopback server in the runner)
// both read it and both record every frame they receive in one wire log.
//
// Answers are chosen by ordinal: the n-th hooks/intercept a hook receives (counted across
// processes, so a per_event retry or a restarted persistent process continues the count)
// gets `intercept[n]`, the last answer repeating. Observations work the same way.

export interface HttpAnswer {
  /** Default 200 for intercepts, 202 for observations. */
  status?: number;
  /** Default application/json (no Content-Type when there is no body). */
  contentType?: string;
  /** Sent as Location (for redirects); a path is resolved against the server. */
  location?: string;
}

export interface Answer {
  /** Wait this long before answering (a delay past timeoutMs makes a late reply). */
  delayMs?: number;
  /** The result's effects (default: none). */
  effects?: unknown[];
  /** Append a defined effect type the request did not advertise (ask, message or allow). */
  unadvertised?: boolean;
  /** Extra members of the result object. */
  resultExtra?: Record<string, unknown>;
  /** result.protocolVersion (default "draft"); null omits it. */
  resultVersion?: string | null;
  /** Omit result.effects. */
  omitEffects?: boolean;
  /** A JSON-RPC error instead of a result. */
  error?: { code: number; message: string; data?: unknown };
  /** The reply's "jsonrpc" member (default "2.0"). */
  jsonrpc?: string;
  /** The reply's id: the request's (default), a different one, or null. */
  id?: 'echo' | 'wrong' | 'null';
  /** stdio framing of the reply: one line (default), pretty-printed, or after a banner line. */
  framing?: 'line' | 'pretty' | 'banner';
  /** Exact reply text instead of a JSON-RPC reply (stdio: one line is added; http: the body). */
  raw?: string;
  /** Send nothing. */
  none?: boolean;
  /** stdio: exit with this status after the reply (or instead of it, with `none`). */
  exit?: number;
  /** Record whether this file exists at the moment the reply is sent (tool ran early?). */
  probeFile?: string;
  http?: HttpAnswer;
  /**
   * hooks/configuration (draft@1d98c19): result.configuration (undefined leaves it out). A
   * configuration result carries no effects unless `effects` is given (an invalid reply).
   */
  configuration?: unknown;
}

export const CONFIGURATION = 'hooks/configuration';

/**
 * What a hook answers to hooks/configuration when its script says nothing: a JSON-RPC
 * "method not found" error, as a backend of a snapshot without that method would.
 */
export const NO_CONFIGURATION: Answer = { error: { code: -32601, message: 'Method not found' } };

export interface HookScript {
  intercept?: Answer[];
  observe?: Answer[];
  /**
   * Answers per scenario step (the `probe` member of the tool input), indexed by attempt:
   * a harness that retries gets the next answer for the same step, and the answers of
   * the other steps are not consumed. Takes precedence over `intercept`.
   */
  byStep?: Record<string, Answer[]>;
  /** The same for hooks/observe: per step (tool events), by attempt; takes precedence over `observe`. */
  observeByStep?: Record<string, Answer[]>;
  /**
   * hooks/configuration answers (draft@1d98c19), by ordinal; unset: NO_CONFIGURATION. The
   * wire log keeps when each request came, relative to the hook's events.
   */
  configuration?: Answer[];
}

export interface BackendScript {
  hooks: Record<string, HookScript>;
}

/** One line of the wire log (`wire.jsonl` in the run folder). */
export interface WireRecord {
  /** ms since the epoch, sub-millisecond precision. */
  t: number;
  hook: string;
  transport: 'stdio' | 'http';
  /** stdio: the backend process; http: the connection's request number. */
  pid?: number;
  kind:
    | 'start' // a stdio backend process started (argv recorded)
    | 'line' // one raw stdin line, before framing
    | 'frame' // one received message (reassembled if it spanned lines)
    | 'reply' // what the backend sent back
    | 'eof' // stdin closed
    | 'no-eof' // per_event: no EOF within the bound after its message (before its answer, or after it)
    | 'exit' // the backend process exits
    | 'probe' // probeFile check at reply time
    | 'metadata'; // http: a GET of protected-resource metadata (RFC 9728)
  text?: string;
  /** base64 of the exact bytes when they are not valid UTF-8. */
  base64?: string;
  /** frame: how many stdin lines it spanned (1 = correctly framed). */
  lines?: number;
  /** frame: parsed; undefined when it is not JSON. */
  message?: unknown;
  method?: string;
  /** frame: the hook's ordinal for this method (0-based). */
  ordinal?: number;
  /** frame: the scenario step (tool input `probe`) and this hook's attempt number for it. */
  step?: string;
  attempt?: number;
  argv?: string[];
  lifecycle?: string;
  /** start: ms from the process's own start to this record (its start-up, measured by itself). */
  uptimeMs?: number;
  path?: string;
  exists?: boolean;
  http?: {
    method?: string;
    url?: string;
    contentType?: string;
    /** Number of Authorization headers, and whether the one sent matched the expected token. */
    authorization?: {
      count: number;
      matches: boolean;
      /** A protected hook: what the resource made of the credential (drivers/auth/resource.ts). */
      bearer?: { kind: 'none' | 'issued' | 'invalid'; why?: string; jti?: string };
    };
    status?: number;
  };
  /** The run's secret (bearer token) appeared in this text; the text has it redacted. */
  secretSeen?: boolean;
  note?: string;
}

type Obj = Record<string, unknown>;

/** Defined effects a runner may return as "unadvertised", each in a schema-valid form. */
const UNADVERTISED_CANDIDATES: Obj[] = [
  { type: 'ask' },
  { type: 'message', text: 'a message nobody asked for' },
  { type: 'allow' },
];

/** The scenario step of a message: `probe` in its tool input (also when sent as a JSON string). */
export function probeOf(message: unknown): string | undefined {
  const params = (message as { params?: { event?: { tool?: { input?: unknown } } } } | undefined)?.params;
  let input = params?.event?.tool?.input;
  if (typeof input === 'string') {
    try {
      input = JSON.parse(input) as unknown;
    } catch {
      return undefined;
    }
  }
  const probe = (input as { probe?: unknown } | undefined)?.probe;
  return typeof probe === 'string' ? probe : undefined;
}

export function answerFor(list: readonly Answer[] | undefined, ordinal: number, fallback: Answer): Answer {
  if (!list || list.length === 0) return fallback;
  return list[Math.min(ordinal, list.length - 1)]!;
}

/** The reply object for a request (undefined when the answer sends a raw text or nothing). */
export function replyObject(answer: Answer, request: Obj): Obj {
  const id = answer.id === 'wrong' ? `${String(request.id)}-not-this-one` : answer.id === 'null' ? null : request.id;
  const reply: Obj = { jsonrpc: answer.jsonrpc ?? '2.0', id };
  if (answer.error) {
    reply.error = answer.error;
    return reply;
  }
  const result: Obj = {};
  if (answer.resultVersion !== null) result.protocolVersion = answer.resultVersion ?? 'draft';
  if (request.method === CONFIGURATION) {
    if (answer.configuration !== undefined) result.configuration = answer.configuration;
    if (answer.effects !== undefined) result.effects = answer.effects;
  } else if (!answer.omitEffects) {
    const effects = [...(answer.effects ?? [])];
    if (answer.unadvertised) {
      const params = request.params as Obj | undefined;
      const caps = (params?.capabilities as Obj | undefined)?.effects;
      const advertised = new Set(Array.isArray(caps) ? caps.map(String) : []);
      const pick = UNADVERTISED_CANDIDATES.find((c) => !advertised.has(String(c.type)));
      if (pick) effects.push(pick);
    }
    result.effects = effects;
  }
  Object.assign(result, answer.resultExtra ?? {});
  reply.result = result;
  return reply;
}

/** The stdio bytes of a reply: one line, pretty-printed, or after a banner. */
export function stdioReplyText(answer: Answer, request: Obj): string {
  if (answer.raw !== undefined) return answer.raw.endsWith('\n') ? answer.raw : `${answer.raw}\n`;
  const reply = replyObject(answer, request);
  if (answer.framing === 'pretty') return `${JSON.stringify(reply, null, 2)}\n`;
  if (answer.framing === 'banner') return `scripted backend ready\n${JSON.stringify(reply)}\n`;
  return `${JSON.stringify(reply)}\n`;
}

/** Wall-clock time with sub-millisecond precision, comparable across processes. */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}
