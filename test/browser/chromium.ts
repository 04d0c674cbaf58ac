/**
 * Debian's Chromium driven by playwright-core, with nothing installed or downloaded at run time.
 * Without /usr/bin/chromium a browser suite is skipped, unless LOOPCHART_REQUIRE_BROWSER=1 (CI),
 * where that is a failure.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
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
