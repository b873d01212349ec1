/**
 * A real browser for the web renderer's tests: Debian's Chromium (never a downloaded build),
 * driven headless by playwright-core with the flags this machine needs (no sandbox as root, no
 * GPU, no background networking to hosts it cannot reach). axe-core checks each pane, and
 * screenshots are kept as artefacts in test-artifacts/web/ (gitignored).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { AxeResults, Result } from 'axe-core';
import { type Browser, chromium, type Page } from 'playwright-core';
import { ROOT } from './cli.js';

export const CHROMIUM = process.env.TINY_HARNESS_CHROMIUM ?? '/usr/bin/chromium';

export const ARTIFACTS = join(ROOT, 'test-artifacts', 'web');

export const launchChromium = async (): Promise<Browser> => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's (apt-get install -y chromium; .ci/run does), or set TINY_HARNESS_CHROMIUM`
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
};

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8'
);

/** The violations of impact serious or critical in `selector` (the whole page by default). */
export const seriousViolations = async (page: Page, selector = 'body'): Promise<Result[]> => {
  // Evaluated through the DevTools protocol: a script tag would be refused by the page's CSP.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const results = (await page.evaluate(
    (include) =>
      (window as unknown as { axe: { run(context: unknown): Promise<unknown> } }).axe.run({
        include: [include],
      }),
    selector
  )) as AxeResults;
  return results.violations.filter(
    (violation) => violation.impact === 'serious' || violation.impact === 'critical'
  );
};

/** A violation list as people read it: rule, impact, and the first few offending nodes. */
export const describeViolations = (violations: Result[]) =>
  violations
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help}\n${violation.nodes
          .slice(0, 3)
          .map((node) => `  ${node.target.join(' ')}: ${node.failureSummary ?? ''}`)
          .join('\n')}`
    )
    .join('\n');

/** Saves a screenshot as a test artefact; returns its path. */
export const keepScreenshot = async (page: Page, name: string): Promise<string> => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
};
