// How a check appears among Playwright's tests, and how a run selects it: the title written
// by the suites (suites/support/check.ts), the grep of each project (playwright.config.ts),
// the report's rerun command and the self-tests' fault matrices all use these, so they agree.

/** A check's test title: the check id leads, then its title. */
export const checkTitle = (id: string, title: string): string => `${id}: ${title}`;

/** `text` matched literally inside a regular expression. */
export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A grep for these checks, optionally of one project. Playwright matches a grep against the
 * test's title path joined by spaces: project name, file, describe titles, test title.
 */
export const checkGrep = (ids: readonly string[], project?: string): string =>
  `${project === undefined ? '' : `(^| )${escapeRegExp(project)} .*`}(^| )(${ids.map(escapeRegExp).join('|')}): `;
