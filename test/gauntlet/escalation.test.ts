import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import {
  escalationThreshold,
  isEscalatedRound,
  isEscalationSpent,
  requireEscalateAfter,
} from '../../src/gauntlet/escalation.js';
import { ledgerOf } from './rules-fixtures.js';

describe('escalation threshold (§3.7)', () => {
  it('X1: allowance 4, escalateAfter 2 and attempts 2 make this dispatch the escalated round', () => {
    const ledger = ledgerOf({
      allowance: 4,
      rows: [
        ['open', 0],
        ['open', 0],
        ['failed', 2],
      ],
    });
    expect(escalationThreshold(2, 4)).toBe(2);
    expect(isEscalatedRound(ledger, 3, 2)).toBe(true);
  });

  it('X1: one attempt below the threshold is an ordinary round', () => {
    const ledger = ledgerOf({ allowance: 4, rows: [['failed', 1]] });
    expect(isEscalatedRound(ledger, 1, 2)).toBe(false);
  });

  it('X3: allowance 1 gives threshold 0, so every row’s first dispatch is escalated', () => {
    const ledger = ledgerOf({
      allowance: 1,
      rows: [
        ['open', 0],
        ['open', 0],
      ],
    });
    expect(escalationThreshold(2, 1)).toBe(0);
    expect(isEscalatedRound(ledger, 1, 2)).toBe(true);
    expect(isEscalatedRound(ledger, 2, 5)).toBe(true);
  });

  it('a durable escalation decision spends the round: never a second escalated round', () => {
    const ledger = ledgerOf({
      allowance: 4,
      rows: [['failed', 3]],
      decisions: ['row 1 escalated | implModel round | allowed attempts 4'],
    });
    expect(isEscalationSpent(ledger, 1)).toBe(true);
    expect(isEscalatedRound(ledger, 1, 2)).toBe(false);
  });

  it('another row’s escalation decision does not spend this row’s round', () => {
    const ledger = ledgerOf({
      allowance: 4,
      rows: [
        ['failed', 3],
        ['failed', 3],
      ],
      decisions: ['row 2 escalated | implModel round | allowed attempts 4'],
    });
    expect(isEscalatedRound(ledger, 1, 2)).toBe(true);
  });

  it('the threshold follows the effective allowance: a retry moves it when escalateAfter is larger', () => {
    const ledger = ledgerOf({ allowance: 4, rows: [['failed', 3]] });
    expect(isEscalatedRound(ledger, 1, 5)).toBe(true);
    const retried = { ...ledger, decisions: ['row 1 retry | go on | allowed attempts 5'] };
    expect(escalationThreshold(5, 5)).toBe(4);
    expect(isEscalatedRound(retried, 1, 5)).toBe(false);
  });

  it('an unescalated row is escalated no later than its last allowed attempt', () => {
    for (let allowance = 1; allowance <= 8; allowance++)
      for (let escalateAfter = 0; escalateAfter <= 10; escalateAfter++)
        expect(escalationThreshold(escalateAfter, allowance)).toBeLessThanOrEqual(allowance - 1);
  });

  it('rejects an escalateAfter that is not a non-negative integer with a named error', () => {
    const ledger = ledgerOf({ rows: [['open', 0]] });
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => isEscalatedRound(ledger, 1, bad)).toThrow(InputError);
      try {
        requireEscalateAfter(bad);
      } catch (error) {
        expect((error as InputError).code).toBe('rules.escalate-after');
      }
    }
  });
});

describe('escalateAfter edges (§3.7)', () => {
  it('zero is a valid setting: every numbered row escalates on its first dispatch', () => {
    expect(() => requireEscalateAfter(0)).not.toThrow();
    expect(isEscalatedRound(ledgerOf({ allowance: 4, rows: [['open', 0]] }), 1, 0)).toBe(true);
  });

  it('the refusal names the setting and the value that was given', () => {
    for (const bad of [-2, 2.5]) {
      let caught: unknown;
      try {
        requireEscalateAfter(bad);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(InputError);
      const message = (caught as InputError).message;
      expect(message).toContain('loopEngine.escalateAfter');
      expect(message).toContain(String(bad));
      expect(message).toContain('non-negative integer');
    }
  });

  it('a row the table does not hold is never an escalated round', () => {
    const ledger = ledgerOf({ allowance: 1, rows: [['open', 0]] });
    expect(isEscalatedRound(ledger, 1, 0)).toBe(true);
    expect(isEscalatedRound(ledger, 2, 0)).toBe(false);
  });
});
