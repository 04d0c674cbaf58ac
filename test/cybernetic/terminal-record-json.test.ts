import { beforeEach, describe, expect, it } from 'vitest';
import {
  beginRun,
  concludeCheckpointUnavailable,
  concludeRun,
  isTerminalSuccess,
  type RunContract,
  recordCandidate,
  renderTerminalRecordJson,
  type TerminalRecord,
  terminalRecordToJson,
} from '../../src/cybernetic/index.js';
import { contractOf, runFailing } from './helpers.js';

// docs/cybernetic-loop.md, "The JSON form" and "What the records say": the expected contract is
// typed from the request of test/cybernetic/helpers.ts (the invariant's check, then unit given as
// the text `npm test`, then lint given as a vector; every pass criterion is exit code 0).

const expectedContract = {
  invariant: {
    statement: 'after an index rebuild every stored key is still found',
    offHappyPath: 'index recovery after a crash mid-rebuild',
  },
  checks: [
    {
      name: 'invariant',
      role: 'invariant',
      command: ['node', 'scripts/check-index.js', '--after-rebuild'],
      commandText: 'node scripts/check-index.js --after-rebuild',
      pass: { kind: 'exit-code', exitCode: 0 },
    },
    {
      name: 'unit',
      role: 'existing',
      command: ['npm', 'test'],
      commandText: 'npm test',
      pass: { kind: 'exit-code', exitCode: 0 },
    },
    {
      name: 'lint',
      role: 'existing',
      command: ['npx', 'biome', 'check', '.'],
      commandText: 'npx biome check .',
      pass: { kind: 'exit-code', exitCode: 0 },
    },
  ],
  scope: ['src/index', 'src/store.ts'],
  budget: 5,
};

let contract: RunContract;
// Built in each test, not while the file loads, so that Stryker's per-test coverage sees it.
beforeEach(() => {
  contract = contractOf();
});

function restoredRecord(): TerminalRecord {
  let t = beginRun(contract, runFailing(contract, 0, ['invariant']));
  t = recordCandidate(
    t,
    { id: 'p1', target: 'invariant', summary: 'flush the store', paths: ['src/store.ts'] },
    runFailing(contract, 1, []),
  );
  return concludeRun(t);
}

describe('a terminal record as JSON', () => {
  it('starts with protocol, status and success, then the record fields, the contract last', () => {
    const record = concludeRun(beginRun(contract, runFailing(contract, 0, [])));
    const json = terminalRecordToJson(record);
    expect(Object.keys(json)).toEqual(['protocol', 'status', 'success', 'baseline', 'budget', 'contract']);
    expect(json).toMatchObject({ protocol: 'cybernetic-loop', status: 'already-holds', success: true });
    expect(json.budget).toEqual({ limit: 5, spent: 0 });
    expect(json.contract).toEqual(expectedContract);
  });

  it('spells out the contract of every status that has one, restored being a success', () => {
    const restored = terminalRecordToJson(restoredRecord());
    expect(restored).toMatchObject({ status: 'restored', success: true });
    expect(restored.contract).toEqual(expectedContract);
    const stopped = terminalRecordToJson(concludeCheckpointUnavailable(contract, 'no snapshot tool'));
    expect(stopped).toMatchObject({
      protocol: 'cybernetic-loop',
      status: 'non-converged',
      success: false,
      stopClass: 'checkpoint-unavailable',
      baseline: null,
      attempts: [],
      refusedCandidate: null,
      restoration: { kind: 'not-mutated', reason: 'the run stopped before the first mutation' },
    });
    expect(stopped.contract).toEqual(expectedContract);
  });

  it('an invalid-input record has its findings and no contract', () => {
    const record: TerminalRecord = {
      status: 'invalid-input',
      findings: [
        { code: 'cybernetic.budget.not-positive', line: 0, reason: 'the budget must be at least 1' },
      ],
    };
    expect(terminalRecordToJson(record)).toEqual({
      protocol: 'cybernetic-loop',
      status: 'invalid-input',
      success: false,
      findings: [
        { code: 'cybernetic.budget.not-positive', line: 0, reason: 'the budget must be at least 1' },
      ],
    });
  });

  it('is written with a two-space indent and a final newline', () => {
    const text = renderTerminalRecordJson({
      status: 'invalid-input',
      findings: [{ code: 'c.d', line: 2, reason: 'r' }],
    });
    expect(text).toBe(
      [
        '{',
        '  "protocol": "cybernetic-loop",',
        '  "status": "invalid-input",',
        '  "success": false,',
        '  "findings": [',
        '    {',
        '      "code": "c.d",',
        '      "line": 2,',
        '      "reason": "r"',
        '    }',
        '  ]',
        '}',
        '',
      ].join('\n'),
    );
  });
});

describe('which records are successes', () => {
  it('already-holds and restored, and nothing else', () => {
    const holds = concludeRun(beginRun(contract, runFailing(contract, 0, [])));
    expect(isTerminalSuccess(holds)).toBe(true);
    expect(isTerminalSuccess(restoredRecord())).toBe(true);
    expect(isTerminalSuccess(concludeCheckpointUnavailable(contract, 'no snapshot tool'))).toBe(false);
    expect(isTerminalSuccess({ status: 'invalid-input', findings: [] })).toBe(false);
  });
});
