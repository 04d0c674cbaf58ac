/**
 * The model that explores the RPI statechart: payload cases for every actor outcome and a
 * projection of exactly what its guards read. Findings come from a universe of two ids and
 * subjects from two digests, with a repair bound of 2, which is enough for every condition of the
 * law to hold and to break (a reopen needs two admitted repair rounds).
 */
import type { SnapshotFrom } from 'xstate';
import { type RpiContext, rpiMachine } from '../../../machines/rpi/index.js';
import type { JsonValue } from '../../common/json-value.js';
import { defineMachineModel, type EventPayload } from '../machine-model.js';

type RpiSnapshot = SnapshotFrom<typeof rpiMachine>;

/** Subject digests the model measures: `a…a` and `b…b`; `f…f` is a subject nobody measured. */
export const RPI_MODEL_DIGESTS = {
  a: 'a'.repeat(64),
  b: 'b'.repeat(64),
  foreign: 'f'.repeat(64),
} as const;

/** The acceptance digest Plan returns in the model. */
export const RPI_MODEL_ACCEPTANCE_DIGEST = 'e'.repeat(64);

const ERROR = { error: { message: 'the effect failed' } };

function digestTag(digest: string | null | undefined): string | null {
  if (digest === null || digest === undefined) return null;
  const entry = Object.entries(RPI_MODEL_DIGESTS).find(([, value]) => value === digest);
  return entry ? entry[0] : 'other';
}

function leg(
  status: 'PASS' | 'FAIL' | 'NOT_PROVEN',
  ids: readonly string[],
  digest: string,
  family: string,
  evidence: readonly JsonValue[] = [],
): JsonValue {
  return {
    status,
    findings: ids.map((id) => ({ id, summary: `defect ${id}` })),
    subject_digest: digest,
    evidence_refs: [...evidence],
    validator_family: family,
    checked: [`${family} judged ${status}`],
  };
}

// Fresh legs over the measured subject. NOT_PROVEN [f1] and the PASS that resolves it with evidence
// bound to an unchanged digest exercise the evidence branch of C4.
function freshCases(snapshot: RpiSnapshot): EventPayload[] {
  const context = snapshot.context as RpiContext;
  const digest = context.subject?.digest ?? RPI_MODEL_DIGESTS.a;
  const cases: EventPayload[] = [
    { output: leg('PASS', [], digest, 'alpha') },
    { output: leg('FAIL', ['f1'], digest, 'alpha') },
    { output: leg('FAIL', ['f1', 'f2'], digest, 'alpha') },
  ];
  if (context.phase === null) {
    cases.push({ output: leg('NOT_PROVEN', ['f1'], digest, 'alpha') });
    cases.push({ output: leg('PASS', [], RPI_MODEL_DIGESTS.foreign, 'alpha') });
  } else if (context.phase.current.status === 'NOT_PROVEN') {
    cases.push({
      output: leg('PASS', [], digest, 'alpha', [
        { ref: 'receipt-1', subject_digest: digest, resolves: ['f1'] },
      ]),
    });
  }
  return cases;
}

function crossFamilyCases(snapshot: RpiSnapshot): EventPayload[] {
  const context = snapshot.context as RpiContext;
  const digest = context.subject?.digest ?? RPI_MODEL_DIGESTS.a;
  return [
    { output: leg('PASS', [], digest, 'beta') },
    { output: leg('PASS', [], digest, 'alpha') },
    { output: leg('PASS', [], RPI_MODEL_DIGESTS.foreign, 'beta') },
  ];
}

// The final CI after convergence: no CI command set, a fresh pass, a fresh failure, and a receipt
// whose subject moved during the run or had already moved before it.
function finalCiCases(snapshot: RpiSnapshot): EventPayload[] {
  const context = snapshot.context as RpiContext;
  const converged = context.phase?.current.subjectDigest ?? RPI_MODEL_DIGESTS.a;
  const other = RPI_MODEL_DIGESTS.foreign;
  const commands = [{ command: 'npm test', exitCode: 0, detail: 'exit 0' }];
  const failed = [{ command: 'npm test', exitCode: 1, detail: 'exit 1' }];
  return [
    { output: { configured: false } },
    { output: { configured: true, passed: true, digestBefore: converged, digestAfter: converged, commands } },
    {
      output: {
        configured: true,
        passed: false,
        digestBefore: converged,
        digestAfter: converged,
        commands: failed,
      },
    },
    { output: { configured: true, passed: true, digestBefore: converged, digestAfter: other, commands } },
    { output: { configured: true, passed: true, digestBefore: other, digestAfter: other, commands } },
  ];
}

function summarizeLeg(value: unknown): JsonValue {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not-a-leg';
  const record = value as Record<string, unknown>;
  const findings = Array.isArray(record.findings) ? record.findings : [];
  return {
    status: String(record.status),
    ids: findings.map((f) => String((f as { id?: unknown }).id)),
    subject: digestTag(typeof record.subject_digest === 'string' ? record.subject_digest : null),
    family: String(record.validator_family ?? ''),
    evidence: Array.isArray(record.evidence_refs) ? record.evidence_refs.length : 0,
  };
}

/**
 * What the RPI guards read, as JSON: the risk, the measured subject, the legs of the round being
 * validated, and the repair phase's facts (rounds used, the current round's status, open ids,
 * digest, families and evidence, the closed ids and the stop reason).
 *
 * @param context the RPI context
 */
export function projectRpi(context: RpiContext): JsonValue {
  const phase = context.phase;
  return {
    risky: context.riskySurface,
    subject: digestTag(context.subject?.digest),
    legs: context.legs.map(summarizeLeg),
    phase:
      phase === null
        ? null
        : {
            roundsUsed: phase.roundsUsed,
            status: phase.current.status,
            open: [...phase.current.openIds],
            subject: digestTag(phase.current.subjectDigest),
            families: phase.current.families.length,
            evidence: phase.current.evidenceRefs.map((e) => e.ref),
            closed: [...phase.closedIds].sort(),
            risky: phase.riskySurface,
            stopReason: phase.stopReason,
          },
  };
}

/** The RPI model (repair bound 2, risk classified from changed paths, a cross-family validator available). */
export const rpiModel = defineMachineModel(rpiMachine, {
  input: { repairRounds: 2, risky: 'auto', crossFamily: true },
  events: {
    'xstate.done.actor.plan': [
      { output: { planned: true, intentRef: 'issue-5', acceptanceDigest: RPI_MODEL_ACCEPTANCE_DIGEST } },
      { output: { planned: false, reason: 'the intent names no change' } },
      { output: { planned: true, intentRef: ' ', acceptanceDigest: 'not-a-digest' } },
    ],
    'xstate.error.actor.plan': [ERROR],
    'xstate.done.actor.implement': [
      { output: { built: true, detail: null } },
      { output: { built: false, detail: 'exit 1' } },
    ],
    'xstate.error.actor.implement': [ERROR],
    'xstate.done.actor.repair': [
      { output: { built: true, detail: null } },
      { output: { built: false, detail: 'exit 1' } },
    ],
    'xstate.error.actor.repair': [ERROR],
    'xstate.done.actor.measureSubject': [
      { output: { digest: RPI_MODEL_DIGESTS.a, changedPaths: ['src/app.ts'] } },
      { output: { digest: RPI_MODEL_DIGESTS.b, changedPaths: ['src/app.ts'] } },
      { output: { digest: RPI_MODEL_DIGESTS.b, changedPaths: ['tests/app.test.ts'] } },
    ],
    'xstate.error.actor.measureSubject': [ERROR],
    'xstate.done.actor.validateFresh': freshCases,
    'xstate.error.actor.validateFresh': [ERROR],
    'xstate.done.actor.validateCrossFamily': crossFamilyCases,
    'xstate.error.actor.validateCrossFamily': [ERROR],
    'xstate.done.actor.finalCi': finalCiCases,
    'xstate.error.actor.finalCi': [ERROR],
  },
  project: (snapshot) => projectRpi(snapshot.context as RpiContext),
});
