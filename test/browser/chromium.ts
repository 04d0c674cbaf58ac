/**
 * Debian's Chromium driven by playwright-core, with nothing installed or downloaded at run time.
 * Without /usr/bin/chromium a browser suite is skipped, unless LOOPCHART_REQUIRE_BROWSER=1 (CI),
 * where that is a failure.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type BrowserContext, chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';

export const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** How long a browser suite waits for an install under way (LOOPCHART_BROWSER_INSTALL_DONE). */
const INSTALL_WAIT_MS = 10 * 60_000;

/**
 * On a fresh CI machine .ci/run installs Chromium while `npm ci`, the build and the checks run,
 * and names the file it writes once the install has ended (LOOPCHART_BROWSER_INSTALL_DONE, holding
 * apt's exit code). A browser suite waits for that file before it looks for the browser, so the
 * install overlaps the rest of the run instead of delaying it.
 */
async function waitForBrowserInstall(): Promise<void> {
  const done = process.env.LOOPCHART_BROWSER_INSTALL_DONE;
  if (done === undefined || done === '') return;
  for (let waited = 0; !existsSync(done); waited += 500) {
    if (waited >= INSTALL_WAIT_MS)
      throw new Error(`the Chromium install .ci/run started has not ended (no ${done} after 10 minutes)`);
    await sleep(500);
  }
  const code = readFileSync(done, 'utf8').trim();
  if (code !== '0') console.warn(`the Chromium install .ci/run started ended with exit code ${code}`);
}

await waitForBrowserInstall();

/** True when the browser suites run. */
export const browserAvailable = existsSync(CHROMIUM);

/** Registers the "Chromium is required" failure (CI) or warns that the suite is skipped. */
export function requireBrowserOrSkip(): void {
  const required = process.env.LOOPCHART_REQUIRE_BROWSER === '1';
  if (!browserAvailable && !required)
    console.warn(
      `browser tests skipped: ${CHROMIUM} not found (set LOOPCHART_REQUIRE_BROWSER=1 to fail instead)`,
    );
  describe.runIf(!browserAvailable && required)('browser', () => {
    it(`needs Chromium at ${CHROMIUM} (LOOPCHART_REQUIRE_BROWSER=1)`, () => {
      expect.fail(`${CHROMIUM} is missing; install Debian's chromium package`);
    });
  });
}

/** Launches one headless Chromium with its profile under `dir`. */
export function launchChromium(dir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1600, height: 1000 },
  });
}

/** The leaf state ids a state value names, for machines whose states keep their default ids. */
export function leafIds(prefix: string, value: unknown): string[] {
  if (typeof value === 'string') return [`${prefix}.${value}`];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, inner]) =>
    leafIds(`${prefix}.${key}`, inner),
  );
}
