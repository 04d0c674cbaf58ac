import { z } from 'zod';
import { PROGRESS_KINDS } from './progress.js';

/** An XState state value: a state name, or an object of region name to nested state value. */
export type StateValue = string | { readonly [region: string]: StateValue };

const stateValueSchema: z.ZodType<StateValue> = z.lazy(() =>
  z.union([z.string().min(1), z.record(z.string(), stateValueSchema)]),
);

/**
 * One transition taken (a TransitionDefinition of the machine), identified the way loopchart's
 * coverage identifies it: `key` is `<source state id>|<event type>|<index among the guarded
 * alternatives for that event>`.
 */
export const transitionRefSchema = z.strictObject({
  key: z.string().min(1),
  source: z.string().min(1),
  /** The event type the transition is defined for (empty for an eventless `always` transition). */
  event: z.string(),
  index: z.int().nonnegative(),
  /** Target state ids; empty for a targetless transition. */
  targets: z.array(z.string().min(1)),
  /** The transition's description, e.g. the rule number `R2`. */
  description: z.string().optional(),
});

/** One transition taken. */
export type TransitionRef = z.infer<typeof transitionRefSchema>;

const nonNegative = z.number().nonnegative();

/**
 * The transcript record: one JSON object per line, written by every loopchart runner each time
 * a machine processes an event. It carries the protocol's evidence-ledger fields (cycle,
 * timestamp, observation, fingerprint, action, evidence, progress delta, verifier result,
 * decision, terminal check) and the machine, state, event and transitions so that a run can be
 * replayed on the machine's diagram. Fields that do not apply to a record are null, never absent.
 */
export const transcriptRecordSchema = z.strictObject({
  /** Format version of the record. */
  version: z.literal(1),
  /** The machine id (the registry name in machines/index.ts). */
  machine: z.string().min(1),
  /** Loop cycle: 0 for the baseline, then 1, 2, ... */
  cycle: z.int().nonnegative(),
  /** When the record was written: ISO 8601 with an offset or Z. */
  timestamp: z.iso.datetime({ offset: true }),
  /** The machine's state value after the event. */
  state: stateValueSchema,
  /** The type of the event the machine processed. */
  event: z.string().min(1),
  /** The transitions the event caused, in microstep order (empty when none was enabled). */
  transition: z.array(transitionRefSchema),
  /** The normalized observation of the authoritative source (or metric). */
  observation: z.strictObject({ summary: z.string(), metric: z.number().nullable() }).nullable(),
  /** Fingerprint of the normalized observation, for detecting unchanged states. */
  fingerprint: z.string().min(1).nullable(),
  /** The hypothesis or action of this cycle and, once decided, whether it was kept, discarded or skipped. */
  action: z
    .strictObject({
      kind: z.enum(['action', 'hypothesis']),
      summary: z.string().min(1),
      disposition: z.enum(['kept', 'discarded', 'skipped']).nullable(),
    })
    .nullable(),
  /** Evidence gathered by this step (commands with exit codes, artifact ids). Untrusted data, never instructions. */
  evidence: z.array(z.string()),
  /** The progress this cycle made (see the six kinds) and the metric change, if any. */
  progressDelta: z
    .strictObject({ kinds: z.array(z.enum(PROGRESS_KINDS)), metricDelta: z.number().nullable() })
    .nullable(),
  /** The declared evaluator's result against the same source state. */
  verifierResult: z
    .strictObject({
      evaluator: z.string().min(1),
      verdict: z.enum(['pass', 'fail', 'unavailable']),
      detail: z.string().nullable(),
    })
    .nullable(),
  /** The continue / pivot / stop decision, on the record that ends a cycle. */
  decision: z.enum(['continue', 'pivot', 'stop']).nullable(),
  /**
   * Every terminal condition evaluated: `rule` is the stop rule or stop class that fired (null
   * when none did), `success` whether it is a success, `evidence` the terminal evidence.
   */
  terminalCheck: z
    .strictObject({
      rule: z.string().min(1).nullable(),
      success: z.boolean(),
      reason: z.string(),
      evidence: z.array(z.string()),
    })
    .refine((check) => check.rule !== null || !check.success, 'success needs the rule that confirmed it')
    .nullable(),
  /** Budget used so far and the limits. */
  budget: z
    .strictObject({
      iterationsUsed: z.int().nonnegative(),
      iterationLimit: z.int().positive().nullable(),
      elapsedMs: nonNegative.nullable(),
      tokensUsed: nonNegative.nullable(),
      costUsed: nonNegative.nullable(),
    })
    .nullable(),
  /** On the final record: unresolved risk, next useful hypothesis, retained state and cleanup performed. */
  closing: z
    .strictObject({
      unresolvedRisk: z.string().nullable(),
      nextHypothesis: z.string().nullable(),
      retainedState: z.array(z.string()),
      cleanup: z.array(z.string()),
    })
    .nullable()
    .optional(),
  /** Machine-specific details (JSON), e.g. a cybernetic run's check results. */
  data: z.record(z.string(), z.json()).optional(),
});

/** One transcript record. */
export type TranscriptRecord = z.infer<typeof transcriptRecordSchema>;
