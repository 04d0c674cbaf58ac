/**
 * Spec and ledger texts shared by the gauntlet tests (and, through test/support/legs-fixtures.ts,
 * the coordinated-legs tests elsewhere), written from docs/ledger-format.md (§7 for the spec, §1
 * for the ledger) as plain strings and small builders. Nothing here imports or runs the code under
 * test: a test parses or writes these texts itself, inside its `it` block.
 */

/** A spec titled "CSV export" with the given acceptance-criteria lines and header lines (after the title). */
export function csvSpecText(criteria: readonly string[], header: readonly string[] = []): string {
  return [
    '# CSV export',
    ...header,
    '',
    '## Goal',
    '',
    'Export reports as CSV.',
    '',
    '## Acceptance criteria',
    '',
    ...criteria,
    '',
    '## Out of scope',
    '',
    '- XLSX',
    '',
  ].join('\n');
}

/** A spec: title, optional amend grant, the criteria as open checkboxes, then `## Legs` (docs/decisions/legs.md L1). */
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

/** 1-based number of the first line of `text` equal to `line` (a reference independent of any parser). */
export function lineOf(text: string, line: string): number {
  const index = text.split('\n').indexOf(line);
  if (index === -1) throw new Error(`no line ${JSON.stringify(line)}`);
  return index + 1;
}

/** `base:` of docs/ledger-format.md §1.1 and §1.5 (also the home base of §1.8). */
export const BASE = '3f9c2d1e6b0a47c58f1d2e3a4b5c6d7e8f901234';
/** The head in §1.1's `pending:` tuple. */
export const HEAD = '9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b';
/** §1.8's `base api:`. */
export const API_BASE = '0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d';

/** One `base <member>:` / `seeded <member>:` pair of a coordinated ledger (§1.8). */
export interface LedgerMember {
  readonly name: string;
  readonly base: string;
  readonly seeded: boolean;
}

/** §1.8's members: web (home, at {@link BASE}, seeded) and api (at {@link API_BASE}, not seeded). */
export const MEMBERS_1_8: readonly LedgerMember[] = [
  { name: 'web', base: BASE, seeded: true },
  { name: 'api', base: API_BASE, seeded: false },
];

/** One `## Leg mapping` line: row, criterion, member. */
export type MappingLine = readonly [row: number, ac: number, leg: string];

/** §1.8's mapping: AC 1 web, AC 2 web and api (shared), AC 3 api. */
export const MAPPING_1_8: readonly MappingLine[] = [
  [1, 1, 'web'],
  [2, 2, 'web'],
  [3, 2, 'api'],
  [4, 3, 'api'],
];

/** The header values of a ledger; each default is the freshly seeded single-leg ledger of §1.5. */
export interface LedgerHeadOptions {
  /** The `**Spec:**` path (default `doc/specs/x.md`). */
  readonly spec?: string;
  /** `base:` (default {@link BASE}). */
  readonly base?: string;
  /** The member pairs of a coordinated ledger, right after `base:` (default none: single leg). */
  readonly members?: readonly LedgerMember[];
  /** Default `npm test`. */
  readonly verification?: string;
  /** Default 0. */
  readonly iterations?: number;
  /** Default 4. */
  readonly allowance?: number;
  /** The tuple after `pending: `, when one is on disk. */
  readonly pending?: string;
}

/**
 * The header block of §1.2 in the canonical order of §1.5 (member pairs right after `base:`, §1.8):
 * line 1 to `allowance:`, or to `pending:` when one is given.
 */
export function ledgerHead(options: LedgerHeadOptions = {}): string[] {
  return [
    '# Loop ledger',
    `**Spec:** ${options.spec ?? 'doc/specs/x.md'}`,
    `base: ${options.base ?? BASE}`,
    ...(options.members ?? []).flatMap((m) => [
      `base ${m.name}: ${m.base}`,
      `seeded ${m.name}: ${m.seeded ? 'yes' : 'no'}`,
    ]),
    `verification: ${options.verification ?? 'npm test'}`,
    'checks: commands',
    `iterations: ${options.iterations ?? 0}`,
    `allowance: ${options.allowance ?? 4}`,
    ...(options.pending === undefined ? [] : [`pending: ${options.pending}`]),
  ];
}

/** A ledger's header values, its row lines and (for a coordinated ledger) its leg mapping and decisions. */
export interface LedgerTextOptions extends LedgerHeadOptions {
  /** The row table's lines (`| n | status | attempts | evidence |`), written as given. */
  readonly rows: readonly string[];
  /** The `## Leg mapping` lines of a coordinated ledger (default none: single leg). */
  readonly mapping?: readonly MappingLine[];
  readonly decisions?: readonly string[];
}

/**
 * A ledger's canonical text (§1.5, §1.8): the header block, a blank line, the table head, the
 * row lines, a blank line, `## Leg mapping` and its table when a mapping is given, `## Decisions`,
 * then (when there are some) a blank line and one decision per line; LF endings, a final newline.
 */
export function ledgerText(options: LedgerTextOptions): string {
  const decisions = options.decisions ?? [];
  return [
    ...ledgerHead(options),
    '',
    '| row | status | attempts | evidence |',
    '|---|---|---|---|',
    ...options.rows,
    '',
    ...(options.mapping === undefined
      ? []
      : [
          '## Leg mapping',
          '',
          '| row | ac | leg |',
          '|---|---|---|',
          ...options.mapping.map(([row, ac, leg]) => `| ${row} | ${ac} | ${leg} |`),
          '',
        ]),
    '## Decisions',
    '',
    ...decisions,
    ...(decisions.length > 0 ? [''] : []),
  ].join('\n');
}

/**
 * The row lines of the in-flight example ledger: the realistic ledger of gauntlet-protocol §1.8
 * (docs/ledger-format.md §1.1 shows it with five rows), on disk mid-dispatch.
 */
export const EXAMPLE_ROWS: readonly string[] = [
  '| 1 | done | 0 | npm test -- csv.test.ts; header row already exported on baseline |',
  '| 2 | done | 1 | npm test -- csv.test.ts; 14 passed; commas and quotes escaped in src/export/csv.ts |',
  '| 3 | failed | 4 | staging-smoke; unreachable: staging bucket upload - docs/ops/staging.md |',
  '| 4 | cut | 0 | deferred: ACME-412 |',
  '| 5 | open | 0 | npm test -- csv.test.ts; 1 failing: export of empty report writes no header |',
  '| 6 | cut | 0 | deviates: XLSX output dropped by product decision; CSV only |',
];

/** The example's decision lines (§2): the seed, row 2 closed, then row 3's failures, escalation and retry. */
export const EXAMPLE_DECISIONS: readonly string[] = [
  'row 0 done | seeded 4 rows, closed 1 on baseline | row 2',
  'row 2 done | CSV writer escapes commas and quotes per RFC 4180 | take row 3 next',
  'row 3 failed | upload step cannot reach the staging bucket from this checkout | try a local object-store fixture',
  'row 3 failed | fixture attempt still needs staging credentials | needs a stub endpoint',
  'row 3 escalated | implModel round | allowed attempts 4',
  'row 3 failed | stub endpoint rejected multipart upload | human decision needed',
  'row 3 failed | staging bucket still unreachable after the stub | human decision needed',
  'row 3 retry | use the local MinIO fixture | allowed attempts 5',
];

/**
 * The in-flight example ledger: §1.1's headers (iteration 7, a dispatch pending on row 3), the
 * {@link EXAMPLE_ROWS} and the given decisions (default all of {@link EXAMPLE_DECISIONS}).
 */
export function exampleLedgerText(decisions: readonly string[] = EXAMPLE_DECISIONS): string {
  return ledgerText({
    spec: 'doc/specs/2026-11-02-csv-export.md',
    iterations: 7,
    pending: `3 | home | ${HEAD}`,
    rows: EXAMPLE_ROWS,
    decisions,
  });
}

/** {@link exampleLedgerText} with every example decision. */
export const EXAMPLE_LEDGER: string = exampleLedgerText();

/** What a test varies in §1.8's coordinated ledger; every option left out is §1.8's. */
export type CoordinatedTextOptions = Partial<LedgerTextOptions> & Pick<LedgerTextOptions, 'rows'>;

/**
 * §1.8's coordinated ledger with the given rows: `**Spec:** doc/specs/csv-export.md`,
 * {@link MEMBERS_1_8}, iteration 2 and {@link MAPPING_1_8} unless the options say otherwise.
 */
export function coordinatedText(options: CoordinatedTextOptions): string {
  return ledgerText({
    ...options,
    spec: options.spec ?? 'doc/specs/csv-export.md',
    members: options.members ?? MEMBERS_1_8,
    iterations: options.iterations ?? 2,
    mapping: options.mapping ?? MAPPING_1_8,
  });
}
