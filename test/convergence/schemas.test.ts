import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRound } from '../../src/convergence/normalize-round.js';
import { runRepairPhase, startRepairPhase } from '../../src/convergence/repair-phase.js';
import {
  convergenceJsonSchemas,
  convergenceSchemas,
  repairPhaseResultSchema,
  repairPhaseStateSchema,
  validationLegSchema,
  validationRoundSchema,
} from '../../src/convergence/schemas.js';
import { A, B, binding, fail, notProven, pass } from './fixtures.js';

// Values a careless validator might put anywhere.
const oddValue = fc.constantFrom<unknown>(
  null,
  '',
  ' ',
  'x',
  0,
  -1,
  true,
  [],
  [''],
  ['f1'],
  {},
  { id: 'f1' },
  { ref: 'r' },
  'PASS',
  'FAIL',
  'NOT_PROVEN',
  A,
  A.toUpperCase(),
  [{ id: 'f1' }, { id: 'f1' }],
  [binding('r', A, ['f1'])],
  ['label'],
);
const KEYS = [
  'status',
  'verdict',
  'findings',
  'subject_digest',
  'subject_manifest_digest',
  'evidence_refs',
  'validator_family',
  'checked',
  'not_checked',
];
const baseLeg = fc.constantFrom(
  pass(A),
  fail(A, ['f1', 'f2']),
  notProven(A, []),
  notProven(B, ['f1'], { evidence: ['log', binding('r', B, ['f2'])], family: 'codex' }),
  pass(A, { checked: ['unit'], not_checked: ['perf'], family: 'claude' }),
);
// A leg with some keys deleted or overwritten by odd values.
const mutatedLeg = fc
  .tuple(
    baseLeg,
    fc.array(fc.tuple(fc.constantFrom(...KEYS), fc.option(oddValue, { nil: undefined })), { maxLength: 3 }),
  )
  .map(([leg, edits]) => {
    const out: Record<string, unknown> = { ...leg };
    for (const [key, value] of edits) {
      if (value === undefined) delete out[key];
      else out[key] = value;
    }
    return out;
  });
const anyRound = fc.oneof(mutatedLeg, fc.array(mutatedLeg, { maxLength: 3 }), oddValue);

describe('zod schemas', () => {
  it('the round schema accepts exactly what checkRound accepts', () => {
    let accepted = 0;
    fc.assert(
      fc.property(anyRound, (round) => {
        const ok = checkRound(round).length === 0;
        if (ok) accepted += 1;
        expect(validationRoundSchema.safeParse(round).success).toBe(ok);
      }),
      { numRuns: 2000 },
    );
    expect(accepted).toBeGreaterThan(50); // both outcomes occur
  });

  it('the leg schema accepts exactly the single legs checkRound accepts', () => {
    fc.assert(
      fc.property(mutatedLeg, (leg) => {
        expect(validationLegSchema.safeParse(leg).success).toBe(checkRound(leg).length === 0);
      }),
      { numRuns: 1000 },
    );
  });

  it('a refused round names its round-shape code in the issue params', () => {
    const parsed = validationRoundSchema.safeParse([pass(A), pass(B)]);
    expect(parsed.success).toBe(false);
    const codes = parsed.error?.issues.map((issue) => (issue as { params?: { code?: string } }).params?.code);
    expect(codes).toContain('round.legs-disagree-digest');
  });

  it('phase results and states satisfy their schemas', () => {
    const result = runRepairPhase([fail(A, ['f1', 'f2']), fail(B, ['f2'])], { repairRounds: 1 });
    expect(repairPhaseResultSchema.parse(result)).toEqual(result);
    const state = startRepairPhase(notProven(A, ['f1'], { evidence: ['log'] }));
    expect(repairPhaseStateSchema.parse(JSON.parse(JSON.stringify(state)))).toEqual(state);
  });

  it('lists every schema for JSON Schema emission', () => {
    const json = convergenceJsonSchemas();
    expect(Object.keys(json)).toEqual(Object.keys(convergenceSchemas));
    expect(Object.keys(json)).toEqual(
      expect.arrayContaining([
        'validation-leg',
        'validation-round',
        'repair-phase-result',
        'rpi-report.v1',
        'crank-lane',
        'crank-wave',
      ]),
    );
    for (const schema of Object.values(json)) {
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(() => JSON.stringify(schema)).not.toThrow();
    }
    const leg = json['validation-leg'] as { required?: string[]; allOf?: unknown[] };
    expect(leg.required).toEqual(['findings', 'evidence_refs']);
    expect(leg.allOf).toHaveLength(2); // one verdict key, one digest key
    const report = json['rpi-report.v1'] as { required?: string[]; additionalProperties?: unknown };
    expect(report.required).toHaveLength(9);
    expect(report.additionalProperties).toBe(false);
  });
});
