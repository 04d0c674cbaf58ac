// Amendments and unreachable routing on coordinated ledgers (issue 13, docs/decisions/legs.md
// L12). Expected ledgers, bodies and spec lines are written by hand from gauntlet-protocol §1.7
// ("copy each cut disposition to every expanded entry"), §1.8's coordinated variant (web = home,
// api; AC 2 shared: row 2 is AC 2 in web, row 3 AC 2 in api), §3.13 (routing of an admitted failed
// target, "the home spec/ledger own the cut") and §3.17 (cut and re-bound edits).
import { describe, expect, it } from 'vitest';
import { amendSpecText } from '../../src/gauntlet/amendment.js';
import { historyFromCommits } from '../../src/gauntlet/history.js';
import { checkLedger, serializeLedger } from '../../src/gauntlet/ledger.js';
import {
  criterionOfRow,
  entriesOfCriterion,
  ledgerRowTexts,
  specRowOfLedgerRow,
} from '../../src/gauntlet/leg-amendments.js';
import { cutRowEdit, reopenRowEdit } from '../../src/gauntlet/repair.js';
import { evaluateRules } from '../../src/gauntlet/rules.js';
import { parseSpec } from '../../src/gauntlet/spec.js';
import type { CommitFact, Ledger } from '../../src/gauntlet/types.js';
import { API_BASE, coordinatedLedgerText, HOME_BASE, parsedLedger } from '../support/legs-fixtures.js';

const LEDGER_PATH = 'doc/plans/csv-export.md';

const SPEC = [
  '# CSV export',
  '',
  '**Amend-grant:** auto-apply amends, stop only for redraws',
  '',
  '## Acceptance criteria',
  '',
  '- [ ] The export button downloads a CSV file',
  '- [ ] The CSV endpoint streams the report from the staging bucket',
  '- [ ] The endpoint is rate limited',
  '',
  '## Legs',
  '',
  '- web (home): 1, 2',
  '- api: 2, 3',
  '',
].join('\n');

/** §1.8's coordinated variant, both legs seeded, with the given row lines (rows 1-4) and decisions. */
function ledgerText(rows: readonly string[], decisions: readonly string[] = []): string {
  return coordinatedLedgerText({
    members: [
      { name: 'web', base: HOME_BASE, seeded: true },
      { name: 'api', base: API_BASE, seeded: true },
    ],
    iterations: 5,
    rows,
    decisions,
  });
}

const parsed = parsedLedger;

const ROWS = [
  '| 1 | done | 1 | button check; passes |',
  '| 2 | done | 1 | stream check; passes in web |',
  '| 3 | failed | 2 | stream check @ api 0123456789ab; 1 failing |',
  '| 4 | open | 0 | rate check; 1 failing |',
];

describe('rows and criteria on a coordinated ledger', () => {
  it('maps §1.8: row 3 is AC 2, whose entries are row 2 (web) and row 3 (api)', () => {
    const ledger = parsed(ledgerText(ROWS));
    expect(criterionOfRow(ledger, 3)).toBe(2);
    expect(criterionOfRow(ledger, 4)).toBe(3);
    expect(criterionOfRow(ledger, 9)).toBeNull();
    expect(entriesOfCriterion(ledger, 2)).toEqual([
      { row: 2, leg: 'web' },
      { row: 3, leg: 'api' },
    ]);
    expect(specRowOfLedgerRow(parseSpec(SPEC).spec, ledger, 3)?.text).toBe(
      'The CSV endpoint streams the report from the staging bucket',
    );
  });

  it('gives each ledger row its criterion text: the shared AC 2 under rows 2 and 3 (L21)', () => {
    const spec = parseSpec(SPEC).spec.rows;
    const texts = ledgerRowTexts(spec, parsed(ledgerText(ROWS)));
    expect(texts.map((t) => [t.row, t.text])).toEqual([
      [1, 'The export button downloads a CSV file'],
      [2, 'The CSV endpoint streams the report from the staging bucket'],
      [3, 'The CSV endpoint streams the report from the staging bucket'],
      [4, 'The endpoint is rate limited'],
    ]);
    // A single-leg ledger's rows are its criteria; without a ledger the criteria stand as they are.
    expect(ledgerRowTexts(spec, null).map((t) => t.row)).toEqual([1, 2, 3]);
  });
});

describe('a cut answered by row cuts its criterion in every leg', () => {
  it('amend cut 3: rows 2 and 3 cut with the disposition, attempts kept; the spec disposes AC 2', () => {
    const ledger = parsed(ledgerText(ROWS));
    const edit = cutRowEdit(ledger, 3, 'deferred: API-12');
    expect(edit.subject).toBe('loop: cut row 3');
    expect(edit.body).toBe(
      [
        'cut row 2: deferred: API-12',
        'cut row 3: deferred: API-12',
        'criterion 2: row 2 web, row 3 api',
      ].join('\n'),
    );
    expect(serializeLedger(edit.ledger)).toBe(
      ledgerText([
        '| 1 | done | 1 | button check; passes |',
        '| 2 | cut | 1 | deferred: API-12 |',
        '| 3 | cut | 2 | deferred: API-12 |',
        '| 4 | open | 0 | rate check; 1 failing |',
      ]),
    );
    // The spec edit names the criterion (AC 2), never the row number 3 (AC 3 stays in scope).
    const spec = amendSpecText(SPEC, { kind: 'cut', row: 2, disposition: 'deferred: API-12' });
    expect(spec).toContain(
      '- [ ] The CSV endpoint streams the report from the staging bucket\n  deferred: API-12\n- [ ] The endpoint is rate limited\n',
    );
    // Spec and ledger agree again: every entry of AC 2 is cut with its disposition, AC 3's is not.
    expect(checkLedger(edit.ledger, parseSpec(spec).spec)).toEqual([]);
  });

  it('a grant is recorded after the criterion line; an already cut row is refused', () => {
    const ledger = parsed(ledgerText(ROWS));
    expect(
      cutRowEdit(ledger, 2, 'deviates: no staging bucket', 'auto-apply amends').body.split('\n'),
    ).toEqual([
      'cut row 2: deviates: no staging bucket',
      'cut row 3: deviates: no staging bucket',
      'criterion 2: row 2 web, row 3 api',
      'granted',
      '"auto-apply amends"',
    ]);
    const cut = cutRowEdit(ledger, 3, 'deferred: API-12').ledger;
    expect(() => cutRowEdit(cut, 2, 'deferred: API-13')).toThrow(/row 2 is already cut/);
  });

  it('an unshared criterion is one entry: cut row 4 cuts only row 4', () => {
    const edit = cutRowEdit(parsed(ledgerText(ROWS)), 4, 'elsewhere: gateway');
    expect(edit.body).toBe('cut row 4: elsewhere: gateway\ncriterion 3: row 4 api');
    expect(edit.ledger.rows.map((r) => r.status)).toEqual(['done', 'done', 'failed', 'cut']);
  });
});

describe('a re-bound answered by row reopens its criterion', () => {
  it('amend reopen 2: every done entry of AC 2 reopens; a failed entry keeps its cells', () => {
    const edit = reopenRowEdit(parsed(ledgerText(ROWS)), 2, 'the bound changed');
    expect(edit.subject).toBe('loop: amend');
    expect(edit.body).toBe('reopened row 2 by amendment\ncriterion 2: row 2 web\nthe bound changed');
    expect(edit.ledger.rows[1]).toEqual({
      row: 2,
      status: 'open',
      attempts: 1,
      evidence: 'reopened by amendment',
    });
    expect(edit.ledger.rows[2]).toEqual(parsed(ledgerText(ROWS)).rows[2]);
  });

  it('both entries done: both reopen, attempts kept', () => {
    const rows = [...ROWS];
    rows[2] = '| 3 | done | 2 | stream check @ api 0123456789ab; passes |';
    const edit = reopenRowEdit(parsed(ledgerText(rows)), 3);
    expect(edit.body).toBe(
      'reopened row 2 by amendment\nreopened row 3 by amendment\ncriterion 2: row 2 web, row 3 api',
    );
    expect(serializeLedger(edit.ledger)).toBe(
      ledgerText([
        '| 1 | done | 1 | button check; passes |',
        '| 2 | open | 1 | reopened by amendment |',
        '| 3 | open | 2 | reopened by amendment |',
        '| 4 | open | 0 | rate check; 1 failing |',
      ]),
    );
  });
});

// A hand-written home history: the api seed's record, then the record of api's row 3 failing.
let shaCounter = 0;
function sha(): string {
  shaCounter += 1;
  return shaCounter.toString(16).padStart(40, 'd');
}

function commit(subject: string, body: string, ledger: Ledger): CommitFact {
  return { sha: sha(), subject, body, paths: [LEDGER_PATH], ledger };
}

/** The home history after api's row 3 failed with `evidence` (recorded, §3.20), then `after`. */
function companionFailure(evidence: string, after: CommitFact[] = []) {
  const before = parsed(
    ledgerText(
      [
        '| 1 | done | 1 | button check; passes |',
        '| 2 | done | 1 | stream check; passes in web |',
        '| 3 | open | 0 | stream check; 1 failing |',
        '| 4 | open | 0 | rate check; 1 failing |',
      ],
      ['row 0 done | seeded 2 rows, closed 0 on baseline | row 3', 'row 2 done | streams in web | row 3'],
    ),
  );
  const failedLine = `| 3 | failed | 1 | ${evidence} |`;
  const recorded = parsed(
    ledgerText(
      [
        '| 1 | done | 1 | button check; passes |',
        '| 2 | done | 1 | stream check; passes in web |',
        failedLine,
        '| 4 | open | 0 | rate check; 1 failing |',
      ],
      [
        'row 0 done | seeded 2 rows, closed 0 on baseline | row 3',
        'row 2 done | streams in web | row 3',
        'row 3 failed | the bucket is not reachable | needs a human',
      ],
    ),
  );
  const commits = [
    commit('loop: row 2 done', `pending: 2 | web | ${sha()}\niteration: 4`, before),
    commit(
      'loop: record api row 3',
      `pending: 3 | api | ${sha()}\niteration: 5\ncompanion: api ${'a'.repeat(40)}`,
      recorded,
    ),
    ...after,
  ];
  const ledger = after.at(-1)?.ledger ?? recorded;
  const history = historyFromCommits(commits, { ledger, ledgerPath: LEDGER_PATH });
  const spec = parseSpec(SPEC).spec;
  return {
    history,
    recorded,
    outcome: evaluateRules({
      ledger,
      history,
      escalateAfter: 2,
      routing: { spec, amendPermission: true, amendments: [] },
    }),
  };
}

describe('unreachable routing of a companion target (§3.13, L12)', () => {
  it('the record of a failed companion row is the latest admission, routed to a cut of AC 2', () => {
    const { history, outcome } = companionFailure(
      'stream check @ api 0123456789ab; unreachable: staging bucket - docs/ops.md',
    );
    expect(history.latestAdmission).toMatchObject({ row: 3, status: 'failed', answeredBy: null });
    expect(outcome).toMatchObject({
      kind: 'unreachable-amend',
      row: 3,
      what: 'staging bucket',
      where: 'docs/ops.md',
      disposition: 'deviates: unreachable in this checkout - staging bucket; proof at docs/ops.md',
      // AC 2's text (row 3 stands for AC 2), not AC 3's.
      outOfScope:
        'The CSV endpoint streams the report from the staging bucket - unreachable in this checkout - staging bucket',
      autoApply: true,
      amendedLine: 'amended the spec: row 3 - unreachable in this checkout - staging bucket',
    });
  });

  it('bound spent on the companion row is the row stop; an amend item names the criterion', () => {
    expect(
      companionFailure('stream check @ api 0123456789ab; bound spent: upload (1 of 1)').outcome,
    ).toMatchObject({ kind: 'bound-spent-stop', row: 3, marker: 'bound spent: upload (1 of 1)' });
    expect(
      companionFailure('stream check @ api 0123456789ab; amend: the report streams from MinIO - docs/ops.md')
        .outcome,
    ).toMatchObject({
      kind: 'spec-amend',
      row: 3,
      entry: 'criterion 2 (row 3, api): the report streams from MinIO; evidence: docs/ops.md',
      amendedLine: 'amended the spec: row 3 - the report streams from MinIO',
    });
  });

  it('routed once: the cut that answers it ends the routing; on the last allowed attempt it wins over rule 2', () => {
    const evidence = 'stream check @ api 0123456789ab; unreachable: staging bucket - docs/ops.md';
    const { recorded } = companionFailure(evidence);
    const lastAttempt = { ...recorded, allowance: 1 };
    const history = historyFromCommits(
      [commit('loop: record api row 3', `pending: 3 | api | ${sha()}\niteration: 5`, lastAttempt)],
      { ledger: lastAttempt, ledgerPath: LEDGER_PATH },
    );
    const routed = evaluateRules({
      ledger: lastAttempt,
      history,
      escalateAfter: 2,
      routing: { spec: parseSpec(SPEC).spec, amendPermission: false, amendments: [] },
    });
    expect(routed).toMatchObject({ kind: 'unreachable-amend', row: 3, autoApply: false });

    const cut = cutRowEdit(
      recorded,
      3,
      'deviates: unreachable in this checkout - staging bucket; proof at docs/ops.md',
    );
    const answered = companionFailure(evidence, [commit(cut.subject, cut.body, cut.ledger)]);
    expect(answered.history.latestAdmission?.answeredBy).not.toBeNull();
    expect(answered.outcome.kind).not.toBe('unreachable-amend');
  });
});
