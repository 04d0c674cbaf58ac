import { describe, expect, it } from 'vitest';
import {
  completeEntryContract,
  ENTRY_CONTRACT_FIELDS,
  ENTRY_CONTRACT_POLICY,
  type EntryContractField,
  parseEntryContract,
  renderStopForDirection,
} from '../../src/loop-protocol/index.js';

/** Fields whose absence would change scope, authority, the success metric or an external action. */
const MATERIAL: EntryContractField[] = [
  'outcome',
  'observableSource',
  'allowedActions',
  'actor',
  'evaluator',
  'iterationBudget',
];

const minimal = parseEntryContract(
  [
    'Outcome: no failing tests',
    'Observable source: the test command',
    'Allowed actions: local edits and test runs',
    'Actor and sole writer: this task',
    'Evaluator or guard: the failing test',
    'Iteration budget: 6',
  ].join('\n'),
).contract;

describe('infer-or-stop', () => {
  it('completes a contract that names every material field, recording a source for each inferred field', () => {
    const result = completeEntryContract(minimal, { checkout: 'main at abc1234, clean' });
    expect(result.kind).toBe('complete');
    if (result.kind !== 'complete') return;
    const inferred = result.inferred.map((f) => f.field);
    expect(inferred.sort()).toEqual(
      ENTRY_CONTRACT_FIELDS.map((s) => s.field)
        .filter((f) => !(f in minimal))
        .sort(),
    );
    expect(result.inferred.every((f) => f.source.length > 0)).toBe(true);
    expect(result.contract.environment).toBe('main at abc1234, clean');
    expect(result.contract.success).toBe('no failing tests');
    expect(result.contract.finalEvidence).toContain('the failing test');
    expect(result.contract.timeOrCostBudget).toEqual({});
  });

  it('never infers an approved durable path: a missing state location is task_only', () => {
    const result = completeEntryContract(minimal);
    expect(result.kind === 'complete' && result.contract.stateLocation).toEqual({ kind: 'task_only' });
  });

  for (const field of MATERIAL)
    it(`stops for user direction when ${field} is missing`, () => {
      const { [field]: _dropped, ...rest } = minimal;
      const result = completeEntryContract(rest);
      expect(result.kind).toBe('stop');
      if (result.kind !== 'stop') return;
      expect(result.missing.map((m) => m.field)).toContain(field);
      expect(result.missing.find((m) => m.field === field)?.concerns.length).toBeGreaterThan(0);
    });

  it('stops on success and final evidence only when the fields they come from are missing too', () => {
    const { outcome: _o, evaluator: _e, iterationBudget: _i, ...rest } = minimal;
    const result = completeEntryContract(rest);
    expect(result.kind === 'stop' && result.missing.map((m) => m.field).sort()).toEqual(
      ['evaluator', 'finalEvidence', 'iterationBudget', 'outcome', 'success', 'timeOrCostBudget'].sort(),
    );
  });

  it('never replaces a field the user gave', () => {
    const result = completeEntryContract({
      ...minimal,
      success: 'custom',
      wakeup: 'an approved hourly automation',
    });
    expect(result.kind === 'complete' && [result.contract.success, result.contract.wakeup]).toEqual([
      'custom',
      'an approved hourly automation',
    ]);
  });

  it('has a policy for every field, and no material field has an inference that ignores the contract', () => {
    for (const spec of ENTRY_CONTRACT_FIELDS) expect(ENTRY_CONTRACT_POLICY[spec.field]).toBeDefined();
    for (const field of MATERIAL) expect(ENTRY_CONTRACT_POLICY[field].infer).toBeNull();
  });

  it('refuses a hand-built contract with an invalid present field', () => {
    const result = completeEntryContract({ ...minimal, iterationBudget: 0 });
    expect(result.kind).toBe('invalid');
    expect(result.kind === 'invalid' && result.findings[0]?.code).toBe('loop-protocol.entry.field-invalid');
  });

  it('asks the user about every missing material field', () => {
    const result = completeEntryContract({});
    if (result.kind !== 'stop') throw new Error('expected a stop');
    const text = renderStopForDirection(result.missing);
    for (const m of result.missing) expect(text).toContain(m.label);
  });
});
