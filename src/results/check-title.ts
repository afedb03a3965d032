// How a check appears among Playwright's tests, and how a run selects it: the title written
// by the suites (suites/support/check.ts), the grep of each project (playwright.config.ts),
// the report's rerun command and the self-tests' fault matrices all use these, so they agree.

/** A check's test title: the check id leads, then its title. */
export const checkTitle = (id: string, title: string): string => `${id}: ${title}`;

/** `text` matched literally inside a regular expression. */
export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A grep for these checks, optionally of one project. Playwright matches a project's grep
 * against the test's title path joined by spaces: project name, file, describe titles, test
 * title; `run --grep` matches the same form against the title behind the target's name
 * ({@link selected}), so the report's rerun command selects one check of one target.
 */
export const checkGrep = (ids: readonly string[], project?: string): string =>
  `${project === undefined ? '' : `(^| )${escapeRegExp(project)} .*`}(^| )(${ids.map(escapeRegExp).join('|')}): `;

/** What `run --grep` and `--grep-invert` select by (src/engine/plan.ts applies it, the results record it). */
export interface Selection {
  grep?: string;
  grepInvert?: string;
}

/**
 * A `--grep` or `--grep-invert` compiled as Playwright's CLI compiles its own (`/re/flags`,
 * else the text, case-insensitive), without the global flag, which would make `test`
 * remember where it stopped.
 */
export function selectionRegExp(text: string): RegExp {
  const m = /^\/(.*)\/([gi]*)$/.exec(text);
  return m ? new RegExp(m[1]!, m[2]!.replace(/g/g, '')) : new RegExp(text, 'i');
}

/**
 * Is a check of a target within `--grep` / `--grep-invert`? docs/cli.md promises that they
 * match the check's title (the check id leads it), so `^content\.` selects the content
 * checks; Playwright's own --grep matches its title path (project, file, title), where
 * that anchor matches nothing. So the run selects by these two texts instead: the check's
 * title, and the title behind its target's project name (Playwright's title path with the
 * file shown as `›`), which keeps a grep naming a target working (the report's rerun
 * command, checkGrep with a project). A check is selected when `grep` matches either and
 * `grepInvert` matches neither.
 */
export function selected(selection: Selection | undefined, project: string, id: string, title: string): boolean {
  if (!selection) return true;
  const texts = [checkTitle(id, title), ` ${project} › ${checkTitle(id, title)}`];
  const matches = (text: string): boolean => texts.some((t) => selectionRegExp(text).test(t));
  if (selection.grep !== undefined && !matches(selection.grep)) return false;
  return selection.grepInvert === undefined || !matches(selection.grepInvert);
}
