/**
 * A scripted host for the RPI statechart (machines/rpi/): every effect is an in-process actor that
 * answers from the test's script and records what it was asked, so a test can drive the real
 * machine through Plan, Implement, the rounds and the final CI and compare the effects' inputs,
 * the context and the outcome with values written by hand. Nothing here spawns a process.
 */
import { createActor, fromPromise, toPromise } from 'xstate';
import {
  type FinalCiOutcome,
  type FinalCiRequest,
  type ImplementOutcome,
  type ImplementRequest,
  type MeasureSubjectInput,
  type PlanOutcome,
  type RpiContext,
  type RpiInput,
  type RpiOutcome,
  rpiMachine,
  type SubjectMeasure,
  type ValidateRequest,
} from '../../machines/rpi/index.js';

/** A subject-manifest digest made of one repeated hex character. */
export const digest = (c: string): string => c.repeat(64);

/** What a scripted effect answers: a value, or a rejection when it throws. */
export interface RpiScript {
  readonly plan?: () => PlanOutcome;
  readonly implement?: (request: ImplementRequest) => ImplementOutcome;
  readonly measureSubject?: (input: MeasureSubjectInput) => SubjectMeasure;
  readonly validateFresh?: (request: ValidateRequest) => unknown;
  readonly validateCrossFamily?: (request: ValidateRequest) => unknown;
  readonly finalCi?: (request: FinalCiRequest) => FinalCiOutcome;
}

/** One effect the machine invoked: the actor's name and the input it received. */
export interface RpiCall {
  readonly actor: keyof RpiScript;
  readonly input: unknown;
}

/** A validation leg as a validator prints it (convergence.md §1.1), over the requested digest. */
export function leg(
  request: ValidateRequest,
  status: 'PASS' | 'FAIL' | 'NOT_PROVEN',
  findings: readonly { readonly id: string; readonly summary?: string }[],
  family: string,
  extra: Record<string, unknown> = {},
): unknown {
  return {
    status,
    findings,
    subject_digest: request.subjectDigest,
    evidence_refs: [],
    validator_family: family,
    ...extra,
  };
}

const DEFAULTS: Required<RpiScript> = {
  plan: () => ({ planned: true, intentRef: 'caller', acceptanceDigest: null }),
  implement: () => ({ built: true, detail: null }),
  measureSubject: () => ({ digest: digest('a'), changedPaths: ['src/app.ts'] }),
  validateFresh: (request) => leg(request, 'PASS', [], 'alpha'),
  validateCrossFamily: (request) => leg(request, 'PASS', [], 'beta'),
  finalCi: () => ({ configured: false }),
};

/** The machine with every effect answered from `script` (or a default) and recorded in `calls`. */
export function scriptedRpi(script: RpiScript, calls: RpiCall[]) {
  const answer = <I, O>(name: keyof RpiScript) =>
    fromPromise<O, I>(async ({ input }) => {
      calls.push({ actor: name, input });
      const effect = (script[name] ?? DEFAULTS[name]) as (input: I) => O;
      return effect(input);
    });
  return rpiMachine.provide({
    actors: {
      plan: answer<Record<string, never>, PlanOutcome>('plan'),
      implement: answer<ImplementRequest, ImplementOutcome>('implement'),
      measureSubject: answer<MeasureSubjectInput, SubjectMeasure>('measureSubject'),
      validateFresh: answer<ValidateRequest, unknown>('validateFresh'),
      validateCrossFamily: answer<ValidateRequest, unknown>('validateCrossFamily'),
      finalCi: answer<FinalCiRequest, FinalCiOutcome>('finalCi'),
    },
  });
}

/** What a finished run left: its outcome, its last context and every effect it invoked, in order. */
export interface RpiRun {
  readonly outcome: RpiOutcome;
  readonly context: RpiContext;
  readonly calls: readonly RpiCall[];
}

/** Runs the machine to its final state against the scripted host. */
export async function runRpi(input: RpiInput, script: RpiScript = {}): Promise<RpiRun> {
  const calls: RpiCall[] = [];
  const actor = createActor(scriptedRpi(script, calls), { input });
  actor.start();
  const outcome = await toPromise(actor);
  return { outcome, context: actor.getSnapshot().context, calls };
}
