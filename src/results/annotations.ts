// How a conformance test tells the results reporter what it found: annotations and
// attachments on the Playwright test result (so shard outputs can be merged later).
export const ANNOTATION = {
  check: 'ahp-check',
  /** The shape of the check's target (`stdio:persistent`, `http`): its project names the claim and role. */
  target: 'ahp-target',
  status: 'ahp-status',
  message: 'ahp-message',
  /** The implementation could not be started for this check (the reason). */
  launchFailure: 'ahp-launch-failure',
} as const;

export const LAUNCH_FAILURE_PREFIX = 'could not start the implementation: ';

/** The message of a check the run stopped (`not-run`): one it had started, one it never started. */
export const NOT_FINISHED = 'the run stopped before this check finished';
export const NOT_STARTED = 'the run stopped before this check started';

export const ATTACHMENT = {
  evidence: 'ahp-evidence',
  transcript: 'ahp-transcript',
  /** What the check saw the implementation advertise and do (src/results/observed.ts). */
  observed: 'ahp-observed',
} as const;

/** Statuses a test reports through the `ahp-status` annotation (others follow from the test outcome). */
export type AnnotatedStatus = 'warning' | 'not-applicable' | 'incomplete';
