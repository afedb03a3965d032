// Which target a Playwright test judged. One project runs every target of a claim's role
// (playwright.config.ts): the project's metadata names the claim and the role, the test's
// annotation its shape (suites/support/check.ts). Blob reports keep both, so a merge reads
// them as the run did.
import type { TestCase } from '@playwright/test/reporter';
import type { Role } from '../checks/catalogue.js';
import { ANNOTATION } from './annotations.js';
import { shapeParts, targetShape, type Target } from './model.js';

/** What playwright.config.ts records in each project's metadata. */
export interface RoleProjectMetadata {
  claimIndex: number;
  role: Role;
  /** Per target of the role, the checks the project must collect under its shape. */
  targets: { shape: string; checks: string[] }[];
}

/** The project's metadata, if it is one of ours. */
export function roleProjectMetadata(metadata: unknown): RoleProjectMetadata | undefined {
  const m = metadata as Partial<RoleProjectMetadata> | undefined;
  return typeof m?.claimIndex === 'number' && typeof m.role === 'string' && Array.isArray(m.targets)
    ? (m as RoleProjectMetadata)
    : undefined;
}

/** The shape a test was registered under (its annotation). */
export const testShape = (test: Pick<TestCase, 'annotations'>): string | undefined =>
  test.annotations.find((a) => a.type === ANNOTATION.target)?.description;

/** The target a test judged; undefined for a test that is no check of a run's target. */
export function testTarget(test: TestCase): Target | undefined {
  const project = roleProjectMetadata(test.parent.project()?.metadata);
  const shape = testShape(test);
  const parts = shape === undefined ? undefined : shapeParts(shape);
  if (!project || !parts || !project.targets.some((t) => t.shape === targetShape(parts))) return undefined;
  return { claimIndex: project.claimIndex, role: project.role, ...parts };
}

/** `[acme:backend:stdio:persistent]`'s text for a test: its project and its shape. */
export function testTargetName(test: TestCase): string {
  const project = test.parent.project()?.name ?? '';
  const shape = testShape(test);
  return shape === undefined ? project : `${project}:${shape}`;
}
