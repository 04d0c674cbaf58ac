// The entry contract's schema, its published JSON Schema and the infer-or-stop table, as
// docs/loop-protocol.md ("Entry contract", "Infer or stop") states them. Every expected text is
// typed from that document, never read from src/.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  completeEntryContract,
  ENTRY_CONTRACT_POLICY,
  type EntryContract,
  entryContractSchema,
} from '../../src/loop-protocol/index.js';

const complete: EntryContract = {
  outcome: 'the parser accepts CRLF ledgers',
  nonGoals: 'no new ledger format',
  environment: 'main at 3f2c1e0, clean',
  observableSource: 'npx vitest run test/parser',
  baseline: 'run the parser tests once',
  unitOfAction: 'one edit to src/parser',
  allowedActions: 'edit src/parser',
  forbiddenActions: 'commits and pushes',
  actor: 'the implementer',
  evaluator: 'npx vitest run test/parser',
  progressRule: 'one more test passes',
  checkpoint: 'loop-owned changes only',
  stateLocation: { kind: 'task_only' },
  iterationBudget: 6,
  timeOrCostBudget: {},
  success: 'the parser tests pass',
  terminalFailure: 'the evaluator cannot run',
  plateauRule: 'stop after 3 non-improving cycles',
  escalateWhen: 'a change outside src/parser is needed',
  wakeup: 'continuation inside the current task',
  finalEvidence: 'the parser tests pass on the final state',
};

const messagesOf = (value: unknown): string[] => {
  const result = entryContractSchema.safeParse(value);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('the entry contract schema', () => {
  it('reads both state locations', () => {
    expect(entryContractSchema.parse(complete).stateLocation).toEqual({ kind: 'task_only' });
    const approved = { ...complete, stateLocation: { kind: 'approved_path', path: ' .loop/ledger.md ' } };
    expect(entryContractSchema.parse(approved).stateLocation).toEqual({
      kind: 'approved_path',
      path: '.loop/ledger.md',
    });
    expect(messagesOf({ ...complete, stateLocation: { kind: 'task_only', path: 'x' } })).not.toEqual([]);
    expect(messagesOf({ ...complete, stateLocation: { kind: 'approved_path' } })).not.toEqual([]);
    expect(messagesOf({ ...complete, stateLocation: { kind: 'somewhere' } })).not.toEqual([]);
  });

  it('trims a text value and refuses a blank one', () => {
    expect(entryContractSchema.parse({ ...complete, outcome: '  ship it  ' }).outcome).toBe('ship it');
    expect(messagesOf({ ...complete, outcome: '   ' })).toHaveLength(1);
    expect(messagesOf({ ...complete, outcome: '   ' })[0]).toMatch(/^outcome: /);
  });

  it('refuses a cost amount with more than six decimal places', () => {
    const cost = (amount: number) => ({
      ...complete,
      timeOrCostBudget: { cost: { amount, currency: 'EUR' } },
    });
    expect(messagesOf(cost(1.123456))).toEqual([]);
    expect(messagesOf(cost(1.1234567))).toEqual(['timeOrCostBudget.cost.amount: at most 6 decimal places']);
  });

  it('refuses a currency that is not exactly three capital letters', () => {
    const currency = (code: string) => ({
      ...complete,
      timeOrCostBudget: { cost: { amount: 5, currency: code } },
    });
    expect(messagesOf(currency('USD'))).toEqual([]);
    for (const code of ['XUSD', 'USDX', 'usd', 'US'])
      expect(messagesOf(currency(code)), code).toEqual([
        'timeOrCostBudget.cost.currency: an ISO 4217 code such as USD',
      ]);
  });

  it('refuses a plateau rule without a threshold, saying so', () => {
    expect(messagesOf({ ...complete, plateauRule: 'stop when stuck' })).toEqual([
      'plateauRule: the plateau rule must state a threshold, e.g. "stop after 3 non-improving attempts"',
    ]);
  });

  it('is published with each property described by its label', () => {
    const json = z.toJSONSchema(entryContractSchema, { io: 'input' }) as {
      properties: Record<string, { description?: string }>;
    };
    const described = Object.fromEntries(
      Object.entries(json.properties).map(([key, value]) => [key, value.description]),
    );
    expect(described).toEqual({
      outcome: 'Outcome',
      nonGoals: 'Non-goals',
      environment: 'Environment or checkout',
      observableSource: 'Observable source',
      baseline: 'Baseline',
      unitOfAction: 'Unit of action',
      allowedActions: 'Allowed actions',
      forbiddenActions: 'Forbidden actions',
      actor: 'Actor and sole writer',
      evaluator: 'Evaluator or guard',
      progressRule: 'Progress rule',
      checkpoint: 'Checkpoint and rollback boundary',
      stateLocation: 'State location: task_only | approved_path <path>',
      iterationBudget: 'Iteration or poll budget',
      timeOrCostBudget: 'Time or cost budget ({} = none beyond the iteration budget)',
      success: 'Success',
      terminalFailure: 'Terminal failure',
      plateauRule: 'Plateau or no-progress rule',
      escalateWhen: 'Escalate when',
      wakeup: 'Wakeup mechanism',
      finalEvidence: 'Final evidence',
    });
  });
});

describe('the infer-or-stop table', () => {
  it('holds the concerns and reason of every field as the document lists them', () => {
    const table = Object.fromEntries(
      Object.entries(ENTRY_CONTRACT_POLICY).map(([field, p]) => [field, [p.concerns.join(', '), p.reason]]),
    );
    expect(table).toEqual({
      outcome: ['success-metric, scope', 'the outcome is what the loop works toward'],
      nonGoals: ['scope', 'non-goals narrow the scope'],
      environment: ['scope', 'the checkout decides what the loop touches'],
      observableSource: ['success-metric', 'the authoritative source defines what is measured'],
      baseline: ['', ''],
      unitOfAction: ['', ''],
      allowedActions: ['authority, scope', 'allowed actions grant authority, which the protocol never adds'],
      forbiddenActions: ['authority', 'forbidden actions limit authority'],
      actor: ['authority', 'the sole writer holds the mutating authority over the checkout'],
      evaluator: ['success-metric', 'the evaluator decides success'],
      progressRule: ['', ''],
      checkpoint: ['', ''],
      stateLocation: ['external-action', 'a durable path needs the user to approve it'],
      iterationBudget: ['authority', 'the iteration or poll budget bounds how much the loop may do'],
      timeOrCostBudget: ['authority', 'without an iteration budget there is no other bound on time or spend'],
      success: ['success-metric', 'success cannot be restated without an outcome'],
      terminalFailure: ['', ''],
      plateauRule: ['', ''],
      escalateWhen: ['', ''],
      wakeup: ['external-action', 'a cross-turn wakeup or automation is a separate authority'],
      finalEvidence: ['success-metric', 'final evidence cannot be named without an evaluator'],
    });
  });

  it('records where a guessed environment came from', () => {
    const sourceOf = (checkout?: string) => {
      const result = completeEntryContract({}, checkout === undefined ? {} : { checkout });
      if (result.kind === 'invalid') throw new Error('an empty contract breaks no schema');
      return result.inferred.find((f) => f.field === 'environment')?.source;
    };
    expect(sourceOf()).toBe('protocol: baseline step 2 records the source revision, branch and dirty state');
    expect(sourceOf('main at 3f2c1e0, clean')).toBe('repository inspection (read-only)');
  });

  it('names a nested field by its path joined with "."', () => {
    const result = completeEntryContract({
      timeOrCostBudget: { cost: { amount: 0.0000001, currency: 'EUR' } },
    });
    expect(result).toEqual({
      kind: 'invalid',
      findings: [
        {
          code: 'loop-protocol.entry.field-invalid',
          line: 0,
          reason: 'timeOrCostBudget.cost.amount: at most 6 decimal places',
        },
      ],
    });
  });
});
