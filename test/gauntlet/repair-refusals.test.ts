/**
 * The parent's ledger edits at their edges (docs/api/validation.md, docs/decisions/validation.md
 * 18-21, ledger format §6.2): exact bodies of the single-leg cut, re-bound, raise and amend edits,
 * the records that fit a repaired row's evidence, and every refusal's code and message. Expected
 * values are written by hand from those tables.
 */
import { describe, expect, it } from 'vitest';
import {
  amendItemEdit,
  cutRowEdit,
  emptyVerificationMarker,
  escalationEdit,
  interruptedRowRepair,
  interruptedSeedRepair,
  isCutDispositionText,
  LedgerEditError,
  ordinaryMissRepair,
  raiseAllowanceEdit,
  reopenRowEdit,
  retryEdit,
  seedMissRepair,
  verificationRepairMarker,
} from '../../src/gauntlet/repair.js';
import type { ActionRecord, Ledger } from '../../src/gauntlet/types.js';
import { HEAD_BEFORE, ledger, midLoop, row, tuple } from './validation-fixtures.js';

const CHILD = '0123456789abcdef0123456789abcdef01234567';

/** Runs `fn`, which must throw a LedgerEditError, and returns it. */
function refusal(fn: () => unknown): LedgerEditError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(LedgerEditError);
    return error as LedgerEditError;
  }
  throw new Error('expected a LedgerEditError, nothing was thrown');
}

function ran(action: string, k: number, bound: number): ActionRecord {
  return { kind: 'ran', action, k, bound, text: `ran ${action} (${k} of ${bound})` };
}

function spent(action: string, k: number, bound: number): ActionRecord {
  return { kind: 'bound-spent', action, k, bound, text: `bound spent: ${action} (${k} of ${bound})` };
}

/** The evidence cell of row 3 after an ordinary miss repair of midLoop (i = 3) with `records`. */
function repairedEvidence(records: ActionRecord[]): string {
  const edit = ordinaryMissRepair({
    saved: midLoop(),
    pending: tuple(3),
    miss: 'no decision',
    actionRecords: records,
  });
  const repaired = edit.ledger.rows.find((r) => r.row === 3);
  return repaired?.evidence ?? '';
}

/** A verification ledger at HEAD: the bumped count and the verify tuple still present. */
function verifying(iterations: number, target: 'verify' | 'seed' = 'verify'): Ledger {
  return { ...midLoop(), iterations, pending: tuple(target) };
}

describe('blank reasons are refused with ledger-edit.text, naming what is blank (decision 20)', () => {
  it('names the miss of a row or seed repair', () => {
    for (const run of [
      () => ordinaryMissRepair({ saved: midLoop(), pending: tuple(3), miss: '  ' }),
      () => seedMissRepair({ saved: midLoop(), pending: tuple('seed'), miss: '\n' }),
    ]) {
      const error = refusal(run);
      expect(error.code).toBe('ledger-edit.text');
      expect(error.message).toContain('miss');
    }
  });

  it('names the interrupted reason of a row, seed or empty verification repair', () => {
    for (const run of [
      () => interruptedRowRepair({ saved: midLoop(), pending: tuple(3), reason: ' ' as never }),
      () => interruptedSeedRepair({ saved: midLoop(), pending: tuple('seed'), reason: '' as never }),
      () => emptyVerificationMarker({ saved: midLoop(), pending: tuple('verify'), reason: ' ' }),
    ]) {
      const error = refusal(run);
      expect(error.code).toBe('ledger-edit.text');
      expect(error.message).toContain('reason');
    }
  });
});

describe('repairs for the wrong target are refused with ledger-edit.target', () => {
  it('a row repair of the seed tuple names the target it got', () => {
    const error = refusal(() => ordinaryMissRepair({ saved: midLoop(), pending: tuple('seed'), miss: 'x' }));
    expect(error.code).toBe('ledger-edit.target');
    expect(error.message).toContain('seed');
  });

  it('a seed repair of a numbered tuple names the target it got', () => {
    const error = refusal(() => seedMissRepair({ saved: midLoop(), pending: tuple(3), miss: 'x' }));
    expect(error.code).toBe('ledger-edit.target');
    expect(error.message).toMatch(/\b3\b/);
  });

  it('an empty verification marker needs the verify tuple', () => {
    const error = refusal(() =>
      emptyVerificationMarker({ saved: midLoop(), pending: tuple(3), reason: 'x' }),
    );
    expect(error.code).toBe('ledger-edit.target');
    expect(error.message).not.toBe('');
  });

  it('a row repair of a done row names the repair and the row', () => {
    const error = refusal(() => ordinaryMissRepair({ saved: midLoop(), pending: tuple(1), miss: 'x' }));
    expect(error.code).toBe('ledger-edit.row');
    expect(error.message).toContain('repair');
    expect(error.message).toMatch(/\b1\b/);
  });
});

describe('verificationRepairMarker (§3.18 step 1)', () => {
  it('refuses a ledger whose tuple is not the verify tuple', () => {
    const error = refusal(() => verificationRepairMarker(verifying(4, 'seed'), CHILD));
    expect(error.code).toBe('ledger-edit.target');
  });

  it('takes the first consumed iteration, 1, and refuses 0 with a message', () => {
    const edit = verificationRepairMarker(verifying(1), CHILD);
    expect(edit.subject).toBe('loop: repair verification');
    expect(edit.body).toBe(`pending: verify | home | ${HEAD_BEFORE}\niteration: 1\nadmitted: ${CHILD}`);
    const error = refusal(() => verificationRepairMarker(verifying(0), CHILD));
    expect(error.code).toBe('ledger-edit.target');
    expect(error.message).not.toBe('');
  });

  it('refuses a child that is not a full lowercase SHA as ledger-edit.text, naming it', () => {
    const error = refusal(() => verificationRepairMarker(verifying(4), 'abc1234'));
    expect(error.code).toBe('ledger-edit.text');
    expect(error.message).toContain('"abc1234"');
  });
});

describe('human-choice edits (decision 21, docs/api/validation.md)', () => {
  it('retry refuses a done row, naming the retry', () => {
    const error = refusal(() => retryEdit(midLoop(), 1, 'try again'));
    expect(error.code).toBe('ledger-edit.row');
    expect(error.message).toContain('retry');
  });

  it('retry refuses a hint of two lines or with a pipe as ledger-edit.text, naming the hint', () => {
    for (const hint of ['first\nsecond', 'a | b']) {
      const error = refusal(() => retryEdit(midLoop(), 3, hint));
      expect(error.code).toBe('ledger-edit.text');
      expect(error.message).toContain('hint');
    }
  });

  it('escalation refuses a done row, naming the escalation', () => {
    const error = refusal(() => escalationEdit(midLoop(), 1));
    expect(error.code).toBe('ledger-edit.row');
    expect(error.message).toContain('escalate');
  });

  it('rows +1 is the smallest raise; the body records the allowance before and after', () => {
    const edit = raiseAllowanceEdit(ledger({ allowance: 4 }), 1);
    expect(edit.ledger.allowance).toBe(5);
    expect(edit.body).toBe('rows +1 |\nallowance: 4 -> 5');
    expect(raiseAllowanceEdit(ledger({ allowance: 4 }), 3, 'three more').body).toBe(
      'rows +3 | three more\nallowance: 4 -> 7',
    );
  });

  it('refuses a raise whose new allowance would not be an exact whole number', () => {
    const error = refusal(() => raiseAllowanceEdit(ledger({ allowance: 4 }), Number.MAX_SAFE_INTEGER));
    expect(error.code).toBe('ledger-edit.amount');
  });

  it('refuses raise words with a pipe, naming the words', () => {
    const error = refusal(() => raiseAllowanceEdit(ledger({ allowance: 4 }), 2, 'a | b'));
    expect(error.code).toBe('ledger-edit.text');
    expect(error.message).toContain('words');
  });
});

describe('cut and re-bound on a single-leg ledger (§3.17)', () => {
  it('a disposition cuts only when it starts the text', () => {
    expect(isCutDispositionText('deviates: not worth it')).toBe(true);
    expect(isCutDispositionText('see deviates: not worth it')).toBe(false);
  });

  it('a cut trims the disposition and its body is the one cut line', () => {
    const edit = cutRowEdit(midLoop(), 3, '  deferred: TRACK-9  ');
    expect(edit.subject).toBe('loop: cut row 3');
    expect(edit.body).toBe('cut row 3: deferred: TRACK-9');
    expect(edit.ledger.rows.find((r) => r.row === 3)).toEqual(row(3, 'cut', 0, 'deferred: TRACK-9'));
  });

  it('a re-bound body is the one reopened line; a blank description adds nothing', () => {
    expect(reopenRowEdit(midLoop(), 1).body).toBe('reopened row 1 by amendment');
    expect(reopenRowEdit(midLoop(), 1, '   ').body).toBe('reopened row 1 by amendment');
    expect(reopenRowEdit(midLoop(), 1, 'the header is now optional').body).toBe(
      'reopened row 1 by amendment\nthe header is now optional',
    );
  });

  it('an amend item without a grant has the two lines and nothing else', () => {
    expect(amendItemEdit(midLoop(), 2, 'quote every field', 'quoted commas split').body).toBe(
      'amended the spec: row 2 - quote every field\nevidence: quoted commas split',
    );
  });
});

describe('a cut on a coordinated ledger whose mapping lacks the row', () => {
  it('is refused with ledger-edit.row, naming the row', () => {
    const coordinated: Ledger = {
      ...ledger({ rows: [row(1, 'open', 0, ''), row(2, 'open', 0, ''), row(3, 'open', 0, '')] }),
      legs: {
        members: [
          { name: 'home', base: 'a'.repeat(40), seeded: true },
          { name: 'api', base: 'b'.repeat(40), seeded: true },
        ],
        mapping: [
          { row: 1, ac: 1, leg: 'home' },
          { row: 2, ac: 1, leg: 'api' },
        ],
      },
    };
    const error = refusal(() => cutRowEdit(coordinated, 3, 'deviates: gone'));
    expect(error.code).toBe('ledger-edit.row');
    expect(error.message).toMatch(/\b3\b/);
  });
});

describe('records in a repaired row evidence: the highest k per action, bound spent wins a tie (decision 18)', () => {
  it('a later record with a lower k does not replace the higher one', () => {
    expect(repairedEvidence([ran('capture', 2, 3), ran('capture', 1, 3)])).toBe(
      'iteration 3: no decision; ran capture (2 of 3)',
    );
    expect(repairedEvidence([ran('capture', 2, 3), spent('capture', 1, 3)])).toBe(
      'iteration 3: no decision; ran capture (2 of 3)',
    );
  });

  it('a higher k replaces, in the action first-seen place', () => {
    expect(repairedEvidence([ran('capture', 1, 3), ran('lint', 1, 1), ran('capture', 3, 3)])).toBe(
      'iteration 3: no decision; ran capture (3 of 3); ran lint (1 of 1)',
    );
  });

  it('at the same k a bound spent record wins over ran, whichever comes first', () => {
    const expected = 'iteration 3: no decision; bound spent: capture (1 of 2)';
    expect(repairedEvidence([ran('capture', 1, 2), spent('capture', 1, 2)])).toBe(expected);
    expect(repairedEvidence([spent('capture', 1, 2), ran('capture', 1, 2)])).toBe(expected);
  });

  it('at the same k and kind the record seen first stays', () => {
    expect(repairedEvidence([ran('capture', 1, 2), ran('capture', 1, 3)])).toBe(
      'iteration 3: no decision; ran capture (1 of 2)',
    );
    expect(repairedEvidence([spent('capture', 1, 2), spent('capture', 1, 3)])).toBe(
      'iteration 3: no decision; bound spent: capture (1 of 2)',
    );
  });
});
