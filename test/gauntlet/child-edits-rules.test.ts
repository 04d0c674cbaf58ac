/**
 * The child tools' ledger edits, rule by rule: what each edit writes at the edges of the child
 * contract (docs/child-contract.md, docs/agents.md "The child tools") and what it refuses, with the
 * error code and a message that names the rule and what to do instead. Every ledger, task and
 * expected value below is written by hand; nothing is planned or validated by other loop code.
 */
import { describe, expect, it } from 'vitest';
import {
  ChildEditError,
  childCommitMessage,
  escapeLonePipes,
  type RowRecord,
  recordRowOutcome,
  recordSeed,
  recordsToRepeat,
  spendLine,
} from '../../src/gauntlet/child-edits.js';
import type { Ledger, LedgerRow, Target } from '../../src/gauntlet/types.js';

const HEAD = 'c'.repeat(40);
const BASE = 'd'.repeat(40);

/** A ledger as the loop leaves it on disk before a dispatch: iterations bumped, the tuple written. */
function reserved(rows: LedgerRow[], target: Target | null, decisions: string[] = []): Ledger {
  return {
    discriminant: '# Loop ledger',
    spec: 'docs/specs/feature.md',
    base: BASE,
    verification: 'npm test',
    checks: 'commands',
    iterations: 4,
    allowance: 4,
    pending: target === null ? null : { target, repo: 'home', head: HEAD },
    rows,
    decisions,
  };
}

const ROWS: LedgerRow[] = [
  { row: 1, status: 'failed', attempts: 1, evidence: 'check; 1 failing' },
  { row: 2, status: 'open', attempts: 0, evidence: 'check; not yet' },
  { row: 3, status: 'cut', attempts: 0, evidence: 'deviates: not needed' },
  { row: 4, status: 'done', attempts: 1, evidence: 'check; passes' },
  { row: 5, status: 'open', attempts: 0, evidence: '' },
];
const EARLIER = [
  'row 0 done | seeded 3 rows, closed 1 on baseline | row 1',
  'row 1 failed | attempt 1 failed | retry',
];

function rowTask(target: number, actionRecords: string[] = [], kind: 'row' | 'seed' | 'verify' = 'row') {
  return {
    kind,
    target,
    commitBody: [`pending: ${target} | home | ${HEAD}`, 'iteration: 4'] as const,
    actionRecords,
  };
}

const seedTask = {
  kind: 'seed' as const,
  target: 'seed' as const,
  commitBody: [`pending: seed | home | ${HEAD}`, 'iteration: 1'] as const,
  actionRecords: [] as string[],
};
const verifyTask = {
  kind: 'verify' as const,
  target: 'verify' as const,
  commitBody: [`pending: verify | home | ${HEAD}`, 'iteration: 5'] as const,
  actionRecords: ['ran capture (1 of 1)'],
};

const OK: RowRecord = { status: 'done', evidence: 'check; ok', summary: 'did it', next: 'go on' };

/** The refusal `run` throws: its code and message, or `accepted` when it returns. */
function refusal(run: () => unknown): { code: string; message: string } | 'accepted' {
  try {
    run();
  } catch (error) {
    if (error instanceof ChildEditError) return { code: error.code, message: error.message };
    throw error;
  }
  return 'accepted';
}

describe('recordRowOutcome writes the contract at its edges', () => {
  it('records an open target (attempts 0 -> 1) with trimmed evidence and one-line cells', () => {
    const edited = recordRowOutcome(reserved(ROWS, 2, EARLIER), rowTask(2), {
      status: 'done',
      evidence: '  npm test; 2 passed  ',
      summary: '  escaped\n  the   commas ',
      next: 'x',
    });
    expect(edited.rows).toEqual([
      ROWS[0],
      { row: 2, status: 'done', attempts: 1, evidence: 'npm test; 2 passed' },
      ROWS[2],
      ROWS[3],
      ROWS[4],
    ]);
    expect(edited.decisions).toEqual([...EARLIER, 'row 2 done | escaped the commas | x']);
    expect(edited.pending).toBeNull();
    expect(childCommitMessage(rowTask(2), edited)).toEqual({
      subject: 'loop: row 2 done',
      body: `pending: 2 | home | ${HEAD}\niteration: 4`,
    });
  });

  it('escapes lone pipes of a trimmed cell', () => {
    expect(escapeLonePipes('  grep; a | b  ')).toBe('grep; a \\| b');
  });

  it('accepts decision cells of exactly 1 and exactly 200 characters', () => {
    const long = 'y'.repeat(200);
    const edited = recordRowOutcome(reserved(ROWS, 1, EARLIER), rowTask(1), {
      ...OK,
      summary: long,
      next: 'z',
    });
    expect(edited.decisions.at(-1)).toBe(`row 1 done | ${long} | z`);
  });

  it('refuses empty, overlong and cell-splitting decision cells, naming the cell', () => {
    const ledger = reserved(ROWS, 1, EARLIER);
    const carried = ['ran capture (1 of 1)'];
    const cases = {
      blankSummary: () => recordRowOutcome(ledger, rowTask(1), { ...OK, summary: '   ' }),
      blankNext: () => recordRowOutcome(ledger, rowTask(1), { ...OK, next: '' }),
      longSummary: () => recordRowOutcome(ledger, rowTask(1), { ...OK, summary: 'x'.repeat(201) }),
      // 'ran capture (1 of 1).' (21) + ' ' + 190 = 212 characters once the record is repeated.
      longWithRecords: () =>
        recordRowOutcome(ledger, rowTask(1, carried), {
          ...OK,
          status: 'failed',
          evidence: 'capture; still flaky',
          summary: 's'.repeat(190),
        }),
      separatorInNext: () => recordRowOutcome(ledger, rowTask(1), { ...OK, next: 'a | b' }),
    };
    expect(Object.fromEntries(Object.entries(cases).map(([name, run]) => [name, refusal(run)]))).toEqual({
      blankSummary: { code: 'child.decision', message: 'the summary must have 1-200 characters, got 0' },
      blankNext: { code: 'child.decision', message: 'the next step must have 1-200 characters, got 0' },
      longSummary: { code: 'child.decision', message: 'the summary must have 1-200 characters, got 201' },
      longWithRecords: {
        code: 'child.decision',
        message: 'the summary with the carried action records must have 1-200 characters, got 212',
      },
      separatorInNext: {
        code: 'child.decision',
        message: 'the next step must not contain " | " (it separates decision cells)',
      },
    });
  });

  it('refuses a tool that does not fit the task kind, telling which tool to use', () => {
    const ledger = reserved(ROWS, 1, EARLIER);
    expect(refusal(() => recordRowOutcome(reserved(ROWS, 'seed'), seedTask, OK))).toEqual({
      code: 'child.kind',
      message: 'this dispatch is the seed: use `loopchart child seed`, not `child record`',
    });
    expect(refusal(() => recordRowOutcome(reserved(ROWS, 'verify'), verifyTask, OK))).toEqual({
      code: 'child.kind',
      message: 'this dispatch is a verification repair: fix the code and commit; never record a row',
    });
    // A task file whose kind says verify is a verification repair, whatever its target says.
    expect(refusal(() => recordRowOutcome(ledger, rowTask(1, [], 'verify'), OK))).toEqual({
      code: 'child.kind',
      message: 'this dispatch is a verification repair: fix the code and commit; never record a row',
    });
  });

  it('refuses a ledger without the pending line or with another dispatch', () => {
    const noPending = refusal(() => recordRowOutcome(reserved(ROWS, null, EARLIER), rowTask(1), OK));
    expect(noPending).toMatchObject({ code: 'child.pending' });
    expect((noPending as { message: string }).message).toMatch(
      /^the ledger on disk has no pending line: this dispatch was already recorded/,
    );
    expect(refusal(() => recordRowOutcome(reserved(ROWS, 2, EARLIER), rowTask(1), OK))).toEqual({
      code: 'child.pending',
      message: "the ledger's pending line is for target 2, but the task is for 1",
    });
  });

  it('refuses a done or cut target, and an unknown row listing the rows there are', () => {
    expect(refusal(() => recordRowOutcome(reserved(ROWS, 4), rowTask(4), OK))).toEqual({
      code: 'child.row-status',
      message: 'target row 4 is done; it cannot be recorded',
    });
    expect(refusal(() => recordRowOutcome(reserved(ROWS, 3), rowTask(3), OK))).toEqual({
      code: 'child.row-status',
      message: 'target row 3 is cut; it cannot be recorded',
    });
    expect(
      refusal(() =>
        recordRowOutcome(reserved(ROWS, 1, EARLIER), rowTask(1), {
          ...OK,
          extras: [{ row: 9, evidence: 'c; r' }],
        }),
      ),
    ).toEqual({ code: 'child.row', message: 'the ledger has no row 9 (rows: 1, 2, 3, 4, 5)' });
  });

  it('refuses the target as an extra, an extra given twice, and a failed or cut extra', () => {
    const extras = (target: number, rows: number[]) => () =>
      recordRowOutcome(reserved(ROWS, target, EARLIER), rowTask(target), {
        ...OK,
        extras: rows.map((row) => ({ row, evidence: 'c; r' })),
      });
    const onlyOpen = '(never fail an extra, never touch done or cut rows)';
    expect([
      refusal(extras(1, [1])),
      refusal(extras(1, [2, 2])),
      refusal(extras(2, [1])),
      refusal(extras(1, [3])),
    ]).toEqual([
      { code: 'child.row-status', message: 'row 1 is the target; it cannot also be an extra' },
      { code: 'child.row-status', message: 'row 2 is given twice as an extra' },
      {
        code: 'child.row-status',
        message: `row 1 is failed: only open rows may close beside the target ${onlyOpen}`,
      },
      {
        code: 'child.row-status',
        message: `row 3 is cut: only open rows may close beside the target ${onlyOpen}`,
      },
    ]);
  });

  it('names the row and the evidence format when evidence is not bounded', () => {
    const refused = refusal(() =>
      recordRowOutcome(reserved(ROWS, 1, EARLIER), rowTask(1), { ...OK, evidence: 'c; r1; r2; r3; r4' }),
    );
    expect(refused).toMatchObject({ code: 'child.evidence' });
    const message = (refused as { message: string }).message;
    expect(message).toMatch(/^row 1 /);
    expect(message).toContain('write "<check>; <result 1>[; <result 2>[; <result 3>]]"');
  });

  it('refuses a decision that repeats an earlier line verbatim, quoting it', () => {
    expect(
      refusal(() =>
        recordRowOutcome(reserved(ROWS, 1, EARLIER), rowTask(1), {
          status: 'failed',
          evidence: 'c; r',
          summary: 'attempt 1 failed',
          next: 'retry',
        }),
      ),
    ).toEqual({
      code: 'child.decision',
      message:
        'the decision "row 1 failed | attempt 1 failed | retry" repeats an earlier line verbatim; say what happened in this attempt',
    });
  });
});

describe('recordsToRepeat', () => {
  it('repeats a bound-spent record in the parenthesised spelling (§6 A7)', () => {
    expect(recordsToRepeat(['bound spent: capture 1 of 1'], reserved(ROWS, 1, EARLIER))).toEqual([
      'bound spent: capture (1 of 1)',
    ]);
  });

  it('skips jobs-file process lines and other text that is not a record', () => {
    expect(
      recordsToRepeat(['4242 1700000000 sleep 60', 'ran capture (1 of 1)'], reserved(ROWS, 1, EARLIER)),
    ).toEqual(['ran capture (1 of 1)']);
  });
});

const SEED_ROWS: LedgerRow[] = [
  { row: 1, status: 'open', attempts: 0, evidence: '' },
  { row: 2, status: 'open', attempts: 0, evidence: '' },
  { row: 3, status: 'cut', attempts: 0, evidence: 'deferred: #12' },
  { row: 4, status: 'open', attempts: 0, evidence: '' },
];

describe('recordSeed writes the contract at its edges', () => {
  it('writes exactly the seeded ledger: evidence, closures, the counted line, no pending', () => {
    const edited = recordSeed(reserved(SEED_ROWS, 'seed'), seedTask, {
      evidence: new Map([
        [2, 'npm test; passes'],
        [4, 'npm test; 2 failing'],
      ]),
      closeOnBaseline: [2],
    });
    expect(edited).toStrictEqual({
      discriminant: '# Loop ledger',
      spec: 'docs/specs/feature.md',
      base: BASE,
      verification: 'npm test',
      checks: 'commands',
      iterations: 4,
      allowance: 4,
      pending: null,
      rows: [
        { row: 1, status: 'open', attempts: 0, evidence: '' },
        { row: 2, status: 'done', attempts: 0, evidence: 'npm test; passes' },
        { row: 3, status: 'cut', attempts: 0, evidence: 'deferred: #12' },
        { row: 4, status: 'open', attempts: 0, evidence: 'npm test; 2 failing' },
      ],
      decisions: ['row 0 done | seeded 2 rows, closed 1 on baseline | row 1'],
    });
  });

  it('carries the action records in the lowest-numbered seeded row, in whatever order rows are given', () => {
    const edited = recordSeed(
      reserved(SEED_ROWS, 'seed'),
      { ...seedTask, actionRecords: ['ran capture (1 of 1)'] },
      {
        evidence: new Map([
          [4, 'capture; recorded'],
          [1, 'npm test; 1 failing'],
        ]),
      },
    );
    expect(edited.rows.map((r) => r.evidence)).toEqual([
      'npm test; 1 failing; ran capture (1 of 1)',
      '',
      'deferred: #12',
      'capture; recorded',
    ]);
    expect(edited.decisions).toEqual(['row 0 done | seeded 2 rows, closed 0 on baseline | row 1']);
  });

  it('names the first row to take past cut and closed rows, or none', () => {
    const cutFirst: LedgerRow[] = [
      { row: 1, status: 'cut', attempts: 0, evidence: 'deviates: not here' },
      { row: 2, status: 'open', attempts: 0, evidence: '' },
      { row: 3, status: 'open', attempts: 0, evidence: '' },
    ];
    const firstLine = (rows: LedgerRow[], close: number[]) =>
      recordSeed(reserved(rows, 'seed'), seedTask, {
        evidence: new Map([
          [2, 'npm test; 1 passing'],
          [3, 'npm test; 1 failing'],
        ]),
        closeOnBaseline: close,
      }).decisions[0];
    expect(firstLine(cutFirst, [2])).toBe('row 0 done | seeded 2 rows, closed 1 on baseline | row 3');
    expect(firstLine(cutFirst, [2, 3])).toBe('row 0 done | seeded 2 rows, closed 2 on baseline | none');
  });

  it('refuses a tool that does not fit the task kind, telling which tool to use', () => {
    const ledger = reserved(SEED_ROWS, 'seed');
    const seed = { evidence: new Map([[1, 'c; r']]) };
    expect(refusal(() => recordSeed(ledger, rowTask(2), seed))).toEqual({
      code: 'child.kind',
      message: 'this dispatch is row 2: use `loopchart child record`, not `child seed`',
    });
    expect(refusal(() => recordSeed(ledger, verifyTask, seed))).toEqual({
      code: 'child.kind',
      message: 'this dispatch is a verification repair: fix the code and commit; never seed',
    });
  });

  it('refuses an empty seed, a closure without evidence, a row that is not open, unchanged evidence', () => {
    const ledger = reserved(SEED_ROWS, 'seed');
    const withEvidence = reserved(
      [{ row: 1, status: 'open', attempts: 0, evidence: 'npm test; 1 failing' }, ...SEED_ROWS.slice(1)],
      'seed',
    );
    expect([
      refusal(() => recordSeed(ledger, seedTask, { evidence: new Map() })),
      refusal(() => recordSeed(ledger, seedTask, { evidence: new Map([[1, 'c; r']]), closeOnBaseline: [2] })),
      refusal(() => recordSeed(ledger, seedTask, { evidence: new Map([[3, 'c; r']]) })),
      refusal(() => recordSeed(withEvidence, seedTask, { evidence: new Map([[1, 'npm test; 1 failing']]) })),
      refusal(() => recordSeed(ledger, seedTask, { evidence: new Map([[1, 'c; r']]), firstRow: '  ' })),
    ]).toEqual([
      { code: 'child.seed', message: 'a seed gives evidence to at least one row' },
      { code: 'child.seed', message: 'row 2 is closed on the baseline but has no evidence' },
      {
        code: 'child.row-status',
        message:
          'row 3 is cut: the seed gives evidence to open rows only (never fail a row, never touch cut or done rows)',
      },
      {
        code: 'child.seed',
        message: 'row 1 already has this evidence; the seed counts rows whose evidence changes',
      },
      { code: 'child.decision', message: 'the first row to take must have 1-200 characters, got 0' },
    ]);
  });

  it('names the records that do not fit beside the first row', () => {
    const refused = refusal(() =>
      recordSeed(
        reserved(SEED_ROWS, 'seed'),
        { ...seedTask, actionRecords: ['ran capture (1 of 2)', 'ran upload (1 of 1)'] },
        { evidence: new Map([[1, 'c; r1; r2']]) },
      ),
    );
    expect(refused).toMatchObject({ code: 'child.evidence' });
    const message = (refused as { message: string }).message;
    expect(message).toMatch(
      /^row 1 must also carry the action records ran capture \(1 of 2\), ran upload \(1 of 1\) /,
    );
    expect(message).toMatch(/; give it fewer result lines$/);
  });

  it("names the seeded leg's own first open row, never another leg's (L24)", () => {
    const coordinated: Ledger = {
      ...reserved(SEED_ROWS.slice(0, 3), 'seed'),
      pending: { target: 'seed', repo: 'web', head: HEAD },
      legs: {
        members: [
          { name: 'web', base: BASE, seeded: false },
          { name: 'api', base: HEAD, seeded: false },
        ],
        mapping: [
          { row: 1, ac: 1, leg: 'web' },
          { row: 2, ac: 1, leg: 'api' },
          { row: 3, ac: 2, leg: 'api' },
        ],
      },
    };
    const leg = { member: 'web', companion: false, home: '/h', homeLedger: '/h/l.md', homeSpec: '/h/s.md' };
    const edited = recordSeed(
      coordinated,
      { ...seedTask, leg },
      { evidence: new Map([[1, 'page check; passes']]), closeOnBaseline: [1] },
    );
    expect(edited.decisions).toEqual(['row 0 done | seeded 1 rows, closed 1 on baseline | none']);
  });

  it('treats a ledger without leg metadata as one leg: every row is the seed’s', () => {
    const leg = { member: 'web', companion: false, home: '/h', homeLedger: '/h/l.md', homeSpec: '/h/s.md' };
    const edited = recordSeed(
      reserved(SEED_ROWS, 'seed'),
      { ...seedTask, leg },
      { evidence: new Map([[1, 'npm test; passes']]), closeOnBaseline: [1] },
    );
    expect(edited.decisions).toEqual(['row 0 done | seeded 1 rows, closed 1 on baseline | row 2']);
  });
});

describe('childCommitMessage', () => {
  it('gives a verification repair its subject and copies the records after the two body lines', () => {
    expect(childCommitMessage(verifyTask, reserved(ROWS, 'verify'))).toEqual({
      subject: 'loop: verification fix',
      body: `pending: verify | home | ${HEAD}\niteration: 5\nran capture (1 of 1)`,
    });
  });

  it('refuses a row whose outcome is not recorded yet (pending line still there, or row still open)', () => {
    const notRecorded = {
      code: 'child.pending',
      message: 'row 1 is not recorded yet: run `loopchart child record` first',
    };
    // Row 1 failed on an earlier attempt; the pending line shows this attempt is not recorded.
    expect(refusal(() => childCommitMessage(rowTask(1), reserved(ROWS, 1, EARLIER)))).toEqual(notRecorded);
    const open = ROWS.map((r) => (r.row === 1 ? { ...r, status: 'open' as const } : r));
    expect(refusal(() => childCommitMessage(rowTask(1), reserved(open, null)))).toEqual(notRecorded);
  });

  it('lists each spent record once and skips jobs-file process lines', () => {
    const recorded = recordRowOutcome(reserved(ROWS, 2, EARLIER), rowTask(2), OK);
    const spent = ['4242 1700000000 sleep 60', 'ran capture (1 of 1)', 'ran capture (1 of 1)'];
    expect(childCommitMessage(rowTask(2), recorded, spent).body.split('\n')).toEqual([
      `pending: 2 | home | ${HEAD}`,
      'iteration: 4',
      'ran capture (1 of 1)',
    ]);
  });
});

describe('spendLine', () => {
  it('trims the action name and reads past process lines and other actions', () => {
    expect(spendLine([], 'reserve', ' capture ', 2)).toBe('ran capture (1 of 2)');
    expect(spendLine(['4242 1700000000 sleep 60', 'ran capture (1 of 2)'], 'reserve', 'capture', 2)).toBe(
      'ran capture (2 of 2)',
    );
    expect(spendLine(['ran deploy (1 of 1)'], 'reserve', 'capture', 2)).toBe('ran capture (1 of 2)');
    expect(spendLine([], 'reserve', 'capture', 1)).toBe('ran capture (1 of 1)');
  });

  it('refuses a blank or unreadable action name and a bound below 1 or not whole', () => {
    expect([
      refusal(() => spendLine([], 'reserve', '  ', 1)),
      refusal(() => spendLine([], 'reserve', 'a;b', 1)),
      refusal(() => spendLine([], 'reserve', 'capture', 0)),
      refusal(() => spendLine([], 'reserve', 'capture', 1.5)),
    ]).toEqual([
      { code: 'child.spend', message: 'action name "  " must be one line without ( ) | or ;' },
      { code: 'child.spend', message: 'action name "a;b" must be one line without ( ) | or ;' },
      { code: 'child.spend', message: 'the bound must be a whole number >= 1, got 0' },
      { code: 'child.spend', message: 'the bound must be a whole number >= 1, got 1.5' },
    ]);
  });

  it('refuses another spend once a bound-spent record says so, even below the bound', () => {
    const refused = refusal(() =>
      spendLine(['ran capture (1 of 2)', 'bound spent: capture (1 of 2)'], 'reserve', 'capture', 2),
    );
    expect(refused).toMatchObject({ code: 'child.spend' });
    expect((refused as { message: string }).message).toMatch(
      /^capture has spent its bound \(1 of 2\): do not run it again; record `child spend spent capture --bound 2`/,
    );
  });

  it('names the recorded bound, the missing reservation and the unspent bound', () => {
    expect([
      refusal(() => spendLine(['ran capture (1 of 1)'], 'reserve', 'capture', 3)),
      refusal(() => spendLine([], 'ran', 'capture', 1)),
      refusal(() => spendLine(['ran capture (1 of 2)'], 'spent', 'capture', 2)),
    ]).toEqual([
      {
        code: 'child.spend',
        message: 'capture was recorded with bound 1; only an approved amendment changes a bound',
      },
      {
        code: 'child.spend',
        message: 'capture has no reservation: run `child spend reserve` before launching it',
      },
      { code: 'child.spend', message: 'capture has 1 of 2 spends recorded; its bound is not spent' },
    ]);
  });
});
