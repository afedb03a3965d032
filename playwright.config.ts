// Conformance suites: Playwright Test is the engine that runs the checks of a claim
// (projects = claim × role × transport, fixtures launch the implementation under
// test, reporters write the conformance reports). The suites arrive with the `run`
// command; the self-tests of this tool use test/playwright.config.ts.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: './suites',
  testMatch: '**/*.spec.ts',
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  outputDir: './reports/.playwright-output',
  reporter: [['list']],
});
