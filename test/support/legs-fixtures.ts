/**
 * Shared builders of the coordinated-legs tests (issue 13): the coordinated ledger of
 * gauntlet-protocol §1.8 (members web = home and api, AC 2 shared) in text form with the parts a
 * test varies, a spec with `## Legs` (docs/decisions/legs.md L1), and a companion checkout (a real
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

/** §1.8's home base (`base:` and `base web:`). */
export const HOME_BASE = '3f9c2d1e6b0a47c58f1d2e3a4b5c6d7e8f901234';
/** §1.8's `base api:`. */
export const API_BASE = '0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d';

/** One `base <member>:` / `seeded <member>:` pair. */
export interface LedgerMember {
  readonly name: string;
  readonly base: string;
  readonly seeded: boolean;
}

/** One `## Leg mapping` line: row, criterion, member. */
export type MappingLine = readonly [row: number, ac: number, leg: string];

/** §1.8's mapping: AC 1 web, AC 2 web and api (shared), AC 3 api. */
export const SECTION_1_8_MAPPING: readonly MappingLine[] = [
  [1, 1, 'web'],
  [2, 2, 'web'],
  [3, 2, 'api'],
  [4, 3, 'api'],
];

/** What a test varies in a coordinated ledger; everything else is §1.8's. */
export interface CoordinatedLedgerOptions {
  /** The `**Spec:**` path (default `doc/specs/csv-export.md`). */
  readonly spec?: string;
  /** `base:` (default {@link HOME_BASE}). */
  readonly base?: string;
  /** The member pairs in membership order (default web at the home base, seeded; api unseeded). */
  readonly members?: readonly LedgerMember[];
  readonly verification?: string;
  readonly iterations?: number;
  readonly allowance?: number;
  /** The tuple after `pending: `, when one is on disk. */
  readonly pending?: string;
  /** The row table's lines (`| n | status | attempts | evidence |`). */
  readonly rows: readonly string[];
  /** Default {@link SECTION_1_8_MAPPING}. */
  readonly mapping?: readonly MappingLine[];
  readonly decisions?: readonly string[];
}

/** The default members: web (home, seeded) and api (not seeded). */
export const WEB_AND_API: readonly LedgerMember[] = [
  { name: 'web', base: HOME_BASE, seeded: true },
  { name: 'api', base: API_BASE, seeded: false },
];

/**
 * A coordinated ledger's text in the layout of docs/ledger-format.md: headers, the member pairs
 * right after `base:`, the row table, `## Leg mapping`, `## Decisions`.
 */
export function coordinatedLedgerText(options: CoordinatedLedgerOptions): string {
  const members = options.members ?? WEB_AND_API;
  const decisions = options.decisions ?? [];
  return [
    '# Loop ledger',
    `**Spec:** ${options.spec ?? 'doc/specs/csv-export.md'}`,
    `base: ${options.base ?? HOME_BASE}`,
    ...members.flatMap((m) => [`base ${m.name}: ${m.base}`, `seeded ${m.name}: ${m.seeded ? 'yes' : 'no'}`]),
    `verification: ${options.verification ?? 'npm test'}`,
    'checks: commands',
    `iterations: ${options.iterations ?? 2}`,
    `allowance: ${options.allowance ?? 4}`,
    ...(options.pending === undefined ? [] : [`pending: ${options.pending}`]),
    '',
    '| row | status | attempts | evidence |',
    '|---|---|---|---|',
    ...options.rows,
    '',
    '## Leg mapping',
    '',
    '| row | ac | leg |',
    '|---|---|---|',
    ...(options.mapping ?? SECTION_1_8_MAPPING).map(([row, ac, leg]) => `| ${row} | ${ac} | ${leg} |`),
    '',
    '## Decisions',
    '',
    ...decisions,
    ...(decisions.length > 0 ? [''] : []),
  ].join('\n');
}

/** Parses a ledger the test wrote and requires it to parse without findings. */
export function parsedLedger(text: string): Ledger {
  const result = parseLedger(text);
  expect(result.findings).toEqual([]);
  return result.ledger as Ledger;
}

/** A spec: title, optional amend grant, the criteria as open checkboxes, then `## Legs`. */
export function legSpecText(options: {
  readonly criteria: readonly string[];
  readonly legs: readonly string[];
  readonly title?: string;
  readonly grant?: string;
}): string {
  return [
    `# ${options.title ?? 'Test feature'}`,
    '',
    `**Amend-grant:** ${options.grant ?? 'none'}`,
    '',
    '## Acceptance criteria',
    '',
    ...options.criteria.map((c) => `- [ ] ${c}`),
    '',
    '## Legs',
    '',
    ...options.legs,
    '',
  ].join('\n');
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
