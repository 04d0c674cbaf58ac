import { z } from 'zod';
import { laneSchema, waveSchema } from '../crank/schemas.js';
import { checkRound } from './normalize-round.js';
import { REPORT_STATUSES, type ReportStatus } from './report-status.js';
import { RPI_REPORT_SCHEMA_VERSION } from './rpi-report.js';
import { STOP_REASONS, type StopReason } from './stop-reason.js';
import { SUBJECT_DIGEST_PATTERN } from './subject-digest.js';
import { VERDICTS, type Verdict } from './verdict.js';

/**
 * zod schemas of the convergence records, for hosts that validate at their boundary and for JSON
 * Schema emission.
 *
 * Input schemas (a validation leg, a round) accept exactly what `checkRound` accepts: their
 * structure describes every field, and a refinement runs `checkRound` for the rules JSON Schema
 * cannot state (unique ids per leg, PASS without and FAIL with findings, agreeing digests, `status`
 * over `verdict` precedence). Each refinement issue carries the round-shape code in `params.code`.
 */

const nonBlank = z.string().regex(/\S/, 'must be a non-blank string');

/** PASS, FAIL or NOT_PROVEN. */
export const verdictSchema = z.enum(VERDICTS as readonly [Verdict, ...Verdict[]]).meta({ title: 'verdict' });

/** A report status: a verdict, NOT_PLANNED or NOT_BUILT. */
export const reportStatusSchema = z
  .enum(REPORT_STATUSES as readonly [ReportStatus, ...ReportStatus[]])
  .meta({ title: 'report status' });

/** 64 lowercase hex characters. */
export const subjectDigestSchema = z
  .string()
  .regex(SUBJECT_DIGEST_PATTERN, 'must be 64 lowercase hex characters');

/** An open finding: a stable non-blank id; any other key is carried through. */
export const openFindingSchema = z.looseObject({
  id: nonBlank.meta({ description: 'Stable identity of the defect; a reworded finding keeps its id.' }),
  summary: z.unknown().optional().meta({ description: "The validator's wording." }),
});

/** Evidence after normalization: a ref, optionally bound to a digest and to the ids it resolves. */
export const evidenceBindingSchema = z.looseObject({
  ref: nonBlank,
  subject_digest: subjectDigestSchema.optional(),
  resolves: z.array(nonBlank).optional(),
});

const evidenceEntrySchema = z.union([
  nonBlank.meta({ description: 'A bare evidence label; it never admits an unchanged subject.' }),
  z.looseObject({
    ref: nonBlank,
    subject_digest: subjectDigestSchema.nullable().optional(),
    resolves: z.array(nonBlank).nullable().optional(),
  }),
]);

// The shape alone; the refinements are added by the exported schemas.
const legStructure = z
  .looseObject({
    status: verdictSchema.nullable().optional().meta({ description: 'Takes precedence over verdict.' }),
    verdict: z.unknown().optional().meta({ description: 'Read only when status is absent or null.' }),
    findings: z.array(openFindingSchema).meta({ description: 'Required; empty on PASS, non-empty on FAIL.' }),
    subject_digest: subjectDigestSchema
      .nullable()
      .optional()
      .meta({ description: 'Takes precedence over subject_manifest_digest.' }),
    subject_manifest_digest: z
      .unknown()
      .optional()
      .meta({ description: 'Read only when subject_digest is absent or null.' }),
    evidence_refs: z.array(evidenceEntrySchema).meta({ description: 'Required; may be empty.' }),
    validator_family: nonBlank.nullable().optional(),
    checked: z.array(nonBlank).optional(),
    not_checked: z.array(nonBlank).optional(),
  })
  .meta({
    // What the refinement enforces and JSON Schema can state: one verdict key and one digest key.
    allOf: [
      {
        anyOf: [
          { required: ['status'], properties: { status: { enum: [...VERDICTS] } } },
          { required: ['verdict'], properties: { verdict: { enum: [...VERDICTS] } } },
        ],
      },
      {
        anyOf: [
          { required: ['subject_digest'], properties: { subject_digest: { type: 'string' } } },
          {
            required: ['subject_manifest_digest'],
            properties: {
              subject_manifest_digest: { type: 'string', pattern: SUBJECT_DIGEST_PATTERN.source },
            },
          },
        ],
      },
    ],
  });

function refineWithCheckRound(value: unknown, ctx: z.RefinementCtx): void {
  for (const f of checkRound(value))
    ctx.addIssue({ code: 'custom', message: f.reason, params: { code: f.code } });
}

/** One validate leg as validators emit it (snake_case keys). */
export const validationLegSchema = legStructure.superRefine(refineWithCheckRound).meta({
  title: 'validation leg',
  description:
    'One validate leg. A PASS leg carries no findings, a FAIL leg at least one, finding ids are unique within the leg.',
});

/** A validation round: one leg or a non-empty list of legs that agree on the subject digest. */
export const validationRoundSchema = z
  .union([legStructure, z.array(legStructure).min(1)])
  .superRefine(refineWithCheckRound)
  .meta({
    title: 'validation round',
    description: 'One validate leg, or a non-empty list of legs judging one digest.',
  });

/** A round after its legs are merged. */
export const normalizedRoundSchema = z
  .strictObject({
    status: verdictSchema,
    openFindings: z.array(openFindingSchema),
    openIds: z.array(nonBlank),
    subjectDigest: subjectDigestSchema,
    evidenceRefs: z.array(evidenceBindingSchema),
    families: z.array(nonBlank),
    checked: z.array(nonBlank),
    notChecked: z.array(nonBlank),
  })
  .meta({ title: 'normalized round' });

const stopReasonSchema = z.enum(STOP_REASONS as readonly [StopReason, ...StopReason[]]);

/** The incremental repair phase state (what a statechart keeps in its context and persists). */
export const repairPhaseStateSchema = z
  .strictObject({
    repairRounds: z.int().min(0),
    riskySurface: z.boolean(),
    roundsUsed: z.int().min(0),
    closedIds: z.array(nonBlank),
    current: normalizedRoundSchema,
    checkedLines: z.array(nonBlank),
    stopReason: stopReasonSchema.nullable(),
    lawStopped: z.boolean(),
  })
  .meta({ title: 'repair phase state' });

/** What the repair phase reports. */
export const repairPhaseResultSchema = z
  .strictObject({
    stopReason: stopReasonSchema,
    status: verdictSchema,
    roundsUsed: z.int().min(0),
    openFindings: z.array(openFindingSchema),
    checked: z.array(nonBlank),
    notChecked: z.array(nonBlank),
    subjectDigest: subjectDigestSchema,
  })
  .meta({ title: 'repair phase result' });

/** `rpi-report.v1`: exactly nine keys. */
export const rpiReportSchema = z
  .strictObject({
    schema_version: z.literal(RPI_REPORT_SCHEMA_VERSION),
    status: reportStatusSchema,
    intent_ref: nonBlank.nullable(),
    acceptance_digest: subjectDigestSchema.nullable(),
    subject_manifest_digest: subjectDigestSchema.nullable(),
    verdict_ref: nonBlank.nullable(),
    verdict_digest: subjectDigestSchema.nullable(),
    checked: z.array(z.string()),
    not_checked: z.array(z.string()),
  })
  .meta({ title: 'rpi-report.v1' });

/** Every schema of the convergence law and crank, by the name its JSON Schema file takes. */
export const convergenceSchemas = {
  'validation-leg': validationLegSchema,
  'validation-round': validationRoundSchema,
  'normalized-round': normalizedRoundSchema,
  'repair-phase-state': repairPhaseStateSchema,
  'repair-phase-result': repairPhaseResultSchema,
  'rpi-report.v1': rpiReportSchema,
  'crank-lane': laneSchema,
  'crank-wave': waveSchema,
} as const;

/** The name of one of {@link convergenceSchemas}. */
export type ConvergenceSchemaName = keyof typeof convergenceSchemas;

/**
 * The JSON Schema (draft 2020-12) of every schema in {@link convergenceSchemas}. Refinements are
 * not part of JSON Schema; the shapes are, and each schema's description names the rest.
 *
 * @returns a JSON Schema document per schema name
 */
export function convergenceJsonSchemas(): Record<ConvergenceSchemaName, Record<string, unknown>> {
  const out = {} as Record<ConvergenceSchemaName, Record<string, unknown>>;
  for (const [name, schema] of Object.entries(convergenceSchemas) as [ConvergenceSchemaName, z.ZodType][]) {
    out[name] = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  }
  return out;
}
