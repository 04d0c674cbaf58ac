import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ENTRY_CONTRACT_FIELDS,
  type EntryContract,
  entryContractSchema,
  loopProtocolSchemas,
  type PartialEntryContract,
  parseEntryContract,
  parseTimeOrCostBudget,
  renderEntryContract,
  renderTimeOrCostBudget,
} from '../../src/loop-protocol/index.js';

/** The protocol's 21 entry-contract labels, as the protocol text lists them. */
const PROTOCOL_LABELS = [
  'Outcome',
  'Non-goals',
  'Environment or checkout',
  'Observable source',
  'Baseline',
  'Unit of action',
  'Allowed actions',
  'Forbidden actions',
  'Actor and sole writer',
  'Evaluator or guard',
  'Progress rule',
  'Checkpoint and rollback boundary',
  'State location',
  'Iteration or poll budget',
  'Time or cost budget',
  'Success',
  'Terminal failure',
  'Plateau or no-progress rule',
  'Escalate when',
  'Wakeup mechanism',
  'Final evidence',
];

const complete: EntryContract = {
  outcome: 'the flaky-test count reaches zero',
  nonGoals: 'no refactoring of passing suites',
  environment: 'main checkout, clean',
  observableSource: 'the CI test command',
  baseline: 'three runs of the suite before any edit',
  unitOfAction: 'one root-cause fix',
  allowedActions: 'edits under src/ and test/, local test runs',
  forbiddenActions: 'dependency upgrades, commits, pushes',
  actor: 'the current task',
  evaluator: 'the failing test, then the full preflight',
  progressRule: 'each cycle removes one flaky test or eliminates one hypothesis',
  checkpoint: 'loop-owned edits only',
  stateLocation: { kind: 'approved_path', path: '/tmp/loop-ledger.jsonl' },
  iterationBudget: 8,
  timeOrCostBudget: { timeMs: 5_400_000, tokens: 200_000, cost: { amount: 12.5, currency: 'USD' } },
  success: 'zero flaky tests over five consecutive runs',
  terminalFailure: 'the suite cannot run at all',
  plateauRule: 'stop after 3 cycles without progress',
  escalateWhen: 'a fix needs a dependency change',
  wakeup: 'continuation inside the current task',
  finalEvidence: 'five green runs on the final diff',
};

describe('the entry contract schema', () => {
  it('has exactly one field per field of the protocol, with the protocol labels in order', () => {
    expect(ENTRY_CONTRACT_FIELDS.map((spec) => spec.label)).toEqual(PROTOCOL_LABELS);
    expect(Object.keys(entryContractSchema.shape).sort()).toEqual(
      ENTRY_CONTRACT_FIELDS.map((s) => s.field).sort(),
    );
  });

  it('accepts a complete contract and refuses a missing field, an unknown field and a bad state location', () => {
    expect(entryContractSchema.safeParse(complete).success).toBe(true);
    const { outcome: _o, ...withoutOutcome } = complete;
    expect(entryContractSchema.safeParse(withoutOutcome).success).toBe(false);
    expect(entryContractSchema.safeParse({ ...complete, extra: 1 }).success).toBe(false);
    expect(entryContractSchema.safeParse({ ...complete, stateLocation: { kind: 'repo' } }).success).toBe(
      false,
    );
    expect(entryContractSchema.safeParse({ ...complete, plateauRule: 'stop when stuck' }).success).toBe(
      false,
    );
  });

  it('emits JSON Schema for every published schema', () => {
    for (const [name, schema] of Object.entries(loopProtocolSchemas)) {
      const json = z.toJSONSchema(schema) as { type?: string; properties?: Record<string, unknown> };
      expect(json.type, name).toBe('object');
      expect(Object.keys(json.properties ?? {}).length, name).toBeGreaterThan(5);
    }
  });
});

describe('parsing and rendering the Field: value text form', () => {
  it('reads a contract written with the short labels of the protocol example', () => {
    const text = [
      'Outcome: no failing tests',
      'Observable source: the project test command',
      'Unit of action: one root-cause fix',
      'Actor and sole writer: this task',
      'Evaluator or guard: the failing test, then preflight',
      'Iteration budget: 6',
      'Plateau: stop after 3 non-improving attempts',
      'Allowed actions: local edits and test runs',
      'Forbidden actions: dependency changes, commits, pushes, external writes',
      'Final evidence: the test and preflight pass on the final diff',
    ].join('\n');
    const parsed = parseEntryContract(text);
    expect(parsed.findings).toEqual([]);
    expect(parsed.contract.iterationBudget).toBe(6);
    expect(parsed.contract.plateauRule).toBe('stop after 3 non-improving attempts');
    expect(parsed.contract.actor).toBe('this task');
    expect(parsed.lines.iterationBudget).toBe(6);
  });

  it("parses the protocol's blank template to an empty contract", () => {
    const template = `${PROTOCOL_LABELS.map((label) => `${label}:`).join('\n')}\n`;
    expect(parseEntryContract(template)).toMatchObject({ contract: {}, findings: [] });
    expect(renderEntryContract({})).toBe(template);
  });

  it('round-trips a complete contract through text', () => {
    const text = renderEntryContract(complete);
    expect(text).toContain('State location: approved_path /tmp/loop-ledger.jsonl');
    expect(text).toContain('Time or cost budget: 90m, 200000 tokens, 12.5 USD');
    const parsed = parseEntryContract(text);
    expect(parsed.findings).toEqual([]);
    expect(parsed.contract).toEqual(complete);
    expect(renderEntryContract(parsed.contract)).toBe(text);
  });

  it('continues a value on indented lines', () => {
    const parsed = parseEntryContract('Allowed actions: edits under src/\n  and test runs\nOutcome: green');
    expect(parsed.contract.allowedActions).toBe('edits under src/\nand test runs');
    expect(renderEntryContract({ allowedActions: 'a\nb' }, { omitMissing: true })).toBe(
      'Allowed actions: a\n  b\n',
    );
  });

  it('reports unknown fields, duplicates, stray lines and bad values with line numbers', () => {
    const text = [
      'Outcome: x',
      'Outcomes: y',
      'Outcome: z',
      'just words',
      'State location: the repo',
      'Iteration or poll budget: six',
      'Time or cost budget: a while',
      'Plateau or no-progress rule: when it feels stuck',
    ].join('\n');
    const { findings, contract } = parseEntryContract(text);
    expect(findings.map((f) => [f.line, f.code])).toEqual([
      [2, 'loop-protocol.entry.field-unknown'],
      [3, 'loop-protocol.entry.field-duplicate'],
      [4, 'loop-protocol.entry.line-unrecognized'],
      [5, 'loop-protocol.entry.state-location-invalid'],
      [6, 'loop-protocol.entry.iteration-budget-invalid'],
      [7, 'loop-protocol.entry.time-or-cost-budget-invalid'],
      [8, 'loop-protocol.entry.plateau-threshold-missing'],
    ]);
    expect(contract).toEqual({ outcome: 'x' });
  });

  it('requires a path for approved_path and accepts task_only', () => {
    expect(parseEntryContract('State location: approved_path').findings[0]?.code).toBe(
      'loop-protocol.entry.state-location-invalid',
    );
    expect(parseEntryContract('State location: task_only').contract.stateLocation).toEqual({
      kind: 'task_only',
    });
  });

  it('round-trips any contract through text (property, 1,000 runs)', () => {
    const line = fc
      .string({ minLength: 1, maxLength: 20, unit: 'grapheme' })
      .map((s) => s.replace(/[\r\n\u2028\u2029\u0085]/g, ' ').trim())
      .filter((s) => s !== '');
    const textValue = fc.array(line, { minLength: 1, maxLength: 3 }).map((lines) => lines.join('\n'));
    const contractArb: fc.Arbitrary<PartialEntryContract> = fc.record(
      {
        outcome: textValue,
        nonGoals: textValue,
        environment: textValue,
        observableSource: textValue,
        baseline: textValue,
        unitOfAction: textValue,
        allowedActions: textValue,
        forbiddenActions: textValue,
        actor: textValue,
        evaluator: textValue,
        progressRule: textValue,
        checkpoint: textValue,
        stateLocation: fc.oneof(
          fc.constant({ kind: 'task_only' as const }),
          line.filter((p) => !/\s/.test(p)).map((path) => ({ kind: 'approved_path' as const, path })),
        ),
        iterationBudget: fc.integer({ min: 1, max: 1_000_000 }),
        timeOrCostBudget: fc.record(
          {
            timeMs: fc.integer({ min: 1, max: 10 ** 10 }),
            tokens: fc.integer({ min: 1, max: 10 ** 10 }),
            cost: fc.record({
              amount: fc.integer({ min: 1, max: 10 ** 8 }).map((cents) => cents / 100),
              currency: fc.constantFrom('USD', 'EUR', 'GBP'),
            }),
          },
          { requiredKeys: [] },
        ),
        success: textValue,
        terminalFailure: textValue,
        plateauRule: fc.integer({ min: 1, max: 99 }).map((n) => `stop after ${n} flat cycles`),
        escalateWhen: textValue,
        wakeup: textValue,
        finalEvidence: textValue,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(contractArb, (contract) => {
        const parsed = parseEntryContract(renderEntryContract(contract));
        expect(parsed.findings).toEqual([]);
        expect(parsed.contract).toEqual(contract);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('the time or cost budget', () => {
  it('reads durations, token limits and costs in any order', () => {
    expect(parseTimeOrCostBudget('$20 and 500k tokens; 1.5h')).toEqual({
      ok: true,
      budget: { timeMs: 5_400_000, tokens: 500_000, cost: { amount: 20, currency: 'USD' } },
    });
    expect(parseTimeOrCostBudget('45 minutes, 2M tokens, 3 EUR')).toEqual({
      ok: true,
      budget: { timeMs: 2_700_000, tokens: 2_000_000, cost: { amount: 3, currency: 'EUR' } },
    });
    expect(parseTimeOrCostBudget('none')).toEqual({ ok: true, budget: {} });
  });

  it('refuses unknown items, repeated limits and zero limits', () => {
    for (const text of ['soon', '1h, 2h', '$5, 6 USD', '0 tokens', '0m', ''])
      expect(parseTimeOrCostBudget(text).ok, text).toBe(false);
  });

  it('renders time in the largest exact unit', () => {
    expect(renderTimeOrCostBudget({ timeMs: 7_200_000 })).toBe('2h');
    expect(renderTimeOrCostBudget({ timeMs: 90_000 })).toBe('90s');
    expect(renderTimeOrCostBudget({ timeMs: 1500 })).toBe('1500ms');
    expect(renderTimeOrCostBudget({})).toBe('none');
  });
});
