import { describe, expect, it } from 'vitest';
import {
  convergenceJsonSchemas,
  normalizedRoundSchema,
  repairPhaseResultSchema,
  repairPhaseStateSchema,
  rpiReportSchema,
  validationLegSchema,
  validationRoundSchema,
} from '../../src/convergence/schemas.js';
import { A, B } from './fixtures.js';

// Expected values typed from docs/convergence.md (§1.1 the leg, §1.2 the merged round, §4.1
// rpi-report.v1): verdicts PASS, FAIL, NOT_PROVEN; report statuses add NOT_PLANNED and NOT_BUILT;
// digests are 64 lowercase hex; ids, refs, families and checked lines are non-blank strings.
const ok = (schema: { safeParse: (v: unknown) => { success: boolean } }, value: unknown) =>
  schema.safeParse(value).success;

const round = {
  status: 'FAIL',
  openFindings: [{ id: 'f1', summary: 'x' }],
  openIds: ['f1'],
  subjectDigest: A,
  evidenceRefs: [{ ref: 'log', subject_digest: B, resolves: ['f0'] }],
  families: ['claude'],
  checked: ['npm test'],
  notChecked: ['perf'],
};

describe('the convergence schemas (docs/convergence.md)', () => {
  it('the merged round: each field typed, blank strings and unknown keys refused', () => {
    expect(ok(normalizedRoundSchema, round)).toBe(true);
    for (const status of ['PASS', 'NOT_PROVEN'])
      expect(ok(normalizedRoundSchema, { ...round, status })).toBe(true);
    const refused: Record<string, unknown>[] = [
      { status: 'NOT_BUILT' },
      { openFindings: [{ id: ' ' }] },
      { openIds: [''] },
      { subjectDigest: 'A'.repeat(64) },
      { subjectDigest: 'a'.repeat(63) },
      { evidenceRefs: [{ ref: ' ' }] },
      { evidenceRefs: [{ ref: 'log', subject_digest: 'x' }] },
      { evidenceRefs: [{ ref: 'log', resolves: [' '] }] },
      { families: ['\t'] },
      { checked: [''] },
      { notChecked: [' '] },
      { extra: 1 },
    ];
    for (const change of refused)
      expect(ok(normalizedRoundSchema, { ...round, ...change }), JSON.stringify(change)).toBe(false);
    // A binding without digest or resolves, and a finding without summary, are whole.
    expect(
      ok(normalizedRoundSchema, { ...round, evidenceRefs: [{ ref: 'log' }], openFindings: [{ id: 'f1' }] }),
    ).toBe(true);
  });

  it('the phase state and result: counts are whole numbers from 0, the stop reason one of seven or null', () => {
    const state = {
      repairRounds: 0,
      riskySurface: false,
      roundsUsed: 0,
      closedIds: [],
      current: round,
      checkedLines: ['repair round 0: 1 open findings'],
      stopReason: null,
      lawStopped: false,
    };
    expect(ok(repairPhaseStateSchema, state)).toBe(true);
    for (const change of [
      { repairRounds: -1 },
      { repairRounds: 1.5 },
      { roundsUsed: -1 },
      { closedIds: [''] },
      { checkedLines: [' '] },
      { stopReason: 'gave_up' },
      { riskySurface: 'no' },
      { extra: true },
    ])
      expect(ok(repairPhaseStateSchema, { ...state, ...change }), JSON.stringify(change)).toBe(false);
    const reasons = [
      'converged',
      'diversity_unsatisfied',
      'repair_budget_exhausted',
      'reopened_finding',
      'finding_set_grew',
      'no_subject_or_evidence_change',
      'not_converged',
    ];
    for (const stopReason of reasons) expect(ok(repairPhaseStateSchema, { ...state, stopReason })).toBe(true);
    const result = {
      stopReason: 'converged',
      status: 'PASS',
      roundsUsed: 2,
      openFindings: [],
      checked: [],
      notChecked: [],
      subjectDigest: A,
    };
    expect(ok(repairPhaseResultSchema, result)).toBe(true);
    for (const change of [
      { stopReason: null },
      { status: 'NOT_PLANNED' },
      { roundsUsed: -1 },
      { checked: [''] },
      { notChecked: [' '] },
      { subjectDigest: B.toUpperCase() },
      { extra: 0 },
    ])
      expect(ok(repairPhaseResultSchema, { ...result, ...change }), JSON.stringify(change)).toBe(false);
  });

  it('rpi-report.v1: exactly nine keys, digests 64 lowercase hex or null, any report status', () => {
    const report = {
      schema_version: 'rpi-report.v1',
      status: 'NOT_PROVEN',
      intent_ref: 'issue-42',
      acceptance_digest: A,
      subject_manifest_digest: B,
      verdict_ref: null,
      verdict_digest: null,
      checked: ['repair round 0: 1 open findings'],
      not_checked: [],
    };
    expect(ok(rpiReportSchema, report)).toBe(true);
    for (const status of ['PASS', 'FAIL', 'NOT_PLANNED', 'NOT_BUILT'])
      expect(ok(rpiReportSchema, { ...report, status })).toBe(true);
    expect(
      ok(rpiReportSchema, {
        ...report,
        intent_ref: null,
        acceptance_digest: null,
        subject_manifest_digest: null,
      }),
    ).toBe(true);
    expect(ok(rpiReportSchema, { ...report, verdict_ref: 'v', verdict_digest: A })).toBe(true);
    for (const change of [
      { schema_version: 'rpi-report.v2' },
      { status: 'UNKNOWN' },
      { intent_ref: ' ' },
      { acceptance_digest: 'a' },
      { subject_manifest_digest: A.toUpperCase() },
      { verdict_ref: '' },
      { verdict_digest: 'z'.repeat(64) },
      { next_action: 'retry' },
    ])
      expect(ok(rpiReportSchema, { ...report, ...change }), JSON.stringify(change)).toBe(false);
  });

  it('the leg and the round refuse blank labels, refs, families and checked lines, and an empty list of legs', () => {
    const leg = {
      status: 'PASS',
      findings: [],
      subject_digest: A,
      evidence_refs: ['log', { ref: 'r', subject_digest: null, resolves: null }],
    };
    expect(ok(validationLegSchema, leg)).toBe(true);
    expect(ok(validationRoundSchema, [leg, { ...leg, validator_family: 'codex' }])).toBe(true);
    expect(ok(validationRoundSchema, [])).toBe(false);
    for (const change of [
      { evidence_refs: [' '] },
      { evidence_refs: [{ ref: '' }] },
      { validator_family: ' ' },
      { checked: [''] },
      { not_checked: ['\n'] },
    ]) {
      expect(ok(validationLegSchema, { ...leg, ...change }), JSON.stringify(change)).toBe(false);
      expect(ok(validationRoundSchema, [{ ...leg, ...change }]), JSON.stringify(change)).toBe(false);
    }
    // A blank string is refused with a message that says so (the merged round has no refinement
    // whose own reason could say it instead).
    const parsed = normalizedRoundSchema.safeParse({ ...round, families: [' '] });
    expect(parsed.error?.issues.map((issue) => issue.message).join('\n')).toMatch(/non-blank/);
    const digest = rpiReportSchema.safeParse({
      schema_version: 'rpi-report.v1',
      status: 'PASS',
      intent_ref: null,
      acceptance_digest: 'x',
      subject_manifest_digest: null,
      verdict_ref: null,
      verdict_digest: null,
      checked: [],
      not_checked: [],
    });
    expect(digest.error?.issues.map((issue) => issue.message).join('\n')).toMatch(/64 lowercase hex/);
  });

  it('JSON Schema: one verdict key and one digest key, each record titled, every leg field described', () => {
    const json = convergenceJsonSchemas() as Record<string, Record<string, unknown>>;
    const titles = Object.fromEntries(Object.entries(json).map(([name, schema]) => [name, schema.title]));
    expect(titles).toEqual({
      'validation-leg': 'validation leg',
      'validation-round': 'validation round',
      'normalized-round': 'normalized round',
      'repair-phase-state': 'repair phase state',
      'repair-phase-result': 'repair phase result',
      'rpi-report.v1': 'rpi-report.v1',
      'crank-lane': 'crank lane',
      'crank-wave': 'crank wave',
    });
    const leg = json['validation-leg'] as {
      description?: string;
      allOf: unknown[];
      properties: Record<string, { description?: string; title?: string }>;
    };
    const verdicts = ['PASS', 'NOT_PROVEN', 'FAIL']; // in rank order (§1.2)
    expect(leg.allOf).toEqual([
      {
        anyOf: [
          { required: ['status'], properties: { status: { enum: verdicts } } },
          { required: ['verdict'], properties: { verdict: { enum: verdicts } } },
        ],
      },
      {
        anyOf: [
          { required: ['subject_digest'], properties: { subject_digest: { type: 'string' } } },
          {
            required: ['subject_manifest_digest'],
            properties: { subject_manifest_digest: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
          },
        ],
      },
    ]);
    expect(leg.description).toMatch(/PASS.*FAIL/s);
    expect((json['validation-round'] as { description?: string }).description).toMatch(/digest/);
    for (const key of [
      'status',
      'verdict',
      'findings',
      'subject_digest',
      'subject_manifest_digest',
      'evidence_refs',
    ])
      expect(leg.properties[key]?.description, key).toMatch(/\w{3}/);
    expect(JSON.stringify(leg.properties.status)).toMatch(/"title":"verdict"/);
    const finding = JSON.stringify(leg.properties.findings);
    expect(finding).toMatch(/"id":\{[^}]*"description":"\w/);
    expect(finding).toMatch(/"summary":\{[^}]*"description":"\w/);
    // An evidence entry is a described bare label or a binding { ref, subject_digest?, resolves? }.
    const entry = (leg.properties.evidence_refs as { items: { anyOf: Record<string, unknown>[] } }).items
      .anyOf;
    expect(entry.map((option) => option.type)).toEqual(['string', 'object']);
    expect(entry[0]?.description).toMatch(/\w{3}/);
    expect(Object.keys(entry[1]?.properties as object)).toEqual(['ref', 'subject_digest', 'resolves']);
    expect(entry[1]?.required).toEqual(['ref']);
    expect(JSON.stringify(json['rpi-report.v1'])).toMatch(/"title":"report status"/);
  });
});
