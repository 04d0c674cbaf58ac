/**
 * A reference of the RPI repair loop written in test code from the convergence law's text
 * (agentops §1.2 run_repair_phase, §1.4-§1.8), NOT from src/convergence: it replays a generated
 * path's events and answers the state the loop must be in after each step. Plan and build
 * outcomes route by their payload; a round is the fresh leg plus a cross-family leg on a risky
 * surface; a round whose legs disagree on the digest or judged another subject is rejected;
 * round 0 spends no budget; a repair round is judged by C3 (reopen), C2 (growth) and C4 (subject
 * or binding evidence changed) in that order; then PASS converges unless a risky PASS has fewer
 * than two families, and a non-PASS repairs while rounds remain (C1). A PASS then runs the full CI
 * command set once on the integrated subject (seed 002): no command set converges as before; a
 * receipt whose digest before or after the run is not the converged digest is stale; otherwise the
 * CI's pass converges and its failure stops.
 */
import type { PathStep } from '../../src/graph/path-suite-schema.js';

/** `^…` patterns of the risky surface (§1.8). */
const RISKY = [
  /^cli\/internal\/gates\//,
  /^scripts\/check-[^/]*\.sh$/,
  /^tests\//,
  /^skills\/[^/]+\/scripts\//,
  /^skills\/cc-hooks\/policies\//,
  /^lib\//,
  /^\.github\/workflows\//,
  /^scripts\/security-gate\.sh$/,
];

interface Leg {
  readonly status: 'PASS' | 'FAIL' | 'NOT_PROVEN';
  readonly findings: readonly { readonly id: string }[];
  readonly subject_digest: string;
  readonly evidence_refs: readonly {
    readonly ref: string;
    readonly subject_digest?: string;
    readonly resolves?: readonly string[];
  }[];
  readonly validator_family: string;
}

interface Round {
  readonly status: Leg['status'];
  readonly open: ReadonlySet<string>;
  readonly digest: string;
  readonly evidence: Leg['evidence_refs'];
  readonly families: number;
}

const RANK = { PASS: 0, NOT_PROVEN: 1, FAIL: 2 } as const;

function merge(legs: readonly Leg[]): Round {
  let status: Leg['status'] = 'PASS';
  for (const leg of legs) if (RANK[leg.status] > RANK[status]) status = leg.status;
  const seen = new Set<string>();
  const evidence = legs
    .flatMap((l) => l.evidence_refs)
    .filter((e) => (seen.has(e.ref) ? false : seen.add(e.ref)));
  return {
    status,
    open: new Set(legs.flatMap((l) => l.findings.map((f) => f.id))),
    digest: legs[0]?.subject_digest ?? '',
    evidence,
    families: new Set(legs.map((l) => l.validator_family)).size,
  };
}

/** C3, C2, C4 in the law's order; `null` when the round may be admitted. */
function violation(previous: Round, current: Round, closed: ReadonlySet<string>): string | null {
  if ([...current.open].some((id) => closed.has(id))) return 'reopened_finding';
  if (current.open.size > previous.open.size) return 'finding_set_grew';
  if (current.digest !== previous.digest) return null;
  const previousRefs = new Set(previous.evidence.map((e) => e.ref));
  const resolved = [...previous.open].filter((id) => !current.open.has(id));
  const binding = current.evidence.filter(
    (e) =>
      !previousRefs.has(e.ref) &&
      e.subject_digest === current.digest &&
      resolved.some((id) => (e.resolves ?? []).includes(id)),
  );
  if (previous.status === 'NOT_PROVEN' && current.status !== 'FAIL' && binding.length > 0) return null;
  return 'no_subject_or_evidence_change';
}

/** The state (dotted path) the reference expects after each step of `steps`, for the model's input. */
export function rpiReferenceStates(
  steps: readonly PathStep[],
  input: { readonly repairRounds: number; readonly crossFamily: boolean },
): string[] {
  let risky = false;
  let measured = '';
  let legs: Leg[] = [];
  let phase: { current: Round; closed: Set<string>; used: number } | null = null;
  let convergedDigest = '';
  const judge = (): string => {
    const digests = new Set(legs.map((l) => l.subject_digest));
    const passWithFindings = legs.some((l) => l.status === 'PASS' && l.findings.length > 0);
    if (digests.size !== 1 || passWithFindings) return 'round_rejected';
    const round = merge(legs);
    if (round.digest !== measured) return 'round_rejected';
    if (phase === null) phase = { current: round, closed: new Set(), used: 0 };
    else {
      phase.used += 1;
      const broken = violation(phase.current, round, phase.closed);
      if (broken !== null) return broken;
      for (const id of phase.current.open) if (!round.open.has(id)) phase.closed.add(id);
      phase.current = round;
    }
    const current = phase.current;
    if (current.status === 'PASS' && risky && current.families < 2) return 'diversity_unsatisfied';
    if (current.status === 'PASS') {
      convergedDigest = current.digest;
      return 'finalCi';
    }
    return phase.used < input.repairRounds ? 'repairing' : 'repair_budget_exhausted';
  };
  return steps.map((step) => {
    const { type } = step.event;
    const output = step.event.output as Record<string, unknown> | undefined;
    if (type.startsWith('xstate.error.actor.')) return 'failed';
    switch (type) {
      case 'xstate.done.actor.plan': {
        if (output?.planned !== true) return 'not_planned';
        const ref = String(output.intentRef ?? '');
        const digest = output.acceptanceDigest;
        const wellFormed = ref.trim() !== '' && (digest === null || /^[0-9a-f]{64}$/.test(String(digest)));
        return wellFormed ? 'implementing' : 'failed';
      }
      case 'xstate.done.actor.implement':
        return output?.built === true ? 'measuring' : 'not_built';
      case 'xstate.done.actor.repair':
        return output?.built === true ? 'measuring' : 'repair_failed';
      case 'xstate.done.actor.measureSubject': {
        measured = String(output?.digest);
        const paths = (output?.changedPaths ?? []) as string[];
        risky = risky || paths.some((p) => RISKY.some((r) => r.test(p)));
        legs = [];
        return 'validating.fresh';
      }
      case 'xstate.done.actor.validateFresh':
        legs = [output as unknown as Leg];
        return risky && input.crossFamily ? 'validating.crossFamily' : judge();
      case 'xstate.done.actor.validateCrossFamily':
        legs.push(output as unknown as Leg);
        return judge();
      case 'xstate.done.actor.finalCi': {
        if (output?.configured !== true) return 'converged';
        const stale = output.digestBefore !== convergedDigest || output.digestAfter !== convergedDigest;
        if (stale) return 'final_ci_stale_receipt';
        return output.passed === true ? 'converged' : 'final_ci_failed';
      }
      default:
        return `no expectation for ${type}`;
    }
  });
}
