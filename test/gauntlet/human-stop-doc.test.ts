/**
 * docs/human-stops.md shows one rendered example per stop kind. The examples are produced here,
 * from the code, and the test fails when the document drifts. Regenerate the generated section
 * with: UPDATE_HUMAN_STOPS_DOC=1 npx vitest run test/gauntlet/human-stop-doc.test.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type HumanStop, menuFor, renderHumanStop } from '../../src/gauntlet/human-stop.js';
import type { Ledger } from '../../src/gauntlet/types.js';
import { ledger, row } from './validation-fixtures.js';

const DOC = join(import.meta.dirname, '..', '..', 'docs', 'human-stops.md');
const START = '<!-- generated: stop examples (test/gauntlet/human-stop-doc.test.ts) -->';
const END = '<!-- end of generated stop examples -->';

const working: Ledger = ledger({
  iterations: 9,
  rows: [
    row(1, 'done', 0, 'npm test -- export.test.ts; header already written on baseline'),
    row(2, 'failed', 4, 'npm test -- export.test.ts; 1 failing: quoted commas split the cell'),
    row(3, 'open', 1, 'npm test -- export.test.ts; 1 failing: empty report'),
    row(4, 'cut', 0, 'deferred: TRACK-7'),
  ],
  decisions: [
    'row 0 done | seeded 3 rows, closed 1 on baseline | row 2',
    'row 2 failed | commas inside quoted fields split the cell | quote fields before joining',
    'row 2 escalated | implModel round | allowed attempts 4',
    'row 3 retry | start from the empty fixture | allowed attempts 5',
    'row 2 failed | quoting still splits on embedded commas | human decision needed',
  ],
});

const unseeded: Ledger = ledger({
  iterations: 4,
  rows: [row(1, 'open', 0, ''), row(2, 'open', 0, ''), row(3, 'cut', 0, 'deviates: CSV only')],
});

const closed: Ledger = ledger({
  iterations: 15,
  rows: [
    row(1, 'done', 1, 'npm test; 12 passed'),
    row(2, 'done', 2, 'npm test; 14 passed'),
    row(3, 'cut', 0, 'elsewhere: api'),
  ],
});

const reopened: Ledger = {
  ...closed,
  rows: [row(1, 'open', 1, 'reopened by amendment'), ...closed.rows.slice(1)],
};

interface Example {
  readonly title: string;
  readonly when: string;
  readonly stop: HumanStop;
  readonly ledger: Ledger | null;
}

const EXAMPLES: Example[] = [
  {
    title: 'Row allowance (rule 2)',
    when: 'An open or failed row has spent its effective allowance.',
    stop: { kind: 'row-allowance', row: 2 },
    ledger: working,
  },
  {
    title: 'Missing model',
    when: 'The escalated round is due but `escalationLoop.implModel` cannot be resolved; nothing was bumped or written.',
    stop: { kind: 'missing-model', row: 3 },
    ledger: working,
  },
  {
    title: 'Seed exhaustion',
    when: 'The `loop: repair seed` count reached the allowance. Only `rows +N` permits more seed dispatches.',
    stop: { kind: 'seed-exhaustion', seedRepairs: 4, lastReason: 'seed miss: the seed gave no row evidence' },
    ledger: unseeded,
  },
  {
    title: 'Bound spent',
    when: "Unreachable routing found `bound spent: ...` as the admitted failed target's first result segment.",
    stop: { kind: 'bound-spent', row: 2 },
    ledger: working,
  },
  {
    title: 'Unreachable row without amend permission',
    when: 'Unreachable routing found `unreachable: <what> - <where>` on a non-venue row and no grant applies.',
    stop: {
      kind: 'unreachable-amend',
      row: 2,
      what: 'staging bucket',
      where: 'docs/ops/staging.md',
      rowText: 'Exported reports upload to the staging bucket',
    },
    ledger: working,
  },
  {
    title: 'Amend item without amend permission',
    when: 'The admitted failed target reported `amend: <what> - <evidence>` (the spec is factually wrong) and no grant applies. Under an active `**Amend-grant:**` the item is applied without this stop (`loop: amend`). The bare Amend menu number applies the recommended `## Amendments` entry.',
    stop: {
      kind: 'spec-amend',
      row: 2,
      what: 'the bucket is named reports-staging',
      evidence: 'aws s3 ls lists reports-staging',
      entry: 'row 2: the bucket is named reports-staging; evidence: aws s3 ls lists reports-staging',
    },
    ledger: working,
  },
  {
    title: 'Repeated evidence',
    when: "An `amend:` item whose evidence the spec's `## Amendments` already carries: an earlier amendment answered that observation and the row still fails on it. Stops under options 4 and 5 alike.",
    stop: {
      kind: 'repeated-evidence',
      row: 2,
      what: 'the bucket is named reports-staging',
      evidence: 'aws s3 ls lists reports-staging',
      earlier: 'row 2: the bucket is named reports-staging; evidence: aws s3 ls lists reports-staging',
    },
    ledger: working,
  },
  {
    title: 'Redraw item',
    when: 'The admitted failed target reported `redraw: <why>`: the problem statement or a component changed. A redraw stops under options 4 and 5 alike; `redraw` (the bare menu number) deletes the ledger in one `loop: redraw` commit and ends the run, and the next run seeds a fresh ledger from the spec.',
    stop: { kind: 'redraw', row: 2, reason: 'uploads move to the ingest service' },
    ledger: working,
  },
  {
    title: 'Recovery incomplete',
    when: 'Interrupted recovery could not prove ownership, account for actions or clean up. Rows are the saved pre-dispatch cells.',
    stop: {
      kind: 'recovery-incomplete',
      iteration: 9,
      what: 'checkout ownership unproven',
      detail: 'no dispatch provenance was retained for iteration 9 (fresh session)',
    },
    ledger: working,
  },
  {
    title: 'Dirty tree or commit boundary',
    when: 'The checkout holds changes or commits that no dispatch accounts for.',
    stop: { kind: 'commit-boundary', problem: 'dirty tree', detail: '2 paths changed outside a dispatch' },
    ledger: working,
  },
  {
    title: 'Dirty tree at a fresh entry',
    when: 'A fresh start (no ledger yet) found uncommitted or untracked changes. The loop stops before it seeds the ledger or runs a child, so no child can stage them. Every change predates the run, so only `stop` is offered (`discard` is refused) and nothing is reset, cleaned or staged. What the person does next: commit the changes, stash them (`git stash -u`) or move them out of the worktree, then run `loopchart run` again with the same arguments; it is still a fresh start and seeds as usual. Ignored files are not dirt.',
    // The detail quotes porcelain v1 lines whole: ` M` is an unstaged change.
    stop: { kind: 'dirty-start', detail: ' M README.md; ?? notes.txt' },
    ledger: null,
  },
  {
    title: 'Verification failed',
    when: 'Verify step 1 failed with `repairs >= allowance`. At most the last 20 log lines are quoted.',
    stop: {
      kind: 'verification-failed',
      repairs: 4,
      problem: {
        kind: 'gate',
        gate: 2,
        exitCode: 1,
        logPath: '/tmp/tmp.Qx81/gate-2.log',
        tail: 'FAIL test/export.test.ts > quoting\n  expected "a,b" got "a|b"\nTests 1 failed | 13 passed\n',
      },
    },
    ledger: closed,
  },
  {
    title: 'Row reopened during verify',
    when: 'An approved amendment re-bounded a done row while verify was active.',
    stop: { kind: 'reopened-during-verify', row: 1 },
    ledger: reopened,
  },
  {
    title: 'Configuration error',
    when: 'The loop cannot go on without a configuration change; the message is quoted verbatim.',
    stop: {
      kind: 'configuration-error',
      message: 'ledger has no allowance: line - resume through /skill:gauntlet-resume',
    },
    ledger: null,
  },
];

function section(example: Example): string {
  const offers = menuFor(example.stop)
    .map((offer) => offer.kind)
    .join(', ');
  return [
    `### ${example.title} (\`${example.stop.kind}\`)`,
    '',
    example.when,
    '',
    '```text',
    renderHumanStop(example.stop, example.ledger).trimEnd(),
    '```',
    '',
    `Offers: ${offers}.`,
  ].join('\n');
}

function generated(): string {
  return [START, '', ...EXAMPLES.map(section).flatMap((text) => [text, '']), END].join('\n');
}

describe('docs/human-stops.md', () => {
  it('shows every stop kind rendered by the current code', () => {
    const doc = readFileSync(DOC, 'utf8');
    const start = doc.indexOf(START);
    const end = doc.indexOf(END);
    expect(start, 'the generated section markers are missing').toBeGreaterThanOrEqual(0);
    expect(end).toBeGreaterThan(start);
    const expected = generated();
    if (process.env.UPDATE_HUMAN_STOPS_DOC === '1') {
      writeFileSync(DOC, doc.slice(0, start) + expected + doc.slice(end + END.length));
      return;
    }
    expect(doc.slice(start, end + END.length)).toBe(expected);
  });

  it('covers every stop kind once', () => {
    const kinds = EXAMPLES.map((example) => example.stop.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    expect(kinds).toHaveLength(14);
  });
});
