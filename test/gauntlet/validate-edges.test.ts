/**
 * Edges of return validation (gauntlet-protocol §3.10, §3.19) that the broader validate tests do
 * not pin: the facts the host must supply, the exact texts of attribution and header misses,
 * control bytes a return writes, the seed's allowed transitions and counts, failed extras, rows
 * numbered 10 and above, the conforming-outcome decision grammar and its miss details, the
 * one-line form of reasons, and the porcelain lines a dirt message quotes. Every expected value is
 * written here by hand from those texts.
 */
import { describe, expect, it } from 'vitest';
import { finding } from '../../src/common/finding.js';
import type { Ledger } from '../../src/gauntlet/types.js';
import {
  checkReturnBoundary,
  oneLine,
  porcelainLines,
  type ReturnFacts,
  ReturnFactsError,
  type ReturnOutcome,
  validateReturn,
} from '../../src/gauntlet/validate.js';
import {
  BASE,
  cleanReturn,
  committed,
  conformingOrdinary,
  conformingSeed,
  HEAD_BEFORE,
  ledger,
  midLoop,
  row,
  unseeded,
  withRows,
} from './validation-fixtures.js';

function expectMiss(outcome: ReturnOutcome, code: string, text: string | RegExp): void {
  expect(outcome.kind).toBe('miss');
  if (outcome.kind !== 'miss') return;
  expect(outcome.code).toBe(code);
  if (typeof text === 'string') expect(outcome.miss).toBe(text);
  else expect(outcome.miss).toMatch(text);
}

function withHead(facts: ReturnFacts, edit: (head: Ledger) => Ledger): ReturnFacts {
  return { ...facts, headLedger: edit(facts.headLedger as Ledger) };
}

/** The conforming ordinary return with its target decision (new line 1) replaced. */
function targetDecision(line: string): ReturnFacts {
  const { facts } = conformingOrdinary();
  return withHead(facts, (h) => ({
    ...h,
    decisions: [...h.decisions.slice(0, 2), line, h.decisions[3] as string],
  }));
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('facts the host must supply', () => {
  it('a worktree status that is not text is a named host error, whatever the child returned', () => {
    for (const returned of ['DONE', 'BLOCKED']) {
      const error = thrown(() =>
        checkReturnBoundary({ returned, porcelain: null as unknown as string, commitCount: 1 }),
      );
      expect(error).toBeInstanceOf(ReturnFactsError);
      expect((error as ReturnFactsError).code).toBe('return-facts.porcelain');
      expect((error as Error).message).toMatch(
        /^the worktree status \(git status --porcelain output\) must be text/,
      );
    }
  });

  it('a passed boundary without the commit is a named host error saying what is missing', () => {
    const { facts } = conformingOrdinary();
    const error = thrown(() => validateReturn({ ...facts, commit: undefined }));
    expect(error).toBeInstanceOf(ReturnFactsError);
    expect((error as ReturnFactsError).code).toBe('return-facts.commit-missing');
    expect((error as Error).message).toBe(
      'the boundary passed but the commit subject and body were not supplied',
    );
  });
});

describe('attribution details (step 2)', () => {
  const tupleLine = `pending: 2 | home | ${HEAD_BEFORE}`;
  const body = (text: string) => {
    const { facts } = conformingOrdinary();
    return validateReturn({ ...facts, commit: { subject: 'loop: row 2 failed', body: text } });
  };
  const detail = (outcome: ReturnOutcome) =>
    outcome.kind === 'unattributed' ? outcome.detail : outcome.kind;

  it('quotes the first body line that is not the tuple, or nothing for an empty body', () => {
    expect(detail(body('fixed quoting'))).toBe(
      `commit body line 1 is "fixed quoting", expected "${tupleLine}"`,
    );
    expect(detail(body(''))).toBe(`commit body line 1 is "", expected "${tupleLine}"`);
  });

  it('quotes the second body line that is not the consumed iteration, or nothing when it is absent', () => {
    expect(detail(body(`${tupleLine}\niteration: 3`))).toBe(
      'commit body line 2 is "iteration: 3", expected "iteration: 4"',
    );
    expect(detail(body(tupleLine))).toBe('commit body line 2 is "", expected "iteration: 4"');
  });
});

describe('the ledger at HEAD', () => {
  it('no findings at all still reads as an unreadable ledger', () => {
    const { facts } = conformingOrdinary();
    expectMiss(
      validateReturn({ ...facts, headLedger: [] }),
      'miss.ledger-unreadable',
      'the ledger at HEAD could not be read',
    );
  });

  it('a deleted ledger is named as a deletion, not as a parse failure', () => {
    const { facts } = conformingOrdinary();
    const absent = [finding('ledger.absent', 0, 'no ledger file at HEAD')];
    expectMiss(
      validateReturn({ ...facts, headLedger: absent }),
      'miss.ledger-unreadable',
      'the commit deletes the ledger file',
    );
  });

  it('every header but iterations and the tuple is fixed, and the miss names the header', () => {
    const { facts } = conformingOrdinary();
    const other = '3333333333333333333333333333333333333333';
    const cases: [Partial<Ledger>, string][] = [
      [{ base: other }, `header base changed from "${BASE}" to "${other}"`],
      [{ checks: 'gate-set' }, 'header checks changed from "commands" to "gate-set"'],
      [
        { spec: 'doc/specs/other.md' },
        'header Spec changed from "doc/specs/2026-01-05-report-export.md" to "doc/specs/other.md"',
      ],
      [{ discriminant: '# Ledger' }, 'header line 1 discriminant changed from "# Loop ledger" to "# Ledger"'],
    ];
    for (const [change, text] of cases)
      expectMiss(validateReturn(withHead(facts, (h) => ({ ...h, ...change }))), 'miss.header', text);
  });
});

describe('control bytes a return writes', () => {
  it('an escape byte or a tab in new evidence is a miss naming the row, shown escaped', () => {
    const { facts } = conformingOrdinary();
    const evidence = (cell: string) =>
      validateReturn(withHead(facts, (h) => withRows(h, row(2, 'failed', 2, cell))));
    expectMiss(
      evidence('npm test; \u001b[31mred'),
      'miss.control-bytes',
      "row 2's evidence holds a control byte: npm test, \\x1b[31mred",
    );
    expectMiss(
      evidence('npm test;\t1 failing'),
      'miss.control-bytes',
      "row 2's evidence holds a control byte: npm test,\\x091 failing",
    );
  });

  it('the shown evidence is cut at 120 characters with a count of the rest', () => {
    const { facts } = conformingOrdinary();
    // 10 + 200 + 1 characters; the escape shows as four, so 214 shown characters, 94 past 120.
    const cell = `npm test; ${'a'.repeat(200)}\u001b`;
    expectMiss(
      validateReturn(withHead(facts, (h) => withRows(h, row(2, 'failed', 2, cell)))),
      'miss.control-bytes',
      `row 2's evidence holds a control byte: npm test, ${'a'.repeat(110)} … [94 more characters]`,
    );
  });

  it('a control byte in a new decision line is a miss naming its line in the decisions list', () => {
    const { facts } = conformingOrdinary();
    const outcome = validateReturn(
      withHead(facts, (h) => ({
        ...h,
        decisions: [
          ...h.decisions.slice(0, 3),
          'row 3 done | the empty report\u0007 writes its header | take row 2',
        ],
      })),
    );
    expectMiss(
      outcome,
      'miss.control-bytes',
      'decision line 4 holds a control byte: row 3 done / the empty report\\x07 writes its header / take row 2',
    );
  });

  it('a tab in a new decision line is shown escaped and the line is cut at 120 characters', () => {
    const { facts } = conformingOrdinary();
    // 24 + 120 characters; the tab shows as four, so 147 shown characters, 27 past 120.
    const line = `row 3 done | tab\there | ${'y'.repeat(120)}`;
    const outcome = validateReturn(
      withHead(facts, (h) => ({ ...h, decisions: [...h.decisions.slice(0, 3), line] })),
    );
    expectMiss(
      outcome,
      'miss.control-bytes',
      `decision line 4 holds a control byte: row 3 done / tab\\x09here / ${'y'.repeat(93)} … [27 more characters]`,
    );
  });

  it('a tab the saved ledger already held is not the return’s doing and is admitted', () => {
    const base = conformingOrdinary();
    const carried = 'npm run smoke;\tupload step not reached';
    const saved = withRows(base.saved, row(5, 'open', 0, carried));
    const head = withRows(base.head, row(5, 'open', 0, carried));
    expect(validateReturn(cleanReturn(saved, 2, head, 'loop: row 2 failed')).kind).toBe('admitted');
  });
});

describe('commit subjects', () => {
  it('a byte-order mark before the subject is a miss that shows the mark', () => {
    const { facts } = conformingOrdinary();
    const outcome = validateReturn({
      ...facts,
      commit: { ...facts.commit!, subject: '\ufeffloop: row 2 failed' },
    });
    expectMiss(outcome, 'miss.subject', /^commit subject is "\\ufeffloop: row 2 failed", expected/);
  });

  it('the subject form is judged before the ledger at HEAD: text before or after it is a subject miss', () => {
    const { facts } = conformingOrdinary();
    const unreadable = [finding('ledger.table.cells', 14, 'row line has 5 cells')];
    for (const subject of ['fixup loop: row 2 failed', 'loop: row 2 failed again'])
      expectMiss(
        validateReturn({ ...facts, commit: { ...facts.commit!, subject }, headLedger: unreadable }),
        'miss.subject',
        `commit subject is "${subject}", expected "loop: row 2 done" or "loop: row 2 failed"`,
      );
  });
});

describe('rows numbered 10 and above', () => {
  it('a conforming return for row 12 is admitted with its subject and decision', () => {
    const saved = ledger({
      iterations: 2,
      rows: [row(1, 'done', 1, 'npm test; header written'), row(12, 'open', 0, 'npm test; footer missing')],
      decisions: [
        'row 0 done | seeded 2 rows, closed 0 on baseline | row 1',
        'row 1 done | header | take row 12',
      ],
    });
    const head = committed(saved, (l) => ({
      ...withRows(l, row(12, 'done', 1, 'npm test; footer written')),
      decisions: [...l.decisions, 'row 12 done | wrote the footer | none'],
    }));
    const outcome = validateReturn(cleanReturn(saved, 12, head, 'loop: row 12 done'));
    expect(outcome.kind).toBe('admitted');
    if (outcome.kind === 'admitted') expect(outcome.decision).toBe('row 12 done | wrote the footer | none');
  });
});

describe('seed returns: only open to done, counts from this return', () => {
  const seedWith = (saved: Ledger, ...changes: Ledger['rows']) => {
    const head = committed(saved, (l) => ({
      ...withRows(l, ...changes),
      decisions: ['row 0 done | seeded 1 rows, closed 0 on baseline | row 2'],
    }));
    return validateReturn(cleanReturn(saved, 'seed', head, 'loop: seed evidence'));
  };

  it('moving a failed row to done or open, or an open row to cut, is a seed miss', () => {
    const failed = withRows(unseeded(), row(2, 'failed', 0, 'npm test; 2 failing'));
    expectMiss(
      seedWith(failed, row(2, 'done', 0, 'npm test; passes')),
      'miss.seed-table',
      'the seed moved row 2 from failed to done (only open to done)',
    );
    expectMiss(
      seedWith(failed, row(2, 'open', 0, 'npm test; 1 failing')),
      'miss.seed-table',
      'the seed moved row 2 from failed to open (only open to done)',
    );
    expectMiss(
      seedWith(unseeded(), row(1, 'cut', 0, 'deferred: TRACK-9')),
      'miss.seed-table',
      'the seed moved row 1 from open to cut (only open to done)',
    );
  });

  it('rewriting the evidence of a done row is a seed miss', () => {
    const saved = withRows(unseeded(), row(1, 'done', 0, 'npm test; header written'));
    expectMiss(
      seedWith(saved, row(1, 'done', 0, 'npm test; header rechecked')),
      'miss.seed-table',
      'the seed changed done row 1',
    );
  });

  it('a row closed on its earlier evidence counts as closed but not as seeded', () => {
    const saved = withRows(unseeded(), row(1, 'open', 0, 'npm test; header already written'));
    const head = committed(saved, (l) => ({
      ...withRows(
        l,
        row(1, 'done', 0, 'npm test; header already written'),
        row(2, 'open', 0, 'npm test; 2 failing'),
      ),
      decisions: ['row 0 done | seeded 1 rows, closed 1 on baseline | row 2'],
    }));
    expect(validateReturn(cleanReturn(saved, 'seed', head, 'loop: seed evidence')).kind).toBe('admitted');
  });

  it('an admitted seed never routes to unreachable handling', () => {
    const outcome = validateReturn(conformingSeed().facts);
    expect(outcome.kind === 'admitted' && outcome.routeUnreachable).toBe(false);
  });
});

describe('ordinary returns: extras', () => {
  it('a failed row closing beside the target is a miss (only open rows may close as extras)', () => {
    const saved = withRows(midLoop(), row(5, 'failed', 1, 'npm run smoke; upload fails'));
    const head = committed(saved, (l) => ({
      ...withRows(
        l,
        row(2, 'failed', 2, 'npm test -- export.test.ts; 1 failing: quote inside quoted field'),
        row(5, 'done', 1, 'npm run smoke; upload passes'),
      ),
      decisions: [
        ...l.decisions,
        'row 2 failed | doubled quotes are still not escaped | escape quotes by doubling them',
        'row 5 done | the upload passes now | take row 2 next',
      ],
    }));
    expectMiss(
      validateReturn(cleanReturn(saved, 2, head, 'loop: row 2 failed')),
      'miss.extra',
      'failed row 5 changed beside target 2 (only open rows may close as extras)',
    );
  });
});

describe('new decision lines: the conforming outcome and its miss details', () => {
  it('text before a row outcome makes the line no row outcome at all', () => {
    const { facts } = conformingOrdinary();
    const outcome = validateReturn(
      withHead(facts, (h) => ({ ...h, decisions: [...h.decisions, 'note: row 5 done | also done | none'] })),
    );
    expectMiss(outcome, 'miss.decision-malformed', 'new decision line 3 is not a row outcome decision');
  });

  it('a line without the space after the first bar, or without a second cell, lacks the form', () => {
    const form = 'new decision line 1 for row 2 does not have the form row N STATUS, summary, next cells';
    for (const line of ['row 2 failed |quotes | escape them', 'row 2 failed | quotes still split'])
      expectMiss(validateReturn(targetDecision(line)), 'miss.decision-malformed', form);
  });

  it('an empty middle cell is named with its length', () => {
    expectMiss(
      validateReturn(targetDecision('row 2 failed | | escape quotes')),
      'miss.decision-malformed',
      'new decision line 1 for row 2 is malformed: its middle cell has 0 characters (1 to 200 allowed)',
    );
  });

  it('an overlong next cell is named as the last cell with its own length', () => {
    const last =
      'new decision line 1 for row 2 is malformed: its last cell has 201 characters (1 to 200 allowed)';
    for (const middle of ['q', 'doubled quotes', 'm'.repeat(200)])
      expectMiss(
        validateReturn(targetDecision(`row 2 failed | ${middle} | ${'x'.repeat(201)}`)),
        'miss.decision-malformed',
        last,
      );
  });

  it('a row number spelled with a leading zero is malformed although both cells fit', () => {
    expectMiss(
      validateReturn(targetDecision('row 02 failed | quotes still split | escape them')),
      'miss.decision-malformed',
      'new decision line 1 for row 2 is malformed',
    );
  });
});

describe('carried action records (§3.19)', () => {
  it('another record in the return does not stand in for the carried one', () => {
    const { facts } = conformingOrdinary();
    const carried = {
      ...withHead(facts, (h) => ({
        ...h,
        decisions: [
          ...h.decisions.slice(0, 2),
          'row 2 failed | ran deploy (1 of 2). Quotes still split | escape quotes by doubling',
          h.decisions[3] as string,
        ],
      })),
      retainedActionRecords: [
        { kind: 'ran' as const, action: 'capture', k: 1, bound: 1, text: 'ran capture (1 of 1)' },
      ],
    };
    expectMiss(
      validateReturn(carried),
      'miss.action-record-dropped',
      'the return dropped the action record "ran capture (1 of 1)" (repeat carried records verbatim in a decision)',
    );
  });
});

describe('oneLine', () => {
  it('collapses every run of blanks to one space', () => {
    expect(oneLine('exit  2\n\n   stderr\t\tlast')).toBe('exit 2 stderr last');
    expect(
      checkReturnBoundary({
        returned: null,
        dispatchError: 'lost  the\n\nhandle',
        porcelain: '',
        commitCount: 0,
      }),
    ).toBe('dispatch error: lost the handle');
  });

  it('turns angle markup into parentheses and leaves a bare angle alone', () => {
    expect(oneLine('<script>alert</script> ran')).toBe('(script)alert(/script) ran');
    expect(oneLine('a <!-- note --> b')).toBe('a (!-- note --) b');
    expect(oneLine('1 < 2 > 0')).toBe('1 < 2 > 0');
  });
});

// git-status(1), porcelain format version 1: each line is `XY PATH` (or `XY ORIG_PATH -> PATH`),
// X the index's status, Y the worktree's, then one space. ` M` is modified in the worktree and
// not staged; `M ` is staged; `??` is untracked.
describe('porcelainLines', () => {
  it('keeps the blank index column of a first line that is changed but not staged', () => {
    expect(porcelainLines(' M src/page.ts')).toEqual([' M src/page.ts']);
    expect(porcelainLines(' M src/page.ts\n?? notes.txt\n')).toEqual([' M src/page.ts', '?? notes.txt']);
  });

  it('keeps every line whole and in order, whatever its two columns', () => {
    expect(
      porcelainLines(
        'M  staged.ts\n M unstaged.ts\nMM both.ts\n D gone.ts\nR  old.ts -> new.ts\n?? notes.txt',
      ),
    ).toEqual([
      'M  staged.ts',
      ' M unstaged.ts',
      'MM both.ts',
      ' D gone.ts',
      'R  old.ts -> new.ts',
      '?? notes.txt',
    ]);
  });

  it('drops a trailing newline and lines that are empty or all blanks, and nothing else', () => {
    expect(porcelainLines('?? a.txt\n')).toEqual(['?? a.txt']);
    expect(porcelainLines('\n M a.ts\n\n   \n D b.ts\n')).toEqual([' M a.ts', ' D b.ts']);
  });

  it('finds no lines in a clean status', () => {
    expect(porcelainLines('')).toEqual([]);
    expect(porcelainLines('\n')).toEqual([]);
    expect(porcelainLines(' \n\n')).toEqual([]);
  });
});
