import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { finding } from '../../src/common/finding.js';
import type { Ledger } from '../../src/gauntlet/types.js';
import {
  checkReturnBoundary,
  type ReturnFacts,
  ReturnFactsError,
  type ReturnOutcome,
  validateReturn,
} from '../../src/gauntlet/validate.js';
import {
  attributedBody,
  cleanReturn,
  committed,
  conformingOrdinary,
  conformingSeed,
  row,
  tuple,
  withRows,
} from './validation-fixtures.js';

function expectMiss(outcome: ReturnOutcome, code: string, text: RegExp): void {
  expect(outcome.kind).toBe('miss');
  if (outcome.kind !== 'miss') return;
  expect(outcome.code).toBe(code);
  expect(outcome.miss).toMatch(text);
  // The miss goes into `iteration <i>: <miss>` evidence and a body line: one line, no separators.
  expect(outcome.miss).not.toMatch(/[;|\n]/);
}

/** Facts with the ledger at HEAD replaced (everything else conforming). */
function withHead(facts: ReturnFacts, edit: (head: Ledger) => Ledger): ReturnFacts {
  return { ...facts, headLedger: edit(facts.headLedger as Ledger) };
}

describe('validateReturn: the boundary (step 1)', () => {
  const { facts } = conformingOrdinary();
  const boundary = facts.boundary;

  it('V13: dirty tree, 0 or 2 commits, non-DONE, dispatch error and silence kill are interrupted returns', () => {
    const cases: [Partial<typeof boundary>, string][] = [
      [{ porcelain: ' M src/export.ts\n' }, 'dirty tree'],
      [{ commitCount: 0 }, '0 commits'],
      [{ commitCount: 2 }, '2 commits'],
      [{ returned: 'BLOCKED' }, 'non-DONE'],
      [{ returned: null }, 'non-DONE'],
      [{ dispatchError: 'spawn ENOENT' }, 'dispatch error: spawn ENOENT'],
      [{ killedAfterSilence: true, returned: null }, 'killed after silence'],
    ];
    for (const [change, reason] of cases) {
      const outcome = validateReturn({ ...facts, boundary: { ...boundary, ...change } });
      expect(outcome).toEqual({ kind: 'interrupted', target: 2, reason });
    }
  });

  it('V13: an interrupted return never reads the ledger at HEAD or the commit', () => {
    let read = false;
    const spy = { ...facts, boundary: { ...boundary, porcelain: '?? stray.txt' } };
    Object.defineProperty(spy, 'headLedger', {
      get() {
        read = true;
        return facts.headLedger;
      },
    });
    Object.defineProperty(spy, 'commit', {
      get() {
        read = true;
        return facts.commit;
      },
    });
    expect(validateReturn(spy).kind).toBe('interrupted');
    expect(read).toBe(false);
  });

  it('A17: the strongest reason wins: dispatch error, silence kill, non-DONE, dirty tree, commit count', () => {
    const all = {
      returned: 'FAILED',
      dispatchError: 'lost connection',
      killedAfterSilence: true,
      porcelain: ' M a.ts',
      commitCount: 3,
    };
    expect(checkReturnBoundary(all)).toBe('dispatch error: lost connection');
    const { dispatchError: _d, ...noError } = all;
    expect(checkReturnBoundary(noError)).toBe('killed after silence');
    expect(checkReturnBoundary({ ...noError, killedAfterSilence: false })).toBe('non-DONE');
    expect(checkReturnBoundary({ ...noError, killedAfterSilence: false, returned: 'DONE' })).toBe(
      'dirty tree',
    );
    expect(checkReturnBoundary({ returned: 'DONE', porcelain: '', commitCount: 3 })).toBe('3 commits');
    expect(checkReturnBoundary({ returned: 'DONE', porcelain: '\n', commitCount: 1 })).toBeNull();
  });

  it('a dispatch error text becomes one line without evidence separators', () => {
    expect(checkReturnBoundary({ ...boundary, dispatchError: 'exit 1;\nstderr | tail' })).toBe(
      'dispatch error: exit 1, stderr / tail',
    );
    expect(checkReturnBoundary({ ...boundary, dispatchError: '  ' })).toBe('dispatch error: no error text');
  });

  it('rejects a commit count that is not a count with a named error', () => {
    expect(() => checkReturnBoundary({ ...boundary, commitCount: -1 })).toThrow(ReturnFactsError);
    expect(() => checkReturnBoundary({ ...boundary, commitCount: 1.5 })).toThrow(/non-negative integer/);
  });
});

describe('validateReturn: attribution (step 2)', () => {
  it('A12: a body whose first line is not the exact tuple is ambiguous attribution, not a miss', () => {
    const { facts, saved } = conformingOrdinary();
    const body = attributedBody(saved, { ...tuple(2), head: '3'.repeat(40) });
    const outcome = validateReturn({ ...facts, commit: { subject: 'loop: row 2 failed', body } });
    expect(outcome.kind).toBe('unattributed');
    if (outcome.kind === 'unattributed') {
      expect(outcome.what).toBe('ambiguous attribution');
      expect(outcome.detail).toContain('line 1');
    }
  });

  it('A12: the pre-bump iteration in body line 2 is ambiguous attribution (the body carries i + 1)', () => {
    const { facts, saved } = conformingOrdinary();
    const body = `pending: 2 | home | ${tuple(2).head}\niteration: ${saved.iterations}\n`;
    const outcome = validateReturn({ ...facts, commit: { subject: 'loop: row 2 failed', body } });
    expect(outcome.kind).toBe('unattributed');
    if (outcome.kind === 'unattributed')
      expect(outcome.detail).toContain(`iteration: ${saved.iterations + 1}`);
  });

  it('A12: an unattributed commit is judged before its ledger is read', () => {
    const { facts } = conformingOrdinary();
    const outcome = validateReturn({
      ...facts,
      commit: { subject: 'loop: row 2 failed', body: 'fixed quoting' },
      headLedger: undefined,
    });
    expect(outcome.kind).toBe('unattributed');
  });

  it('reads the lines exactly: CRLF line ends pass, extra blanks do not', () => {
    const { facts, saved } = conformingOrdinary();
    const lines = [`pending: 2 | home | ${tuple(2).head}`, `iteration: ${saved.iterations + 1}`];
    const crlf = `${lines.join('\r\n')}\r\n`;
    expect(validateReturn({ ...facts, commit: { subject: 'loop: row 2 failed', body: crlf } }).kind).toBe(
      'admitted',
    );
    for (const body of [` ${lines.join('\n')}`, `${lines[0]} \n${lines[1]}`, `${lines[0]}\niteration:  4`])
      expect(validateReturn({ ...facts, commit: { subject: 'loop: row 2 failed', body } }).kind).toBe(
        'unattributed',
      );
  });
});

describe('validateReturn: seed returns', () => {
  it('V1: a seed that gives evidence to rows 1, 2, 3, 5 and closes row 1 on baseline is admitted', () => {
    const { facts, head, saved } = conformingSeed();
    const outcome = validateReturn(facts);
    expect(outcome.kind).toBe('admitted');
    if (outcome.kind !== 'admitted') return;
    expect(outcome.ledger).toBe(head);
    expect(outcome.decision).toBe('row 0 done | seeded 4 rows, closed 1 on baseline | row 2');
    expect(outcome.changedRows.map((c) => c.row)).toEqual([1, 2, 3, 5]);
    expect(outcome.routeUnreachable).toBe(false);
    expect(outcome.consumedIteration).toBe(saved.iterations + 1);
  });

  it('V1: a partial seed (a subset of rows, no baseline closure) passes too', () => {
    const { saved } = conformingSeed();
    const head = committed(saved, (l) => ({
      ...withRows(l, row(3, 'open', 0, 'npm test; 1 failing')),
      decisions: ['row 0 done | seeded 1 rows, closed 0 on baseline | row 3'],
    }));
    expect(validateReturn(cleanReturn(saved, 'seed', head, 'loop: seed evidence')).kind).toBe('admitted');
  });

  it('V3: a seed that marks a row failed is a seed miss', () => {
    const { facts } = conformingSeed();
    const outcome = validateReturn(
      withHead(facts, (h) => withRows(h, row(2, 'failed', 0, 'npm test; 2 failing'))),
    );
    expectMiss(outcome, 'miss.seed-table', /marked row 2 failed/);
  });

  it('V3: a seed that changes any attempts is a seed miss', () => {
    const { facts } = conformingSeed();
    const outcome = validateReturn(
      withHead(facts, (h) => withRows(h, row(3, 'open', 1, 'npm test; 1 failing'))),
    );
    expectMiss(outcome, 'miss.seed-table', /row 3 attempts from 0 to 1/);
  });

  it('a seed that touches a cut row is a seed miss', () => {
    const { facts } = conformingSeed();
    const outcome = validateReturn(
      withHead(facts, (h) => withRows(h, row(4, 'open', 0, 'npm test; now in scope'))),
    );
    expectMiss(outcome, 'miss.seed-table', /cut row 4/);
  });

  it('a seed with fabricated counts is a seed miss', () => {
    const { facts } = conformingSeed();
    const seeded = withHead(facts, (h) => ({
      ...h,
      decisions: ['row 0 done | seeded 5 rows, closed 1 on baseline | row 2'],
    }));
    expectMiss(
      validateReturn(seeded),
      'miss.seed-decision',
      /counts 5 rows seeded but this return gave evidence to 4/,
    );
    const closed = withHead(facts, (h) => ({
      ...h,
      decisions: ['row 0 done | seeded 4 rows, closed 2 on baseline | row 2'],
    }));
    expectMiss(
      validateReturn(closed),
      'miss.seed-decision',
      /counts 2 closed on baseline but this return closed 1/,
    );
  });

  it('a seed without exactly one row 0 decision is a seed miss', () => {
    const { facts } = conformingSeed();
    expectMiss(
      validateReturn(withHead(facts, (h) => ({ ...h, decisions: [] }))),
      'miss.seed-decision',
      /appended 0/,
    );
    const two = withHead(facts, (h) => ({ ...h, decisions: [...h.decisions, 'row 2 done | x | y'] }));
    expectMiss(validateReturn(two), 'miss.seed-decision', /appended 2/);
    const wrong = withHead(facts, (h) => ({ ...h, decisions: ['row 0 done | seeded four rows | row 2'] }));
    expectMiss(validateReturn(wrong), 'miss.seed-decision', /not/);
  });

  it('a seed that gives no evidence is a seed miss', () => {
    const { saved } = conformingSeed();
    const head = committed(saved, (l) => ({
      ...l,
      decisions: ['row 0 done | seeded 0 rows, closed 0 on baseline | row 1'],
    }));
    expectMiss(
      validateReturn(cleanReturn(saved, 'seed', head, 'loop: seed evidence')),
      'miss.seed-table',
      /no row evidence/,
    );
  });

  it('A18: a seed commit with another subject is a miss', () => {
    const { facts } = conformingSeed();
    const outcome = validateReturn({ ...facts, commit: { ...facts.commit!, subject: 'loop: row 1 done' } });
    expectMiss(outcome, 'miss.subject', /expected "loop: seed evidence"/);
  });
});

describe('validateReturn: ordinary returns', () => {
  it('V5: a failed target with an evidenced done extra is admitted, target decision first', () => {
    const { facts, head } = conformingOrdinary();
    const outcome = validateReturn(facts);
    expect(outcome.kind).toBe('admitted');
    if (outcome.kind !== 'admitted') return;
    expect(outcome.ledger).toBe(head);
    expect(outcome.decision).toMatch(/^row 2 failed \| /);
    expect(outcome.changedRows.map((c) => [c.row, c.role])).toEqual([
      [2, 'target'],
      [3, 'extra'],
    ]);
    expect(outcome.routeUnreachable).toBe(true);
  });

  it('a done target needs no unreachable routing', () => {
    const { facts } = conformingOrdinary();
    const done = withHead(facts, (h) => ({
      ...withRows(h, row(2, 'done', 2, 'npm test -- export.test.ts; 14 passed')),
      decisions: [
        ...h.decisions.slice(0, 2),
        'row 2 done | quoting fixed | take row 5 next',
        h.decisions[3] as string,
      ],
    }));
    const outcome = validateReturn({ ...done, commit: { ...done.commit!, subject: 'loop: row 2 done' } });
    expect(outcome.kind).toBe('admitted');
    if (outcome.kind === 'admitted') expect(outcome.routeUnreachable).toBe(false);
  });

  it('V7: a decision cell of 201 characters is malformed; 200 passes', () => {
    const { facts } = conformingOrdinary();
    const decide = (middle: string) =>
      withHead(facts, (h) => ({
        ...h,
        decisions: [
          ...h.decisions.slice(0, 2),
          `row 2 failed | ${middle} | escape quotes`,
          h.decisions[3] as string,
        ],
      }));
    expectMiss(
      validateReturn(decide('x'.repeat(201))),
      'miss.decision-malformed',
      /middle cell has 201 characters/,
    );
    expect(validateReturn(decide('x'.repeat(200))).kind).toBe('admitted');
    // Characters, not UTF-16 units: 200 emoji are 200 characters.
    expect(validateReturn(decide('\u{1F600}'.repeat(200))).kind).toBe('admitted');
  });

  it('V7: the next cell is bounded like the middle one: empty is malformed, 201 characters too, 200 passes', () => {
    // §3.10: `^row <that row> <that status> \| .{1,200} \| .{1,200}$`: one to 200 characters in
    // each of the two cells after the status.
    const { facts } = conformingOrdinary();
    const decide = (next: string) =>
      withHead(facts, (h) => ({
        ...h,
        decisions: [
          ...h.decisions.slice(0, 2),
          `row 2 failed | doubled quotes are still not escaped | ${next}`,
          h.decisions[3] as string,
        ],
      }));
    expect(validateReturn(decide('')).kind).toBe('miss');
    expect(validateReturn(decide('x'.repeat(201))).kind).toBe('miss');
    expect(validateReturn(decide('x'.repeat(200))).kind).toBe('admitted');
    expect(validateReturn(decide('x')).kind).toBe('admitted');
  });

  it('V9: changing the allowance (or any header but the bump and the tuple removal) is a miss', () => {
    const { facts } = conformingOrdinary();
    expectMiss(
      validateReturn(withHead(facts, (h) => ({ ...h, allowance: 5 }))),
      'miss.header',
      /allowance changed/,
    );
    expectMiss(
      validateReturn(withHead(facts, (h) => ({ ...h, verification: 'npm run test:all' }))),
      'miss.header',
      /verification/,
    );
    expectMiss(
      validateReturn(withHead(facts, (h) => ({ ...h, iterations: h.iterations - 1 }))),
      'miss.header',
      /iterations is 3, expected the consumed count 4/,
    );
    const otherTuple = withHead(facts, (h) => ({ ...h, pending: { ...tuple(5) } }));
    expectMiss(validateReturn(otherTuple), 'miss.header', /pending/);
  });

  it('a retained committed tuple is a miss after boundary admission, not a boundary rejection', () => {
    const { facts } = conformingOrdinary();
    const outcome = validateReturn(withHead(facts, (h) => ({ ...h, pending: tuple(2) })));
    expectMiss(outcome, 'miss.tuple-retained', /kept the dispatched pending line/);
  });

  it('V11: four result lines after the check name are a miss; three pass; no command-format check', () => {
    const { facts } = conformingOrdinary();
    const evidence = (cell: string) => withHead(facts, (h) => withRows(h, row(2, 'failed', 2, cell)));
    expectMiss(validateReturn(evidence('npm test; r1; r2; r3; r4')), 'miss.evidence', /4 result lines/);
    expect(validateReturn(evidence('npm test; r1; r2; r3')).kind).toBe('admitted');
    expect(validateReturn(evidence('looked at the page by hand; r1')).kind).toBe('admitted');
    expect(validateReturn(evidence('npm test; a\\; b; r2; r3')).kind).toBe('admitted');
  });

  it('empty evidence on a changed row is a miss', () => {
    const { facts } = conformingOrdinary();
    expectMiss(
      validateReturn(withHead(facts, (h) => withRows(h, row(2, 'failed', 2, '')))),
      'miss.evidence',
      /row 2 evidence is empty/,
    );
    expectMiss(
      validateReturn(withHead(facts, (h) => withRows(h, row(3, 'done', 0, '  ')))),
      'miss.evidence',
      /row 3 evidence is empty/,
    );
  });

  it('the target must end done or failed with attempts + 1', () => {
    const { facts } = conformingOrdinary();
    expectMiss(
      validateReturn(withHead(facts, (h) => withRows(h, row(2, 'open', 2, 'npm test; x')))),
      'miss.target',
      /is open/,
    );
    expectMiss(
      validateReturn(withHead(facts, (h) => withRows(h, row(2, 'failed', 1, 'npm test; x')))),
      'miss.target',
      /from 1 to 1, expected 2/,
    );
    expectMiss(
      validateReturn(withHead(facts, (h) => withRows(h, row(2, 'failed', 3, 'npm test; x')))),
      'miss.target',
      /expected 2/,
    );
  });

  it('rejects a failed extra, a changed done or cut row, and extra attempts changes', () => {
    const { facts } = conformingOrdinary();
    const cases: [Ledger['rows'][number], RegExp][] = [
      [row(3, 'failed', 0, 'npm test; still failing'), /row 3 was marked failed/],
      [row(1, 'done', 0, 'npm test; rechecked'), /done row 1 changed/],
      [row(4, 'cut', 0, 'deferred: TRACK-8'), /cut row 4 changed/],
      [row(3, 'done', 1, 'npm test; passes'), /row 3 attempts changed from 0 to 1/],
      [row(5, 'open', 0, 'npm test; looked at it'), /row 5 changed without closing/],
    ];
    for (const [changed, text] of cases)
      expectMiss(validateReturn(withHead(facts, (h) => withRows(h, changed))), 'miss.extra', text);
  });

  it('rejects a missing, duplicate, unmatched, out-of-order or reused decision', () => {
    const { facts } = conformingOrdinary();
    const decisions = (edit: (d: readonly string[]) => string[]) =>
      validateReturn(withHead(facts, (h) => ({ ...h, decisions: edit(h.decisions) })));
    expectMiss(
      decisions((d) => d.slice(0, 3)),
      'miss.decision-missing',
      /changed row 3/,
    );
    expectMiss(
      decisions((d) => [...d, 'row 3 done | again | again']),
      'miss.decision-duplicate',
      /row 3/,
    );
    expectMiss(
      decisions((d) => [...d, 'row 5 done | also done | none']),
      'miss.decision-unmatched',
      /row 5/,
    );
    expectMiss(
      decisions((d) => [...d.slice(0, 2), d[3] as string, d[2] as string]),
      'miss.decision-order',
      /row 2 must come first/,
    );
    expectMiss(
      decisions((d) => [...d.slice(0, 2), 'row 2 done | doubled quotes fixed | none', d[3] as string]),
      'miss.decision-unmatched',
      /says done but row 2 is failed/,
    );
    expectMiss(
      decisions((d) => [...d.slice(0, 2), 'note: tried harder', ...d.slice(2)]),
      'miss.decision-malformed',
      /not a row outcome/,
    );
    expectMiss(
      decisions((d) => [...d.slice(0, 2), d[1] as string, d[3] as string]),
      'miss.decision-reused',
      /repeats an earlier line/,
    );
  });

  it('rejects changed or removed prior decisions', () => {
    const { facts } = conformingOrdinary();
    const edit = (decisions: string[]) => validateReturn(withHead(facts, (h) => ({ ...h, decisions })));
    const head = facts.headLedger as Ledger;
    expectMiss(edit(head.decisions.slice(1)), 'miss.decisions', /prior decision line 1 was changed/);
    expectMiss(edit([]), 'miss.decisions', /prior decision line 1 was removed/);
  });

  it('rejects added, removed or reordered rows', () => {
    const { facts } = conformingOrdinary();
    const rows = (edit: (r: Ledger['rows']) => Ledger['rows']) =>
      validateReturn(withHead(facts, (h) => ({ ...h, rows: edit(h.rows) })));
    expectMiss(
      rows((r) => [...r, row(6, 'open', 0, '')]),
      'miss.rows',
      /row 6 was added/,
    );
    expectMiss(
      rows((r) => r.filter((x) => x.row !== 5)),
      'miss.rows',
      /row 5 was removed/,
    );
    expectMiss(
      rows((r) => [...r].reverse()),
      'miss.rows',
      /reordered/,
    );
  });

  it('A18: a subject naming another row or the wrong status is a miss', () => {
    const { facts } = conformingOrdinary();
    const subject = (s: string) => validateReturn({ ...facts, commit: { ...facts.commit!, subject: s } });
    expectMiss(
      subject('loop: row 3 done'),
      'miss.subject',
      /expected "loop: row 2 done" or "loop: row 2 failed"/,
    );
    expectMiss(subject('loop: row 2 done'), 'miss.subject', /expected "loop: row 2 failed"/);
    expectMiss(subject('fix quoting'), 'miss.subject', /fix quoting/);
  });

  it('a ledger at HEAD that does not parse is a miss naming the finding', () => {
    const { facts } = conformingOrdinary();
    const outcome = validateReturn({
      ...facts,
      headLedger: [finding('ledger.table.cells', 14, 'row line has 5 cells; expected 4')],
    });
    expectMiss(outcome, 'miss.ledger-unreadable', /does not parse: row line has 5 cells, expected 4/);
  });

  it('a dropped action record is a miss even when the check passes (§3.19)', () => {
    const { facts } = conformingOrdinary();
    const carried = {
      ...facts,
      retainedActionRecords: [
        { kind: 'ran' as const, action: 'capture', k: 1, bound: 1, text: 'ran capture (1 of 1)' },
      ],
    };
    expectMiss(validateReturn(carried), 'miss.action-record-dropped', /ran capture \(1 of 1\)/);
    const repeated = withHead(carried, (h) => ({
      ...h,
      decisions: [
        ...h.decisions.slice(0, 2),
        'row 2 failed | ran capture (1 of 1). Quotes still split | escape quotes by doubling',
        h.decisions[3] as string,
      ],
    }));
    expect(validateReturn(repeated).kind).toBe('admitted');
    // The record must stand as its own sentence, not inside another one.
    const buried = withHead(carried, (h) => ({
      ...h,
      decisions: [
        ...h.decisions.slice(0, 2),
        'row 2 failed | after ran capture (1 of 1) quotes still split | escape quotes by doubling',
        h.decisions[3] as string,
      ],
    }));
    expectMiss(validateReturn(buried), 'miss.action-record-dropped', /ran capture/);
  });

  it('a record in replaced evidence must be repeated in a new decision', () => {
    const base = conformingOrdinary();
    const saved = withRows(
      base.saved,
      row(2, 'failed', 1, 'npm run capture; ran capture (1 of 2); fixture saved'),
    );
    const facts = cleanReturn(saved, 2, base.head, 'loop: row 2 failed');
    expectMiss(validateReturn(facts), 'miss.action-record-dropped', /ran capture \(1 of 2\)/);
    const head = {
      ...base.head,
      decisions: [
        ...base.head.decisions.slice(0, 2),
        'row 2 failed | ran capture (1 of 2). Then quotes still split | escape quotes',
        base.head.decisions[3] as string,
      ],
    };
    expect(validateReturn(cleanReturn(saved, 2, head, 'loop: row 2 failed')).kind).toBe('admitted');
  });
});

describe('validateReturn: inconsistent facts', () => {
  it('names facts that contradict each other instead of crashing', () => {
    const { facts } = conformingOrdinary();
    expect(() => validateReturn({ ...facts, pending: tuple(3) })).toThrow(/not the pending tuple's target/);
    expect(() => validateReturn({ ...facts, iteration: 4 })).toThrow(/pre-bump count 3/);
    const done = { ...facts, target: 1, pending: tuple(1) };
    expect(() => validateReturn(done)).toThrow(/not an open or failed row/);
    expect(() => validateReturn({ ...facts, commit: undefined })).toThrow(ReturnFactsError);
    expect(() => validateReturn({ ...facts, headLedger: undefined })).toThrow(
      /ledger at HEAD was not supplied/,
    );
  });
});

describe('validateReturn: properties', () => {
  const { facts, saved } = conformingOrdinary();

  it('any change to a non-target row other than a clean close is never admitted', () => {
    const others = saved.rows.filter((r) => r.row !== 2);
    fc.assert(
      fc.property(
        fc.constantFrom(...others),
        fc.constantFrom('open', 'done', 'failed', 'cut'),
        fc.integer({ min: 0, max: 5 }),
        fc.string({ maxLength: 30 }).filter((s) => !/[|\n\r]/.test(s)),
        (before, status, attempts, evidence) => {
          const after = { row: before.row, status, attempts, evidence } as const;
          const outcome = validateReturn(withHead(facts, (h) => withRows(h, after)));
          const unchanged =
            after.status === before.status && attempts === before.attempts && evidence === before.evidence;
          // Row 3 closing with evidence is the fixture's own extra; anything else must not pass.
          if (outcome.kind === 'admitted') {
            const fixtureExtra =
              before.row === 3 && status === 'done' && attempts === 0 && evidence.trim() !== '';
            expect(unchanged || fixtureExtra).toBe(true);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('arbitrary subjects and bodies never crash and are never admitted unless exact', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), fc.string({ maxLength: 120 }), (subject, body) => {
        const outcome = validateReturn({ ...facts, commit: { subject, body } });
        expect(['unattributed', 'miss', 'admitted']).toContain(outcome.kind);
        if (outcome.kind === 'admitted') expect(subject.trim()).toBe('loop: row 2 failed');
      }),
      { numRuns: 1000 },
    );
  });
});
