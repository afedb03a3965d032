// How a check appears among Playwright's tests, and how a run selects it: the title written
// by the suites (suites/support/check.ts), the grep of each project (playwright.config.ts),
// the report's rerun command and the self-tests' fault matrices all use these, so they agree.

/** A check's test title: the check id leads, then its title. */
export const checkTitle = (id: string, title: string): string => `${id}: ${title}`;

/** `text` matched literally inside a regular expression. */
export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A grep for these checks, optionally of one target (its name, `acme:backend:stdio:persistent`).
 * `run --grep` matches it against the title behind the target's name ({@link selected}),
 * so the report's rerun command selects one check of one target.
 */
export const checkGrep = (ids: readonly string[], target?: string): string =>
  `${target === undefined ? '' : `(^| )${escapeRegExp(target)} .*`}(^| )(${ids.map(escapeRegExp).join('|')}): `;

/**
 * The grep of one claim's role project (playwright.config.ts): each target's checks under
 * that target's shape. Playwright matches it against the test's title path joined by
 * spaces: project, file, describe titles, title; the suites put a check's shape describe
 * right under its file (suites/support/check.ts), so the shape is anchored to the file's
 * name and a describe of a spec that happens to name a shape selects nothing.
 */
export const shapesGrep = (byShape: readonly { shape: string; checks: readonly string[] }[]): string =>
  `\\.spec\\.js (${byShape
    .map(({ shape, checks }) => `${escapeRegExp(shape)} (.* )?(${checks.map(escapeRegExp).join('|')})`)
    .join('|')}): `;

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
 * title, and the title behind its target's name (`acme:backend:stdio:persistent`, then the
 * file shown as `›`), which keeps a grep naming a target working (the report's rerun
 * command, checkGrep with a target). A check is selected when `grep` matches either and
 * `grepInvert` matches neither.
 */
export function selected(selection: Selection | undefined, target: string, id: string, title: string): boolean {
  if (!selection) return true;
  const texts = [checkTitle(id, title), ` ${target} › ${checkTitle(id, title)}`];
  const matches = (text: string): boolean => texts.some((t) => selectionRegExp(text).test(t));
  if (selection.grep !== undefined && !matches(selection.grep)) return false;
  return selection.grepInvert === undefined || !matches(selection.grepInvert);
}
