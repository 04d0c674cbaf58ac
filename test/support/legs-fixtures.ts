/**
 * Shared builders of the coordinated-legs tests (issue 13): the coordinated ledger of
 * gauntlet-protocol §1.8 (members web = home and api, AC 2 shared) in text form with the parts a
 * test varies (re-exported from test/gauntlet/text-fixtures.ts, which also holds the single-leg
 * ledger), a spec with `## Legs` (docs/decisions/legs.md L1), and a companion checkout (a real
 * repository with one commit) for the end-to-end tests. The builders write what the protocol's
 * format prescribes (§1.2, §1.7); no value here comes from the code under test.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parseLedger } from '../../src/gauntlet/ledger.js';
import type { Ledger } from '../../src/gauntlet/types.js';
import { GIT_TEST_ENV } from './loop-repo.js';

/** The coordinated ledger's values and builder and the `## Legs` spec, written once in test/gauntlet/text-fixtures.ts. */
export {
  API_BASE,
  BASE as HOME_BASE,
  type CoordinatedTextOptions as CoordinatedLedgerOptions,
  coordinatedText as coordinatedLedgerText,
  type LedgerMember,
  legSpecText,
  MAPPING_1_8 as SECTION_1_8_MAPPING,
  type MappingLine,
  MEMBERS_1_8 as WEB_AND_API,
} from '../gauntlet/text-fixtures.js';

/** Parses a ledger the test wrote and requires it to parse without findings. */
export function parsedLedger(text: string): Ledger {
  const result = parseLedger(text);
  expect(result.findings).toEqual([]);
  return result.ledger as Ledger;
}

/** A companion checkout for an end-to-end test: a real repository with one commit. */
export interface CompanionCheckout {
  readonly dir: string;
  git(...args: string[]): string;
  /** Subjects after the initial commit, oldest first. */
  subjects(): string[];
  head(): string;
  remove(): void;
}

/**
 * Creates a companion checkout (`README.md`, a `.gitignore` ignoring `*.log`, one commit).
 *
 * @param name the member's name (in the folder name and the README)
 */
export function companionCheckout(name: string): CompanionCheckout {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `loopchart-leg-${name}-`)));
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: dir, env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'README.md'), `${name} service\n`);
  writeFileSync(join(dir, '.gitignore'), '*.log\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  return {
    dir,
    git,
    subjects: () => git('log', '--reverse', '--format=%s').trim().split('\n').slice(1),
    head: () => git('rev-parse', 'HEAD').trim(),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
