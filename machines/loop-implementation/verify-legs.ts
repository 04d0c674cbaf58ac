/**
 * Coordinated verify (gauntlet-protocol §3.18, §3.20): the views and guards of the verify region
 * where a companion leg's path differs from home. The gate set is grouped by `## Leg mapping`;
 * a failing pair is repaired in its own leg's checkout; a companion repair's marker is committed
 * in home over the bumped home ledger; every leg's verified HEAD goes into the closure.
 */
import { gateLegs } from '../../src/gauntlet/gate-set.js';
import { homeMember, isCoordinated } from '../../src/gauntlet/leg-entries.js';
import type { LegHead } from '../../src/gauntlet/review.js';
import { HOME } from '../../src/gauntlet/types.js';
import { verificationRepairAllowed } from '../../src/gauntlet/verify.js';
import type { GateRun, LoopContext } from './context.js';
import { headLedger, verificationOutcome } from './views.js';

type GateFailure = Extract<GateRun, { passed: false }>;

/**
 * The home member's name: the spec's `(home)` member when both the spec and the ledger are
 * coordinated, else `home`. The ledger decides which checkouts a tuple may name (a single-leg
 * ledger's tuple names `home`, docs/ledger-format.md §1.2), so a ledger without leg lines never
 * gets a member's name even if the spec declares legs; the host refuses that disagreement before a
 * run starts, and return validation misses any change to the leg lines.
 */
export function homeOf(context: LoopContext): string {
  return context.spec !== null && isCoordinated(context.spec) && context.ledger?.legs !== undefined
    ? homeMember(context.spec)
    : HOME;
}

/** The member whose pair failed (`home`'s name when the run reports none). */
export function failingLeg(context: LoopContext, failure: GateFailure): string {
  return failure.leg ?? homeOf(context);
}

/** HEAD of the failing leg's checkout: the tuple's HEAD of the repair (§1.6 "failing leg for verify"). */
export function failingHead(failure: GateFailure): string {
  return failure.legHead ?? failure.head;
}

/** The input of `runGates`: the ledger, the home member, the legs already verified, the repaired leg. */
export function gatesInput(context: LoopContext) {
  return {
    ledger: headLedger(context),
    home: homeOf(context),
    verified: context.verifiedHeads,
    failing: context.repairedLeg,
  };
}

/**
 * Each leg's verified HEAD in gate-set order, for the closure of a coordinated run; nothing on a
 * single leg (its closure keeps its fields).
 */
export function legHeadsOf(context: LoopContext): LegHead[] | undefined {
  const ledger = headLedger(context);
  if (ledger.legs === undefined) return undefined;
  return gateLegs(ledger).flatMap((leg) => {
    const head = context.verifiedHeads[leg];
    return head === undefined ? [] : [{ leg, head }];
  });
}

/** The arguments XState passes a guard (exported so declarations can name it). */
export interface VerifyGuardArgs {
  readonly context: LoopContext;
  readonly event: unknown;
}

function gateFailureOf(event: unknown): GateFailure | null {
  const run = (event as { output?: GateRun }).output;
  return run === undefined || run.passed ? null : run;
}

/** Guards of coordinated verify, spread into the machine's guards. */
export const verifyLegGuards = {
  /** repairs < allowance and the failing pair belongs to a companion leg: repair in its checkout. */
  companionGateFailed: ({ context, event }: VerifyGuardArgs) => {
    const failure = gateFailureOf(event);
    return (
      failure !== null &&
      failingLeg(context, failure) !== homeOf(context) &&
      verificationRepairAllowed(headLedger(context), context.history.verificationRepairs)
    );
  },
  /** A companion repair left home changed (HEAD moved or unexpected dirt): preserve and stop. */
  verificationHomeChanged: ({ context }: VerifyGuardArgs) =>
    verificationOutcome(context)?.kind === 'home-changed',
  /** An admitted repair whose tuple names a companion: the marker goes to home over the disk ledger. */
  companionVerificationAdmitted: ({ context }: VerifyGuardArgs) =>
    verificationOutcome(context)?.kind === 'admitted' && context.plan?.pending.repo !== homeOf(context),
};
