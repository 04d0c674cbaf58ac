// Design or audit only (docs/loop-protocol.md, "Design or audit only", the entry contract's
// table and "Infer or stop"). Every expected value is typed from that text: the 21 labels in the
// table's order, the blocks of the rendered design, the statuses and the audit's findings.
import { describe, expect, it } from 'vitest';
import {
  auditRun,
  type ContractDesign,
  completeEntryContract,
  designEntryContract,
  type EntryContract,
  renderContractDesign,
} from '../../src/loop-protocol/index.js';
import { record } from './fixtures.js';

/** The labels of the entry contract, in the table's order. */
const LABELS = [
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

/** The contract text with only the outcome given: every other field is a bare label. */
const outcomeOnly = `${['Outcome: the flaky-test count reaches 0', ...LABELS.slice(1).map((l) => `${l}:`)].join('\n')}\n`;

/** Every material field given (the ones the table says stop when missing). */
const materialText = [
  'Outcome: the flaky-test count reaches 0',
  'Observable source: npm test output',
  'Allowed actions: edit test files',
  'Actor and sole writer: this loop',
  'Evaluator or guard: npm test',
  'Iteration or poll budget: 6',
].join('\n');

describe('designing a contract', () => {
  it('is invalid when the text has findings, and infers nothing then', () => {
    const design = designEntryContract(`${materialText}\nColour: blue\n`);
    expect(design.status).toBe('invalid');
    expect(design.inferred).toEqual([]);
    expect(design.missing).toEqual([]);
    expect(design.findings.map((f) => [f.code, f.line])).toEqual([['loop-protocol.entry.field-unknown', 7]]);
    expect(design.contract.outcome).toBe('the flaky-test count reaches 0');
  });

  it('needs direction when material fields are missing, naming them in the protocol order', () => {
    const design = designEntryContract('Outcome: the flaky-test count reaches 0\nIteration budget: 6\n');
    expect(design.status).toBe('needs-direction');
    expect(design.missing.map((m) => m.label)).toEqual([
      'Observable source',
      'Allowed actions',
      'Actor and sole writer',
      'Evaluator or guard',
      // stops with the evaluator it would be taken from
      'Final evidence',
    ]);
    expect(design.findings).toEqual([]);
    // the fields given, plus those inferred
    expect(design.contract.outcome).toBe('the flaky-test count reaches 0');
    expect(design.contract.iterationBudget).toBe(6);
    expect(design.contract.stateLocation).toEqual({ kind: 'task_only' });
    expect(design.contract.success).toBe('the flaky-test count reaches 0');
    expect(design.inferred.map((f) => f.label)).toContain('State location');
  });

  it('is complete when every material field is given, the rest inferred', () => {
    const design = designEntryContract(materialText, { checkout: 'main at 3f2c1e0, clean' });
    expect(design.status).toBe('complete');
    expect(design.missing).toEqual([]);
    expect(design.findings).toEqual([]);
    expect(design.contract.environment).toBe('main at 3f2c1e0, clean');
    expect(design.contract.timeOrCostBudget).toEqual({});
    expect(design.inferred.map((f) => f.label)).toEqual(
      LABELS.filter(
        (l) =>
          ![
            'Outcome',
            'Observable source',
            'Allowed actions',
            'Actor and sole writer',
            'Evaluator or guard',
            'Iteration or poll budget',
          ].includes(l),
      ),
    );
  });
});

describe('the rendered design', () => {
  const contract = { outcome: 'the flaky-test count reaches 0' };

  it('is the contract alone when nothing was inferred, missing or found', () => {
    const design: ContractDesign = { status: 'complete', contract, inferred: [], missing: [], findings: [] };
    expect(renderContractDesign(design)).toBe(outcomeOnly);
  });

  it('adds the inferred fields, the question and the findings, one blank line between blocks', () => {
    const design: ContractDesign = {
      status: 'invalid',
      contract,
      inferred: [
        { field: 'success', label: 'Success', value: 'x', source: 'Outcome' },
        { field: 'wakeup', label: 'Wakeup mechanism', value: 'y', source: 'the protocol default' },
      ],
      missing: [
        {
          field: 'actor',
          label: 'Actor and sole writer',
          concerns: ['authority'],
          reason: 'only the user can name it',
        },
        {
          field: 'outcome',
          label: 'Outcome',
          concerns: ['success-metric', 'scope'],
          reason: 'it is the goal',
        },
      ],
      findings: [
        { code: 'loop-protocol.entry.field-duplicate', line: 4, reason: 'Outcome is given again' },
        { code: 'loop-protocol.entry.field-invalid', line: 0, reason: 'iterationBudget: too big' },
      ],
    };
    expect(renderContractDesign(design)).toBe(
      [
        outcomeOnly,
        'Inferred (low-risk) fields:',
        '- Success: from Outcome',
        '- Wakeup mechanism: from the protocol default',
        '',
        'The loop cannot start: these fields would materially change the loop and need your direction:',
        '- Actor and sole writer (changes authority): only the user can name it',
        '- Outcome (changes success-metric, scope): it is the goal',
        '',
        'The contract is invalid:',
        '- line 4: Outcome is given again (loop-protocol.entry.field-duplicate)',
        '- iterationBudget: too big (loop-protocol.entry.field-invalid)',
        '',
      ].join('\n'),
    );
  });
});

describe('auditing a run against its contract', () => {
  const contractWithBudget = (iterationBudget: number) => ({ iterationBudget }) as unknown as EntryContract;
  const success = {
    rule: 'success',
    success: true,
    reason: 'npm test passes',
    evidence: ['npm test exit 0'],
  };
  const finished = (cycle: number) =>
    record({ cycle, decision: 'stop', terminalCheck: success, action: null });

  it('finds nothing in a complete run within its budget (exactly the budget is within it)', () => {
    const records = [record({ cycle: 1, decision: 'continue', action: null }), finished(2)];
    const audit = auditRun(contractWithBudget(2), records);
    expect(audit.report.status).toBe('complete');
    expect(audit.findings).toEqual([]);
  });

  it('names a run without terminal evidence, over budget, with an undecided action', () => {
    const records = [
      record({ cycle: 1, decision: 'continue', action: null }),
      record({ cycle: 2, decision: 'continue', action: null }),
      record({
        cycle: 3,
        decision: 'continue',
        action: { kind: 'action', summary: 'pin the clock', disposition: null },
      }),
    ];
    const audit = auditRun(contractWithBudget(2), records);
    expect(audit.findings).toEqual([
      {
        code: 'loop-protocol.audit.no-terminal-evidence',
        line: 0,
        reason: 'the run has no terminal evidence: the transcript ends without a terminal check',
      },
      {
        code: 'loop-protocol.audit.over-budget',
        line: 0,
        reason: '3 cycles completed, the iteration budget is 2',
      },
      {
        code: 'loop-protocol.audit.action-unverified',
        line: 0,
        reason: 'cycle 3: "pin the clock" was applied but never verified and decided',
      },
    ]);
  });
});

describe('a present field that breaks the schema', () => {
  it('is named by its property, or as the contract for a property the contract does not have', () => {
    const bad = completeEntryContract({ iterationBudget: 0 });
    expect(bad.kind).toBe('invalid');
    if (bad.kind !== 'invalid') return;
    expect(bad.findings.map((f) => [f.code, f.line])).toEqual([['loop-protocol.entry.field-invalid', 0]]);
    expect(bad.findings[0]?.reason.startsWith('iterationBudget: ')).toBe(true);
    const unknown = completeEntryContract({ colour: 'blue' } as never);
    expect(unknown.kind).toBe('invalid');
    if (unknown.kind !== 'invalid') return;
    expect(unknown.findings[0]?.reason.startsWith('contract: ')).toBe(true);
    expect(unknown.findings[0]?.reason.length).toBeGreaterThan('contract: '.length);
  });
});
