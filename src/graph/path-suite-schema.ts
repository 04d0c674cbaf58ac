import { z } from 'zod';

/** A state value: a state key, or an object of region keys to child values. */
const stateValueSchema: z.ZodType<string | { [key: string]: unknown }> = z.union([
  z.string(),
  z.record(
    z.string(),
    z.lazy(() => stateValueSchema),
  ),
]);

/** What a path step expects of the machine: state value, status and the model's projection. */
export const modelStateSchema = z
  .object({
    value: stateValueSchema.describe('XState state value'),
    status: z.enum(['active', 'done', 'error', 'stopped']),
    projection: z.json().describe("the model's project(snapshot): what guards read"),
  })
  .describe('a machine state as the model sees it');

/** An event with its payload (`output`, `error`, or the fields of a human choice). */
export const pathEventSchema = z
  .object({ type: z.string().min(1) })
  .catchall(z.json())
  .describe('an event with its payload');

/** One step of a generated path. */
export const pathStepSchema = z.object({
  stateBefore: modelStateSchema,
  event: pathEventSchema,
  delivery: z
    .enum(['send', 'settle', 'timer'])
    .describe(
      'send: actor.send; settle: resolve/reject the invoked actor; timer: advance the simulated clock',
    ),
  stateAfter: modelStateSchema,
  transitions: z
    .array(z.string())
    .describe('keys (<source id>|<event type>|<index>) of the transitions taken, always microsteps included'),
});

/** One generated path: a test case. */
export const pathSchema = z.object({
  id: z.string().describe('stable id derived from the event sequence'),
  description: z.string(),
  steps: z.array(pathStepSchema).min(1),
});

/** A generated path suite, as written to disk and read back by test runners. */
export const pathSuiteSchema = z
  .object({
    machine: z.string().describe('the machine id'),
    strategy: z.enum(['shortest', 'transition-cover', 'transition-pair', 'random-walk']),
    walk: z
      .object({
        seed: z.number().int().nonnegative(),
        length: z.number().int().positive(),
      })
      .optional()
      .describe('random-walk only: the seed and the number of steps over all walks'),
    initial: z.object({
      state: modelStateSchema,
      transitions: z.array(z.string()).describe('always transitions taken while starting'),
    }),
    paths: z.array(pathSchema),
    summary: z.object({
      paths: z.number().int().nonnegative(),
      steps: z.number().int().nonnegative(),
      transitionsCovered: z.number().int().nonnegative(),
      transitionsTotal: z.number().int().nonnegative(),
      statesCovered: z.number().int().nonnegative(),
      statesTotal: z.number().int().nonnegative(),
      uncoveredTransitions: z.array(z.string()).describe('keys of transitions no path takes'),
      uncoveredStates: z.array(z.string()).describe('ids of state nodes no path enters'),
      transitionPairsCovered: z
        .number()
        .int()
        .nonnegative()
        .optional()
        .describe('transition-pair only: pairs of consecutive transitions some path takes'),
      transitionPairsTotal: z
        .number()
        .int()
        .nonnegative()
        .optional()
        .describe('transition-pair only: pairs of consecutive transitions reachable in the model'),
      uncoveredTransitionPairs: z
        .array(z.tuple([z.string(), z.string()]))
        .optional()
        .describe('transition-pair only: reachable pairs [from, to] no path takes'),
    }),
  })
  .describe('loopchart model-based path suite');

/** A generated path suite (see {@link pathSuiteSchema}). */
export type PathSuite = z.infer<typeof pathSuiteSchema>;
/** One path of a {@link PathSuite}. */
export type SuitePath = z.infer<typeof pathSchema>;
/** One step of a {@link SuitePath}. */
export type PathStep = z.infer<typeof pathStepSchema>;
/** A machine state as a path step records it. */
export type ModelStateJson = z.infer<typeof modelStateSchema>;
/** The path generation strategies. */
export type PathStrategy = PathSuite['strategy'];
