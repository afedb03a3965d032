// What the implementation showed of itself during the checks, in the terms its claim is
// compared with after the run (src/results/over-claim.ts): which events a harness sent and
// how, what its intercepts and its session.start manifest advertised, whether it uploaded or
// used OAuth; which effects a backend returned and what its hooks/configuration asked for.
// The sessions collect it where they already see the traffic (suites/support/), each check
// attaches its own (ATTACHMENT.observed), and the reporter unites them per target.
//
// Every name here comes from the implementation: only short names of the protocol's alphabet
// are kept, and every list is bounded, so a hostile implementation cannot grow results.json
// through it or put markup in a report.

/** The parts of a session.start manifest the comparison reads. */
export interface ManifestSummary {
  /** Per event listed: its modes and the effects its capabilities name. */
  events: { event: string; modes: string[]; effects: string[] }[];
  transports: string[];
  authentication: string[];
}

export interface Observed {
  /** Harness: the event types it sent as hooks/intercept. */
  intercepted?: string[];
  /** Harness: the event types it sent as hooks/observe. */
  observed?: string[];
  /** Harness: per event type, the effects its hooks/intercept requests advertised (capabilities.effects). */
  advertised?: Record<string, string[]>;
  /** Harness: its session.start manifest (every one seen, united). */
  manifest?: ManifestSummary;
  /** Harness: upload requests the runner's receiver got. */
  uploads?: number;
  /** Harness: runs with OAuth-protected hooks, and of those, the runs where it asked the run's authorization server. */
  oauthRuns?: number;
  oauthUsed?: number;
  /** Backend: per event type, the effect types its hooks/intercept results returned. */
  returned?: Record<string, string[]>;
  /** Backend: hooks/configuration requests sent, success results got, and the events they subscribed, by mode. */
  configuration?: { asked: number; answered: number; intercept: string[]; observe: string[] };
}

/** Bounds on what one target's observations hold. */
const MAX_NAMES = 64;
const MAX_KEYS = 64;
const MAX_COUNT = 1_000_000;
/** Event types, effect names (reverse-DNS extensions too), transports, mechanisms. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,99}$/;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The protocol names in `v` (a list), sorted, unique, bounded; anything else is left out. */
export function names(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  const out = new Set<string>();
  for (const x of v) {
    if (out.size >= MAX_NAMES) break;
    if (typeof x === 'string' && NAME.test(x)) out.add(x);
  }
  return [...out].sort();
}

const union = (a: readonly string[] = [], b: readonly string[] = []): string[] => names([...a, ...b]);

function unionRecord(
  a: Readonly<Record<string, string[]>> = {},
  b: Readonly<Record<string, string[]>> = {},
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of [...Object.entries(a), ...Object.entries(b)]) {
    if (!NAME.test(k)) continue;
    if (!(k in out) && Object.keys(out).length >= MAX_KEYS) continue;
    out[k] = union(out[k], v);
  }
  return out;
}

const count = (v: unknown): number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 ? Math.min(v, MAX_COUNT) : 0;
const add = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined && b === undefined ? undefined : Math.min((a ?? 0) + (b ?? 0), MAX_COUNT);

/** Manifest events by event type, each once (a manifest may list an event twice), bounded. */
function eventsOnce(list: readonly ManifestSummary['events'][number][]): ManifestSummary['events'] {
  const events = new Map<string, { modes: string[]; effects: string[] }>();
  for (const e of list) {
    const had = events.get(e.event);
    if (!had && events.size >= MAX_KEYS) continue;
    events.set(e.event, { modes: union(had?.modes, e.modes), effects: union(had?.effects, e.effects) });
  }
  return [...events].map(([event, x]) => ({ event, ...x }));
}

function unionManifest(a: ManifestSummary | undefined, b: ManifestSummary | undefined): ManifestSummary | undefined {
  if (!a || !b) return a ?? b;
  return {
    events: eventsOnce([...a.events, ...b.events]),
    transports: union(a.transports, b.transports),
    authentication: union(a.authentication, b.authentication),
  };
}

/** A manifest's events list: from the harness (`capabilities.effects`) or from a summary (`effects`). */
function manifestEvents(v: unknown, from: 'wire' | 'summary'): ManifestSummary['events'] {
  return eventsOnce(
    (Array.isArray(v) ? v : []).flatMap((e) => {
      if (!isObj(e) || typeof e.event !== 'string' || !NAME.test(e.event)) return [];
      const effects = from === 'summary' ? e.effects : isObj(e.capabilities) ? e.capabilities.effects : undefined;
      return [{ event: e.event, modes: names(e.modes), effects: names(effects) }];
    }),
  );
}

/** Two observations as one: lists united, counts added. */
export function mergeObserved(a: Observed, b: Observed): Observed {
  const out: Observed = {};
  const lists = ['intercepted', 'observed'] as const;
  for (const k of lists) if (a[k] || b[k]) out[k] = union(a[k], b[k]);
  if (a.advertised || b.advertised) out.advertised = unionRecord(a.advertised, b.advertised);
  if (a.returned || b.returned) out.returned = unionRecord(a.returned, b.returned);
  const manifest = unionManifest(a.manifest, b.manifest);
  if (manifest) out.manifest = manifest;
  for (const k of ['uploads', 'oauthRuns', 'oauthUsed'] as const) {
    const n = add(a[k], b[k]);
    if (n !== undefined) out[k] = n;
  }
  if (a.configuration || b.configuration) {
    const x = a.configuration ?? { asked: 0, answered: 0, intercept: [], observe: [] };
    const y = b.configuration ?? { asked: 0, answered: 0, intercept: [], observe: [] };
    out.configuration = {
      asked: add(x.asked, y.asked)!,
      answered: add(x.answered, y.answered)!,
      intercept: union(x.intercept, y.intercept),
      observe: union(x.observe, y.observe),
    };
  }
  return out;
}

/** A session.start event's manifest, as far as the comparison reads it (undefined: none, or not an object). */
export function manifestSummary(manifest: unknown, from: 'wire' | 'summary' = 'wire'): ManifestSummary | undefined {
  if (!isObj(manifest)) return undefined;
  return {
    events: manifestEvents(manifest.events, from),
    transports: names(manifest.transports),
    authentication: names(manifest.authentication),
  };
}

/**
 * An attachment's observations, read as untrusted (an earlier runner's blob, or a worker's
 * output): what is not of the shape is left out, every list bounded.
 */
export function readObserved(raw: unknown): Observed {
  if (!isObj(raw)) return {};
  const record = (v: unknown): Record<string, string[]> =>
    isObj(v) ? unionRecord(Object.fromEntries(Object.entries(v).map(([k, x]) => [k, names(x)]))) : {};
  const out: Observed = {};
  if (raw.intercepted !== undefined) out.intercepted = names(raw.intercepted);
  if (raw.observed !== undefined) out.observed = names(raw.observed);
  if (raw.advertised !== undefined) out.advertised = record(raw.advertised);
  if (raw.returned !== undefined) out.returned = record(raw.returned);
  if (isObj(raw.manifest)) out.manifest = manifestSummary(raw.manifest, 'summary');
  for (const k of ['uploads', 'oauthRuns', 'oauthUsed'] as const) if (raw[k] !== undefined) out[k] = count(raw[k]);
  if (isObj(raw.configuration)) {
    const c = raw.configuration;
    out.configuration = {
      asked: count(c.asked),
      answered: count(c.answered),
      intercept: names(c.intercept),
      observe: names(c.observe),
    };
  }
  return out;
}

/** One check's observations as they accumulate (a session holds one). */
export class ObservedLog {
  private value: Observed = {};

  add(o: Observed): void {
    this.value = mergeObserved(this.value, o);
  }

  /** What was observed; undefined when nothing was. */
  get observed(): Observed | undefined {
    return Object.keys(this.value).length ? this.value : undefined;
  }
}
