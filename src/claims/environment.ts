// The environment an implementation under test gets: an allow-list of the runner's
// variables, what its own claim declares, and what the runner hands it for this check.
// Never the runner's own variables (AHP_RUN_FOLDER and friends), never another claim's
// secrets, never the CI's environment by default. HOME stays the real one: a per-check
// HOME breaks toolchains installed there (rustup, pyenv).

/** The runner's variables every implementation gets, if set. */
export const ALLOWED_ENV = ['PATH', 'HOME', 'LANG', 'LANGUAGE', 'TZ'] as const;
const ALLOWED_PREFIX = 'LC_';

/**
 * Variables the runner sets for itself (the run folder, shards and merges: src/engine; the
 * harness adapter's config and test token: suites/support/harness-session.ts) and that
 * Playwright sets in its workers. An implementation never gets them from the runner's
 * environment: a claim listing one in `passEnv` is refused (src/claims/load.ts), and
 * implementationEnv skips them anyway.
 */
export const RUNNER_ENV: readonly string[] = [
  'AHP_RUN_FOLDER',
  'AHP_SHARD',
  'AHP_MERGE_REPORTS',
  'AHP_ADAPTER_CONFIG',
  'AHP_CONFORMANCE_TEST_TOKEN',
  // The OAuth client secret of the auth.* runs (docs/harness-adapter.md section 11).
  'AHP_CONFORMANCE_CLIENT_SECRET',
  'TEST_WORKER_INDEX',
  'TEST_PARALLEL_INDEX',
];

export interface DeclaredEnv {
  /** The claim's `env:` map. */
  env: Record<string, string>;
  /** The claim's `passEnv:` list: the runner's variables passed on as they are. */
  passEnv: readonly string[];
}

/**
 * The environment of one launch: the allow-list and `passEnv` from `from` (the runner's
 * environment), then the claim's `env`, then `given` (per-check TMPDIR, the claim's own
 * token variable, the adapter config), which wins.
 */
export function implementationEnv(
  declared: DeclaredEnv,
  given: Record<string, string>,
  from: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(from)) {
    if (v === undefined) continue;
    if ((ALLOWED_ENV as readonly string[]).includes(k) || k.startsWith(ALLOWED_PREFIX)) env[k] = v;
  }
  for (const k of declared.passEnv) {
    if (RUNNER_ENV.includes(k)) continue;
    const v = from[k];
    if (v !== undefined) env[k] = v;
  }
  return { ...env, ...declared.env, ...given };
}
