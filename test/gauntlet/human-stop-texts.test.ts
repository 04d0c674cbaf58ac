/**
 * The exact text of the human stops the other tests leave out (gauntlet-protocol §3.16 and §4,
 * docs/human-stops.md): the verify review stops, a commit-boundary return, dirt details that open
 * with an unstaged porcelain line, the problem line's fallbacks, row order, multi-line host texts
 * folded to one line, and the error for a row stop without its ledger. Every expected line is written by hand from those pages.
 */
import { describe, expect, it } from 'vitest';
import { HumanStopError, menuFor, renderHumanStop } from '../../src/gauntlet/human-stop.js';
import type { Ledger } from '../../src/gauntlet/types.js';
import { ledger, row } from './validation-fixtures.js';

const STOP_LINE = '1 - Stop and keep the branch as it is: stop';
const PRESERVE = "Preserve every row's attempts.";
const ROW_MENU = [
  '1 - Retry with hint: retry 2 | <hint>',
  '2 - rows +N: rows +<N> [words]',
  '3 - Amend: amend cut <n> <disposition>, amend reopen <n> or amend spec <change>',
  '4 - Stop and keep the branch as it is: stop',
];

/** Every row closed: verify stops list no row lines. */
const closed: Ledger = ledger({
  iterations: 12,
  rows: [row(1, 'done', 1, 'npm test; 12 passed'), row(2, 'cut', 0, 'elsewhere: api')],
});

function lines(text: string): string[] {
  return text.split('\n');
}

describe('verify review stops', () => {
  it('review-miss and review-cap offer Stop only', () => {
    const stop = { kind: 'stop', number: 1, label: 'Stop and keep the branch as it is', reply: 'stop' };
    expect(
      menuFor({ kind: 'review-miss', role: 'conformance', miss: 'review miss: no status line' }),
    ).toEqual([stop]);
    expect(menuFor({ kind: 'review-cap', used: 2, cap: 2, tasks: ['quote the fields'] })).toEqual([stop]);
  });

  it('a rejected review return names the role and quotes the miss', () => {
    const text = renderHumanStop(
      { kind: 'review-miss', role: 'whole-diff', miss: 'review miss: no verdict\nline' },
      closed,
    );
    expect(lines(text)).toEqual([
      'gauntlet: question',
      'Stopped: the whole-diff review return was rejected',
      PRESERVE,
      'Problem: review miss: no verdict line',
      STOP_LINE,
      '',
    ]);
  });

  it('REVISE at the cap prints the cap block and the fix tasks joined on the problem line', () => {
    const text = renderHumanStop(
      { kind: 'review-cap', used: 3, cap: 3, tasks: ['quote the fields', 'add the\nBOM test'] },
      closed,
    );
    expect(lines(text)).toEqual([
      'gauntlet: question',
      'Stopped: whole-diff review answers REVISE at the fix-round cap',
      '3 fix round(s) used against a cap of 3',
      PRESERVE,
      'Problem: quote the fields / add the BOM test',
      STOP_LINE,
      '',
    ]);
  });

  it('GAPS at the cap joins the open gaps and asks for funding explicitly', () => {
    const text = renderHumanStop(
      { kind: 'conformance-step6', used: 5, cap: 5, openGaps: ['G1: row 2 not covered', 'G3: no XLSX'] },
      closed,
    );
    expect(lines(text)).toEqual([
      'gauntlet: gate=verification-before-completion/step-6',
      'Stopped: conformance review answers GAPS at the fix-round cap',
      '5 fix round(s) used against a cap of 5',
      PRESERVE,
      'Problem: G1: row 2 not covered / G3: no XLSX',
      'Fund more rounds explicitly: raise closureReview.maxFixRounds (--max-fix-rounds) and run again.',
      STOP_LINE,
      '',
    ]);
  });

  it('a carried-open closure joins its open gaps on the problem line', () => {
    const text = renderHumanStop(
      {
        kind: 'closure-carried-open',
        openGaps: ['G1: no XLSX export', 'G2: no\nPDF export'],
        closure: '## Closure / conformance\nstatus: GAPS (2 open)\n',
      },
      closed,
    );
    expect(lines(text).slice(1, 6)).toEqual([
      'Stopped: verification complete with 2 open gap(s) carried to the finishing gate',
      PRESERVE,
      'Problem: G1: no XLSX export / G2: no PDF export',
      '## Closure / conformance',
      'status: GAPS (2 open)',
    ]);
  });

  it('a verification stop with an empty log tail quotes no log line', () => {
    for (const tail of ['', '\n']) {
      const text = renderHumanStop(
        {
          kind: 'verification-failed',
          repairs: 4,
          problem: { kind: 'gate', gate: 1, exitCode: 2, logPath: 'logs/gate-1.log', tail },
        },
        closed,
      );
      expect(lines(text)).toEqual([
        'gauntlet: question',
        'Stopped: verification failed with every row closed',
        'repairs: 4 of 4',
        PRESERVE,
        'Problem: gate 1 exit 2 logs/gate-1.log',
        '1 - Amend: amend cut <n> <disposition>, amend reopen <n> or amend spec <change>',
        '2 - Stop and keep the branch as it is: stop',
        '',
      ]);
    }
  });
});

describe('boundary stops', () => {
  it('a commit-boundary return names the commit boundary in its header and its discard offer', () => {
    const text = renderHumanStop(
      { kind: 'commit-boundary', problem: 'commit boundary', detail: '1 commit after the ledger HEAD' },
      closed,
    );
    expect(lines(text)).toEqual([
      'gauntlet: question',
      'Stopped: commit boundary - 1 commit after the ledger HEAD',
      PRESERVE,
      'Problem: 1 commit after the ledger HEAD',
      '1 - Discard the commit boundary (1 commit after the ledger HEAD) and reset to the ledger HEAD: discard',
      '2 - Stop and keep the branch as it is: stop',
      '',
    ]);
  });

  // A dirt detail quotes `git status --porcelain` v1 lines, `XY PATH`: a blank X (the index column)
  // says the change is not staged, so the blank is part of the line and stays in the stop text.
  it('a dirty-tree boundary quotes an unstaged first line with its blank index column', () => {
    const text = renderHumanStop(
      { kind: 'commit-boundary', problem: 'dirty tree', detail: ' M src/export.ts; ?? notes.txt' },
      closed,
    );
    expect(lines(text)).toEqual([
      'gauntlet: question',
      'Stopped: dirty tree -  M src/export.ts; ?? notes.txt',
      PRESERVE,
      'Problem:  M src/export.ts; ?? notes.txt',
      '1 - Discard the dirty tree ( M src/export.ts; ?? notes.txt) and reset to the ledger HEAD: discard',
      '2 - Stop and keep the branch as it is: stop',
      '',
    ]);
  });

  it('a dirty start quotes an unstaged first line with its blank index column', () => {
    expect(
      lines(renderHumanStop({ kind: 'dirty-start', detail: ' M README.md; ?? notes.txt' }, null)).slice(0, 4),
    ).toEqual([
      'gauntlet: question',
      'Stopped: dirty tree -  M README.md; ?? notes.txt',
      PRESERVE,
      'Problem: uncommitted changes before the first dispatch:  M README.md; ?? notes.txt',
    ]);
  });

  it('folds a multi-line dirt detail to one line, keeping the blank index column that opens it', () => {
    // Porcelain v1 lines, one per change, as a host might pass them unjoined: the header is one
    // line, so each break and the blanks around it become one space and trailing blanks go.
    const detail = ' M src/a.ts  \n\n   ?? notes.txt\r\n';
    expect(lines(renderHumanStop({ kind: 'dirty-start', detail }, null)).slice(0, 4)).toEqual([
      'gauntlet: question',
      'Stopped: dirty tree -  M src/a.ts ?? notes.txt',
      PRESERVE,
      'Problem: uncommitted changes before the first dispatch:  M src/a.ts ?? notes.txt',
    ]);
    const boundary = renderHumanStop({ kind: 'commit-boundary', problem: 'dirty tree', detail }, closed);
    expect(lines(boundary)[1]).toBe('Stopped: dirty tree -  M src/a.ts ?? notes.txt');
    expect(lines(boundary)[3]).toBe('Problem:  M src/a.ts ?? notes.txt');
  });

  it('folds a multi-line host text to one line: each break and its blanks become one space', () => {
    const message = '  settings unreadable\nline 3: no value  \n \n  see the overrides\r\nfile\n';
    expect(lines(renderHumanStop({ kind: 'configuration-error', message }, null))[3]).toBe(
      'Problem: settings unreadable line 3: no value see the overrides file',
    );
    const text = renderHumanStop(
      { kind: 'recovery-incomplete', iteration: 4, what: 'job 41\nnot owned', detail: 'pgid 40\n' },
      closed,
    );
    expect(lines(text)[1]).toBe('Stopped: iteration 4 recovery incomplete - job 41 not owned');
    expect(lines(text)[3]).toBe('Problem: pgid 40');
    expect(lines(text)[4]).toBe(
      '1 - Discard the unadmitted work of iteration 4 (job 41 not owned) and reset to the pre-dispatch HEAD: discard',
    );
  });
});

describe('row stops', () => {
  it('lists open and failed rows in ascending order whatever the order of the ledger rows', () => {
    const shuffled = ledger({
      rows: [
        row(3, 'open', 0, ''),
        row(1, 'failed', 4, 'npm test; 1 failing'),
        row(4, 'done', 1, 'npm test; ok'),
        row(2, 'open', 1, ''),
      ],
    });
    expect(lines(renderHumanStop({ kind: 'row-allowance', row: 1 }, shuffled)).slice(2, 6)).toEqual([
      'row 1: 4 of 4',
      'row 2: 1 of 4',
      'row 3: 0 of 4',
      PRESERVE,
    ]);
  });

  it('quotes the stopped row last outcome line, never another row or a retry line', () => {
    const l = ledger({
      rows: [row(2, 'failed', 4, 'npm test; 1 failing'), row(3, 'failed', 2, 'npm test; 2 failing')],
      decisions: [
        'row 2 failed | quoting splits the cell | quote fields',
        'row 2 retry | use the fixture | allowed attempts 5',
        'row 3 failed | the header is missing | write the header',
      ],
    });
    expect(lines(renderHumanStop({ kind: 'row-allowance', row: 2 }, l))).toContain(
      'Problem: npm test; 1 failing / row 2 failed | quoting splits the cell | quote fields',
    );
  });

  it('an empty evidence cell, a missing row and a row without an outcome line have named fallbacks', () => {
    const l = ledger({
      rows: [row(1, 'open', 0, ''), row(2, 'failed', 4, 'npm test; 1 failing')],
      decisions: ['row 2 failed | quoting splits the cell | quote fields'],
    });
    const problem = (n: number) =>
      lines(renderHumanStop({ kind: 'row-allowance', row: n }, l)).find((line) =>
        line.startsWith('Problem:'),
      );
    expect(problem(1)).toBe('Problem: empty evidence / no decision line');
    expect(problem(9)).toBe('Problem: empty evidence / no decision line');
  });

  it('an unreachable stop without the row text recommends the cut without an out-of-scope entry', () => {
    const l = ledger({ rows: [row(2, 'failed', 4, 'npm test; unreachable: prod DNS - runbook')] });
    const text = renderHumanStop(
      { kind: 'unreachable-amend', row: 2, what: 'prod\nDNS', where: 'runbook' },
      l,
    );
    expect(lines(text).slice(5)).toEqual([
      'Recommendation: amend cut 2 deviates: unreachable in this checkout - prod DNS; proof at runbook',
      '1 - Retry with hint: retry 2 | <hint>',
      '2 - rows +N: rows +<N> [words]',
      '3 - Amend: amend cut 2 (recommended disposition), amend cut 2 <disposition> or amend spec <change>',
      '4 - Redraw the spec (delete the ledger; the next run seeds afresh): redraw <reason>',
      '5 - Stop and keep the branch as it is: stop',
      '',
    ]);
  });

  it('a seed stop without a last repair reason says every seed dispatch was repaired', () => {
    const l = ledger({ rows: [row(1, 'open', 0, '')] });
    expect(lines(renderHumanStop({ kind: 'seed-exhaustion', seedRepairs: 4 }, l))).toEqual([
      'gauntlet: question',
      'Stopped on seed',
      'seed: 4 of 4',
      'row 1: 0 of 4',
      PRESERVE,
      'Problem: every seed dispatch so far was repaired',
      'Recommendation: rows +N - only a raised allowance permits more seed dispatches; a numbered retry leaves the seed count at 4',
      '1 - Retry with hint: retry <n> | <hint>',
      ...ROW_MENU.slice(1),
      '',
    ]);
  });
});

describe('a row stop without its ledger', () => {
  it('throws human-stop.ledger-missing naming the stop kind', () => {
    let thrown: unknown;
    try {
      renderHumanStop({ kind: 'bound-spent', row: 2 }, null);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(HumanStopError);
    const error = thrown as HumanStopError;
    expect(error.code).toBe('human-stop.ledger-missing');
    expect(error.message).toContain('bound-spent');
    expect(error.message).toContain('ledger');
  });

  it('renders a dirty start without one (no ledger is seeded yet)', () => {
    expect(lines(renderHumanStop({ kind: 'dirty-start', detail: '?? notes.txt' }, null)).slice(0, 3)).toEqual(
      ['gauntlet: question', 'Stopped: dirty tree - ?? notes.txt', PRESERVE],
    );
  });
});
