/**
 * The reply parser's edges (docs/human-stops.md, "Reply grammar"): the spacing each reply form
 * allows, menu numbers with the offer's arguments, and the exact sentence of every rejection.
 * Expected values are written by hand from that page; nothing here is computed by the parser.
 */
import { describe, expect, it } from 'vitest';
import {
  type HumanChoice,
  type HumanReplyRejection,
  type HumanStop,
  parseHumanReply,
} from '../../src/gauntlet/human-stop.js';
import type { Ledger } from '../../src/gauntlet/types.js';
import { ledger, row } from './validation-fixtures.js';

const rowStop: HumanStop = { kind: 'row-allowance', row: 2 };
const seedStop: HumanStop = { kind: 'seed-exhaustion', seedRepairs: 4 };
const unreachableStop: HumanStop = {
  kind: 'unreachable-amend',
  row: 3,
  what: 'prod DNS',
  where: 'runbook',
};
const specAmendStop: HumanStop = {
  kind: 'spec-amend',
  row: 2,
  what: 'the bucket is named reports-staging',
  evidence: 'aws s3 ls lists reports-staging',
  entry: 'row 2: the bucket is named reports-staging; evidence: aws s3 ls lists reports-staging',
};
const redrawStop: HumanStop = { kind: 'redraw', row: 2, reason: 'uploads move to\nthe ingest service' };
const recoveryStop: HumanStop = {
  kind: 'recovery-incomplete',
  iteration: 6,
  what: 'checkout ownership unproven',
};
const boundaryStop: HumanStop = { kind: 'commit-boundary', problem: 'dirty tree', detail: 'M a.ts' };
const reopenedStop: HumanStop = { kind: 'reopened-during-verify', row: 1 };

/** The menu a row-allowance stop for row 2 lists in a rejection (docs/human-stops.md). */
const ROW_MENU =
  '1 (retry 2 | <hint>), 2 (rows +<N> [words]), 3 (amend cut <n> <disposition>, amend reopen <n> or amend spec <change>), 4 (stop)';
const RECOVERY_MENU = '1 (discard), 2 (stop)';
const AMEND_FORM =
  'the reply form is: amend cut <n> <disposition>, amend reopen <n> [<new criterion text>] or amend spec <change>';

function choiceOf(reply: string, stop: HumanStop, l?: Ledger): HumanChoice {
  const result = parseHumanReply(reply, stop, l);
  if (!result.ok) throw new Error(`"${reply}" was rejected: ${result.rejection.reason}`);
  return result.choice;
}

function rejectionOf(reply: string, stop: HumanStop, l?: Ledger): HumanReplyRejection {
  const result = parseHumanReply(reply, stop, l);
  if (result.ok) throw new Error(`"${reply}" was accepted as ${JSON.stringify(result.choice)}`);
  return result.rejection;
}

/** Code and sentence of a rejection. */
function why(reply: string, stop: HumanStop, l?: Ledger): [string, string] {
  const rejection = rejectionOf(reply, stop, l);
  return [rejection.code, rejection.reason];
}

describe('blanks and empty replies', () => {
  it('ignores blanks around a reply', () => {
    expect(choiceOf('  stop \n', rowStop)).toEqual({ kind: 'stop' });
    expect(choiceOf('\t4  ', rowStop)).toEqual({ kind: 'stop' });
  });

  it('a blank reply is empty, and the sentence lists every offer as <number> (<reply form>)', () => {
    expect(why('   ', rowStop)).toEqual([
      'reply.empty',
      `the reply is empty; answer with one of: ${ROW_MENU}`,
    ]);
    expect(why('', recoveryStop)).toEqual([
      'reply.empty',
      `the reply is empty; answer with one of: ${RECOVERY_MENU}`,
    ]);
    expect(rejectionOf(' \n ', rowStop).reply).toBe(' \n ');
  });

  it('an unknown reply quotes its first 40 characters', () => {
    const reply = 'please continue with the next row and keep going';
    const first40 = 'please continue with the next row and ke';
    expect(first40).toHaveLength(40);
    expect(why(reply, rowStop)).toEqual([
      'reply.unknown',
      `"${first40}" is not a reply this loop understands; answer with one of: ${ROW_MENU}`,
    ]);
    // Characters are code points, as in decision cells: a character outside the BMP (two UTF-16
    // units) is quoted whole, never cut in half into a lone surrogate.
    const wide = `${'a'.repeat(39)}\u{1F4E6} and more`;
    expect(why(wide, rowStop)).toEqual([
      'reply.unknown',
      `"${'a'.repeat(39)}\u{1F4E6}" is not a reply this loop understands; answer with one of: ${ROW_MENU}`,
    ]);
    expect(why('go on', recoveryStop)).toEqual([
      'reply.unknown',
      `"go on" is not a reply this loop understands; answer with one of: ${RECOVERY_MENU}`,
    ]);
  });
});

describe('menu numbers', () => {
  it('a number the menu does not have is not offered, named with its digits', () => {
    expect(why('12', rowStop)).toEqual([
      'reply.not-offered',
      `this stop has no option 12; answer with one of: ${ROW_MENU}`,
    ]);
    expect(why('3', recoveryStop)).toEqual([
      'reply.not-offered',
      `this stop has no option 3; answer with one of: ${RECOVERY_MENU}`,
    ]);
  });

  it('the arguments may follow the number without a blank', () => {
    expect(choiceOf('1|try the stub', rowStop)).toEqual({ kind: 'retry', row: 2, hint: 'try the stub' });
    expect(choiceOf('2+3 words', rowStop)).toEqual({ kind: 'raise', amount: 3, words: 'words' });
  });

  it('retry by number: "| <hint>" retries the header row, "<n> | <hint>" names the row', () => {
    expect(choiceOf('1 | use the fixture', rowStop)).toEqual({
      kind: 'retry',
      row: 2,
      hint: 'use the fixture',
    });
    expect(choiceOf('1 3 | use the fixture', rowStop)).toEqual({
      kind: 'retry',
      row: 3,
      hint: 'use the fixture',
    });
    // The seed stop names no row, so its retry always names one.
    expect(choiceOf('1 3 | use the fixture', seedStop)).toEqual({
      kind: 'retry',
      row: 3,
      hint: 'use the fixture',
    });
    expect(why('1 | use the fixture', seedStop)).toEqual([
      'reply.malformed',
      'a retry needs a row and a hint: retry <n> | <hint>',
    ]);
  });

  it('rows +N by number takes the amount with or without its plus sign', () => {
    expect(choiceOf('2 3', rowStop)).toEqual({ kind: 'raise', amount: 3, words: '' });
    expect(choiceOf('2 +3 one more', rowStop)).toEqual({ kind: 'raise', amount: 3, words: 'one more' });
    expect(why('2', rowStop)).toEqual(['reply.malformed', 'the reply form is: rows +<N> [words]']);
  });

  it('Amend by number takes the amend arguments', () => {
    expect(choiceOf('3 cut 5 deferred: T-1', rowStop)).toEqual({
      kind: 'amend',
      amendment: { kind: 'cut', row: 5, disposition: 'deferred: T-1' },
    });
    for (const stop of [rowStop, unreachableStop, specAmendStop]) {
      expect(choiceOf('3 spec dates are ISO 8601', stop)).toEqual({
        kind: 'amend',
        amendment: { kind: 'preserve', what: 'dates are ISO 8601' },
      });
    }
  });

  it('a bare Amend number is the recommended cut or entry only where the stop recommends one', () => {
    expect(choiceOf('3', specAmendStop)).toEqual({
      kind: 'amend',
      amendment: {
        kind: 'preserve',
        what: 'row 2: the bucket is named reports-staging; evidence: aws s3 ls lists reports-staging',
      },
    });
    expect(why('3', rowStop)).toEqual(['reply.malformed', AMEND_FORM]);
    expect(why('1', { kind: 'verification-failed', repairs: 4, problem: { kind: 'missing-model' } })).toEqual(
      ['reply.malformed', AMEND_FORM],
    );
  });

  it('stop, discard and redraw by number take no arguments or their own', () => {
    expect(why('4 now', rowStop)).toEqual(['reply.malformed', '"stop" takes no arguments']);
    expect(why('1 now', recoveryStop)).toEqual(['reply.malformed', '"discard" takes no arguments']);
    expect(choiceOf('1', boundaryStop)).toEqual({ kind: 'discard' });
    expect(choiceOf('4', redrawStop)).toEqual({
      kind: 'redraw',
      reason: 'uploads move to the ingest service',
    });
    expect(choiceOf('4 the ingest service owns uploads', redrawStop)).toEqual({
      kind: 'redraw',
      reason: 'the ingest service owns uploads',
    });
  });
});

describe('keyword replies', () => {
  it('stop and discard take no arguments', () => {
    expect(why('stop now', rowStop)).toEqual(['reply.malformed', '"stop" takes no arguments']);
    expect(why('discard now', recoveryStop)).toEqual(['reply.malformed', '"discard" takes no arguments']);
    expect(choiceOf('DISCARD', recoveryStop)).toEqual({ kind: 'discard' });
  });

  it('return takes no row or a whole row number', () => {
    expect(choiceOf('return', reopenedStop)).toEqual({ kind: 'return', row: 1 });
    expect(choiceOf('return 12', { kind: 'reopened-during-verify', row: 12 })).toEqual({
      kind: 'return',
      row: 12,
    });
    for (const reply of ['return x1', 'return 1x', 'return one']) {
      expect(why(reply, reopenedStop)).toEqual(['reply.malformed', 'the reply form is: return [<n>]']);
    }
    // A stop that names no row cannot supply it.
    expect(why('return', boundaryStop)).toEqual(['reply.malformed', 'say which row returns: return <n>']);
  });

  it('retry <n> | <hint>: blanks around the pipe are optional, the row is a whole number', () => {
    const retry = (n: number, hint: string) => ({ kind: 'retry', row: n, hint });
    expect(choiceOf('retry 2| use the fixture', rowStop)).toEqual(retry(2, 'use the fixture'));
    expect(choiceOf('retry 2 |use the fixture', rowStop)).toEqual(retry(2, 'use the fixture'));
    expect(choiceOf('retry 2|use the fixture', rowStop)).toEqual(retry(2, 'use the fixture'));
    expect(choiceOf('retry 2   |   use the fixture', rowStop)).toEqual(retry(2, 'use the fixture'));
    expect(choiceOf('retry 12 | use the fixture', rowStop)).toEqual(retry(12, 'use the fixture'));
    for (const reply of ['retry x2 | use the fixture', 'retry 2', 'retry | use the fixture']) {
      expect(why(reply, rowStop)).toEqual([
        'reply.malformed',
        'a retry needs a row and a hint: retry <n> | <hint>',
      ]);
    }
  });

  it('the hint is one line, without a pipe, not empty', () => {
    expect(why('retry 2 | quote\nthe fields', rowStop)).toEqual([
      'reply.malformed',
      'the hint must be one line',
    ]);
    expect(why('retry 2 | a | b', rowStop)).toEqual([
      'reply.malformed',
      'the hint may not contain "|" (it separates decision cells)',
    ]);
    expect(why('retry 2 |   ', rowStop)).toEqual([
      'reply.malformed',
      'the hint is empty; the reply form is: retry <n> | <hint>',
    ]);
  });

  it('rows +<N> [words]: the keyword may touch the plus sign, the pipe before the words is optional', () => {
    const raise = (amount: number, words: string) => ({ kind: 'raise', amount, words });
    expect(choiceOf('rows+2', rowStop)).toEqual(raise(2, ''));
    expect(choiceOf('Rows  +2', rowStop)).toEqual(raise(2, ''));
    expect(choiceOf('rows +2|budget', rowStop)).toEqual(raise(2, 'budget'));
    expect(choiceOf('rows +2 |budget', rowStop)).toEqual(raise(2, 'budget'));
    expect(choiceOf('rows +2 | budget', rowStop)).toEqual(raise(2, 'budget'));
    expect(choiceOf('rows +1', rowStop)).toEqual(raise(1, ''));
  });

  it('rows +N refuses another form, a zero or an unsafe amount, and words over two lines or with a pipe', () => {
    for (const reply of ['rowsy rows +2', 'rows 2', 'rows +x']) {
      expect(why(reply, rowStop)).toEqual(['reply.malformed', 'the reply form is: rows +<N> [words]']);
    }
    for (const reply of ['rows +0', 'rows +99999999999999999999']) {
      expect(why(reply, rowStop)).toEqual(['reply.malformed', 'rows +N needs a positive whole N']);
    }
    expect(why('rows +2 one\nmore', rowStop)).toEqual(['reply.malformed', 'the words must be one line']);
    expect(why('rows +2 a | b', rowStop)).toEqual([
      'reply.malformed',
      'the words may not contain "|" (it separates decision cells)',
    ]);
  });

  it('amend cut <n> <disposition>: the row is a whole number, the disposition one named line', () => {
    expect(choiceOf('amend cut 12 deferred: T-1', rowStop)).toEqual({
      kind: 'amend',
      amendment: { kind: 'cut', row: 12, disposition: 'deferred: T-1' },
    });
    for (const reply of [
      'amend cut x5 deferred: T-1',
      'amend cut 5x deferred: T-1',
      'amend cut deferred: T-1',
    ]) {
      expect(why(reply, rowStop)).toEqual(['reply.malformed', AMEND_FORM]);
    }
    expect(why('amend cut 5 venue: staging', rowStop)).toEqual([
      'reply.malformed',
      'a cut disposition is one line starting with deviates:, deferred: or elsewhere:',
    ]);
  });

  it('a bare cut takes the recommended disposition only for the unreachable row of the stop', () => {
    expect(choiceOf('amend cut 3', unreachableStop)).toEqual({
      kind: 'amend',
      amendment: {
        kind: 'cut',
        row: 3,
        disposition: 'deviates: unreachable in this checkout - prod DNS; proof at runbook',
      },
    });
    const needs = 'a cut needs a disposition: amend cut <n> deviates: <why> (or deferred:, elsewhere:)';
    expect(why('amend cut 5', unreachableStop)).toEqual(['reply.malformed', needs]);
    expect(why('amend cut 2', rowStop)).toEqual(['reply.malformed', needs]);
  });

  it('amend reopen <n> [<new criterion text>]: a whole row number, the text one line', () => {
    expect(choiceOf('amend reopen 12', rowStop)).toEqual({
      kind: 'amend',
      amendment: { kind: 'reopen', row: 12 },
    });
    expect(choiceOf('amend reopen 1 Dates are written as ISO 8601', rowStop)).toEqual({
      kind: 'amend',
      amendment: { kind: 'reopen', row: 1, text: 'Dates are written as ISO 8601' },
    });
    for (const reply of ['amend reopen x1', 'amend reopen 1x', 'amend reopen']) {
      expect(why(reply, rowStop)).toEqual([
        'reply.malformed',
        'the reply form is: amend reopen <n> [<new criterion text>]',
      ]);
    }
    expect(why('amend reopen 1 Dates are\nISO 8601', rowStop)).toEqual([
      'reply.malformed',
      'the new criterion text is one line',
    ]);
  });

  it('amend spec <change>: the change is given (except at a spec-amend stop) and one line', () => {
    expect(choiceOf('AMEND SPEC', specAmendStop)).toEqual({
      kind: 'amend',
      amendment: {
        kind: 'preserve',
        what: 'row 2: the bucket is named reports-staging; evidence: aws s3 ls lists reports-staging',
      },
    });
    expect(why('amend spec', rowStop)).toEqual([
      'reply.malformed',
      'say what the amendment changes: amend spec <change>',
    ]);
    expect(why('amend spec dates are\nISO 8601', rowStop)).toEqual([
      'reply.malformed',
      'an amendment reply is one line',
    ]);
  });

  it('another amend verb, or none, gets the whole amend grammar', () => {
    for (const reply of ['amend drop row 2', 'amend', 'amend 2']) {
      expect(why(reply, rowStop)).toEqual(['reply.malformed', AMEND_FORM]);
    }
  });

  it('redraw <reason>: the reason is given (except at a redraw stop) and one line', () => {
    expect(choiceOf('redraw', redrawStop)).toEqual({
      kind: 'redraw',
      reason: 'uploads move to the ingest service',
    });
    expect(why('redraw', specAmendStop)).toEqual([
      'reply.malformed',
      'say why the spec is redrawn: redraw <reason>',
    ]);
    expect(why('redraw the ingest\nservice owns uploads', specAmendStop)).toEqual([
      'reply.malformed',
      'a redraw reason is one line',
    ]);
  });
});

describe('choices the stop does not offer', () => {
  it('names the offer and lists the stop menu', () => {
    const offered = (offer: string, menu: string) =>
      `${offer} is not offered at this stop; answer with one of: ${menu}`;
    expect(why('retry 2 | again', recoveryStop)).toEqual([
      'reply.not-offered',
      offered('retry', RECOVERY_MENU),
    ]);
    expect(why('rows +2', recoveryStop)).toEqual(['reply.not-offered', offered('rows +N', RECOVERY_MENU)]);
    expect(why('amend spec dates are ISO 8601', recoveryStop)).toEqual([
      'reply.not-offered',
      offered('amend', RECOVERY_MENU),
    ]);
    expect(why('discard', rowStop)).toEqual(['reply.not-offered', offered('discard', ROW_MENU)]);
    expect(why('redraw the spec is wrong', rowStop)).toEqual([
      'reply.not-offered',
      offered('redraw', ROW_MENU),
    ]);
    expect(why('return', rowStop)).toEqual(['reply.not-offered', offered('return', ROW_MENU)]);
  });
});

describe('row arguments checked against the ledger', () => {
  /** Row 1 done, row 2 failed, row 3 cut, row 4 open. */
  const rows: Ledger = ledger({
    iterations: 7,
    rows: [
      row(1, 'done', 1, 'npm test; 12 passed'),
      row(2, 'failed', 4, 'npm test; 1 failing'),
      row(3, 'cut', 0, 'deferred: TRACK-7'),
      row(4, 'open', 0, ''),
    ],
  });

  it('a retry takes an open or failed row that exists', () => {
    expect(choiceOf('retry 2 | again', rowStop, rows)).toEqual({ kind: 'retry', row: 2, hint: 'again' });
    expect(choiceOf('retry 4 | again', rowStop, rows)).toEqual({ kind: 'retry', row: 4, hint: 'again' });
    expect(why('retry 9 | again', rowStop, rows)).toEqual(['reply.row', 'the ledger has no row 9']);
    expect(why('retry 1 | again', rowStop, rows)).toEqual([
      'reply.row',
      'row 1 is done; only open or failed rows can be retried',
    ]);
    expect(why('retry 3 | again', rowStop, rows)).toEqual([
      'reply.row',
      'row 3 is cut; only open or failed rows can be retried',
    ]);
  });

  it('a cut takes any row not cut yet; a reopen only a done row', () => {
    for (const [n, disposition] of [
      [1, 'elsewhere: api'],
      [2, 'deviates: CSV only'],
      [4, 'deferred: T-1'],
    ] as const) {
      expect(choiceOf(`amend cut ${n} ${disposition}`, rowStop, rows)).toEqual({
        kind: 'amend',
        amendment: { kind: 'cut', row: n, disposition },
      });
    }
    expect(why('amend cut 3 deferred: T-1', rowStop, rows)).toEqual(['reply.row', 'row 3 is already cut']);
    expect(why('amend cut 9 deferred: T-1', rowStop, rows)).toEqual(['reply.row', 'the ledger has no row 9']);
    expect(why('amend reopen 9', rowStop, rows)).toEqual(['reply.row', 'the ledger has no row 9']);
    expect(choiceOf('amend reopen 1', rowStop, rows)).toEqual({
      kind: 'amend',
      amendment: { kind: 'reopen', row: 1 },
    });
    expect(why('amend reopen 3', rowStop, rows)).toEqual([
      'reply.row',
      'row 3 is cut; only a done row can be reopened',
    ]);
    expect(why('amend reopen 2', rowStop, rows)).toEqual([
      'reply.row',
      'row 2 is failed; only a done row can be reopened',
    ]);
    // A requirement-preserving amendment names no row.
    expect(choiceOf('amend spec dates are ISO 8601', rowStop, rows)).toEqual({
      kind: 'amend',
      amendment: { kind: 'preserve', what: 'dates are ISO 8601' },
    });
  });

  it('a return names the reopened row of the stop', () => {
    expect(choiceOf('return 1', reopenedStop, rows)).toEqual({ kind: 'return', row: 1 });
    expect(why('return 4', reopenedStop, rows)).toEqual(['reply.row', 'this stop returns row 1, not row 4']);
  });
});
