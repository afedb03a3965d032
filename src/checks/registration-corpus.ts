// The invalid-registration corpus of base.registration-validated: each entry breaks one
// registration rule of the draft snapshot, applied to an otherwise valid registration.
// Only rules our wire validator enforces are here (a self-test proves each document is
// invalid under it); stricter rules of older drafts are not invented.
import { SNAPSHOT_IDS, type SnapshotId } from '../protocol/snapshots.js';

type Obj = Record<string, unknown>;

/**
 * Does something that holds in `snapshots` (all of them when unset) apply to `snapshot`,
 * the snapshot of the claim being judged? Corpus entries and failure classes say in which
 * snapshots they are invalid (src/protocol/snapshots.ts), so a later snapshot is judged
 * without inventing rules for it.
 */
export function appliesTo(snapshots: readonly SnapshotId[] | undefined, snapshot: SnapshotId): boolean {
  return snapshots === undefined || snapshots.includes(snapshot);
}

export interface CorpusEntry {
  readonly id: string;
  readonly why: string;
  readonly mutate: (registration: Obj) => void;
  /** Snapshots in which the document is invalid (unset: every snapshot we know). */
  readonly invalidIn?: readonly SnapshotId[];
}

const hooks = (r: Obj): Obj[] => r.hooks as Obj[];
const firstHook = (r: Obj): Obj => hooks(r)[0]!;
const sub = (r: Obj, mode: 'intercept' | 'observe'): Obj => {
  for (const h of hooks(r)) for (const s of h.subscriptions as Obj[]) if (s.mode === mode) return s;
  throw new Error(`corpus base registration has no ${mode} subscription`);
};

/** Every entry, whatever its snapshots; registrationCorpus(snapshot) is the part a snapshot holds invalid. */
export const REGISTRATION_CORPUS_ALL: readonly CorpusEntry[] = [
  {
    id: 'no-protocol-version',
    why: 'protocolVersion is missing',
    mutate: (r) => {
      delete r.protocolVersion;
    },
  },
  {
    id: 'old-protocol-version',
    why: 'protocolVersion is "0.1", not "draft"',
    mutate: (r) => {
      r.protocolVersion = '0.1';
    },
  },
  {
    id: 'empty-hooks',
    why: 'hooks is empty',
    mutate: (r) => {
      r.hooks = [];
    },
  },
  {
    id: 'no-timeout',
    why: 'an intercept subscription has no timeoutMs',
    mutate: (r) => {
      delete sub(r, 'intercept').timeoutMs;
    },
  },
  {
    id: 'zero-timeout',
    why: 'an intercept subscription has timeoutMs 0',
    mutate: (r) => {
      sub(r, 'intercept').timeoutMs = 0;
    },
  },
  {
    id: 'no-failure-policy',
    why: 'an intercept subscription has no failurePolicy',
    mutate: (r) => {
      delete sub(r, 'intercept').failurePolicy;
    },
  },
  {
    id: 'unknown-failure-policy',
    why: 'failurePolicy is "fail-sometimes"',
    mutate: (r) => {
      sub(r, 'intercept').failurePolicy = 'fail-sometimes';
    },
  },
  {
    id: 'observe-with-timeout',
    why: 'an observe subscription has timeoutMs',
    mutate: (r) => {
      sub(r, 'observe').timeoutMs = 1000;
    },
  },
  {
    id: 'observe-with-failure-policy',
    why: 'an observe subscription has failurePolicy',
    mutate: (r) => {
      sub(r, 'observe').failurePolicy = 'fail-open';
    },
  },
  {
    id: 'intercept-observation-only-event',
    why: 'session.end (observation only) is subscribed in intercept mode',
    mutate: (r) => {
      (sub(r, 'intercept').events as string[]).push('session.end');
    },
  },
  {
    id: 'no-content-selection',
    why: 'a subscription has no content selection',
    mutate: (r) => {
      delete sub(r, 'intercept').content;
    },
  },
  {
    id: 'empty-events',
    why: 'a subscription lists no events',
    mutate: (r) => {
      sub(r, 'observe').events = [];
    },
  },
  {
    id: 'unknown-mode',
    why: 'a subscription has mode "watch"',
    mutate: (r) => {
      sub(r, 'observe').mode = 'watch';
    },
  },
  {
    id: 'no-subscriptions',
    why: 'a hook has an empty subscriptions list',
    mutate: (r) => {
      hooks(r)[hooks(r).length - 1]!.subscriptions = [];
    },
  },
  {
    id: 'unknown-transport',
    why: 'a transport type is "carrier-pigeon"',
    mutate: (r) => {
      firstHook(r).transport = { type: 'carrier-pigeon', command: 'node' };
    },
  },
  {
    id: 'bad-lifecycle',
    why: 'a stdio lifecycle is "forever" (or an http transport lacks its url)',
    mutate: (r) => {
      const t = firstHook(r).transport as Obj;
      if (t.type === 'stdio') t.lifecycle = 'forever';
      else delete t.url;
    },
  },
  {
    id: 'duplicate-hook-ids',
    why: 'two hooks have the same id',
    mutate: (r) => {
      hooks(r)[1]!.id = firstHook(r).id;
    },
  },
  {
    id: 'hook-id-not-reverse-dns',
    why: 'a hook id is "scripted", not a reverse-DNS name',
    mutate: (r) => {
      firstHook(r).id = 'scripted';
    },
  },
  {
    id: 'literal-token',
    why: 'bearer authentication holds a literal token instead of tokenEnv/tokenRef',
    mutate: (r) => {
      firstHook(r).authentication = { type: 'bearer', token: 'a-literal-secret' };
    },
  },
  {
    id: 'unknown-event-name',
    why: 'a subscription names the event "tool.befor"',
    mutate: (r) => {
      (sub(r, 'observe').events as string[]).push('tool.befor');
    },
  },
  {
    id: 'subscriptions-missing',
    why: 'a hook has no subscriptions member (required in 2b5da580; 1d98c19 makes it optional)',
    invalidIn: ['draft@2b5da580'],
    mutate: (r) => {
      delete hooks(r)[hooks(r).length - 1]!.subscriptions;
    },
  },
];

/** The corpus base.registration-validated sends to a claim of `snapshot`: the documents invalid in it. */
export function registrationCorpus(snapshot: SnapshotId): readonly CorpusEntry[] {
  return REGISTRATION_CORPUS_ALL.filter((e) => appliesTo(e.invalidIn, snapshot));
}

/** The most documents any snapshot's corpus holds (the catalogue's launch allowance). */
export const REGISTRATION_CORPUS_MAX = Math.max(...SNAPSHOT_IDS.map((s) => registrationCorpus(s).length));
