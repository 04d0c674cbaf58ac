/**
 * The RPI machine's input, the contracts of its actors (what each is invoked with and resolves
 * to), its context and its outcome. Types only: plain JSON throughout.
 */
import type { Finding } from '../../src/common/finding.js';
import type { StaleReceiptReason } from '../../src/convergence/receipt-freshness.js';
import type { RepairPhaseResult, RepairPhaseState } from '../../src/convergence/repair-phase.js';
import type { OpenFinding } from '../../src/convergence/round.js';
import type { RpiReportV1 } from '../../src/convergence/rpi-report.js';
import type { StopReason } from '../../src/convergence/stop-reason.js';
import type { ActorContract, ActorImplementations } from '../actor-contract.js';

/** How the caller declares whether the change touches a risky surface. */
export type RiskDeclaration = 'auto' | 'yes' | 'no';

/** What the host passes when it creates the RPI actor. */
export interface RpiInput {
  /** Repair rounds the caller allows (default 2); checked with `checkRepairRounds`. */
  readonly repairRounds?: number;
  /**
   * `yes` / `no` declare the change risky or not; `auto` (the default) classifies the changed
   * paths `measureSubject` reports, after the implementation and after every repair.
   */
  readonly risky?: RiskDeclaration;
  /** Whether a cross-family validator is available. Without one a risky PASS cannot converge. */
  readonly crossFamily?: boolean;
}

/** What Plan returned: the run's identities, or nothing. */
export type PlanOutcome =
  | {
      readonly planned: true;
      /** Where the intent came from (a file, an issue, `caller`); null when unknown. */
      readonly intentRef: string | null;
      /** SHA-256 of the exact intent bytes (64 lowercase hex), or null when there is no intent text. */
      readonly acceptanceDigest: string | null;
    }
  | { readonly planned: false; readonly reason: string };

/** What the implementer is asked to do: build (round 0) or repair the open findings (round n). */
export interface ImplementRequest {
  /** 0 for the implementation, n for repair round n. */
  readonly round: number;
  /** The open findings the repair must close; empty for the implementation. */
  readonly openFindings: readonly OpenFinding[];
}

/** What the implementer returned. `built: false` means it returned nothing. */
export interface ImplementOutcome {
  readonly built: boolean;
  /** A short note for people (e.g. `exit 1`), or null. */
  readonly detail: string | null;
}

/** The subject as measured after an implementation or repair. */
export interface SubjectMeasure {
  /** The subject-manifest digest (64 lowercase hex). */
  readonly digest: string;
  /** Repository-relative paths changed since the run's base, under the subject's roots. */
  readonly changedPaths: readonly string[];
}

/** Which validator leg is asked to judge. */
export type ValidatorLeg = 'fresh' | 'cross-family';

/** What a validator is asked to judge. */
export interface ValidateRequest {
  /** 0 for the first fresh validation, n for repair round n. */
  readonly round: number;
  readonly leg: ValidatorLeg;
  /** The digest of the subject to judge; the leg must name this digest. */
  readonly subjectDigest: string;
}

/** What the final CI actor is asked: the digest the repair phase converged on. */
export interface FinalCiRequest {
  readonly subjectDigest: string;
}

/** One CI command of the final run and how it ended. */
export interface FinalCiCommandResult {
  readonly command: string;
  /** The exit code, or null when a signal or a timeout ended it. */
  readonly exitCode: number | null;
  /** `exit <code>`, `signal <name>` or a timeout, for people. */
  readonly detail: string;
}

/**
 * What the final CI actor returned: `configured: false` when the caller gave no CI command set,
 * else the receipt: the digests measured right before and right after the run and each command's
 * result (the commands run in order and stop at the first that fails).
 */
export type FinalCiOutcome =
  | { readonly configured: false }
  | {
      readonly configured: true;
      /** Every command that ran exited 0 and none was skipped. */
      readonly passed: boolean;
      readonly digestBefore: string;
      readonly digestAfter: string;
      readonly commands: readonly FinalCiCommandResult[];
    };

/** The final CI receipt as the run records it: the actor's outcome plus the freshness verdict. */
export type FinalCiReceipt =
  | { readonly status: 'not_configured' }
  | {
      readonly status: 'passed' | 'failed' | 'stale';
      readonly convergedDigest: string;
      readonly digestBefore: string;
      readonly digestAfter: string;
      /** Why the receipt is stale, or null when it is fresh. */
      readonly staleReason: StaleReceiptReason | null;
      readonly commands: readonly FinalCiCommandResult[];
    };

/** How a run ended: a stop reason of the repair phase, or a stage that never reached it. */
export type RpiTerminal =
  | Exclude<StopReason, 'not_converged'>
  | 'final_ci_failed'
  | 'final_ci_stale_receipt'
  | 'not_planned'
  | 'not_built'
  | 'repair_failed'
  | 'round_rejected'
  | 'failed';

/** An effect that failed unexpectedly, as JSON (the error object itself does not persist). */
export interface RpiFailure {
  /** The state whose actor failed (`planning`, `implementing`, `validateFresh`, …). */
  readonly stage: string;
  /** The error's stable code (`LoopchartError.code`), or `internal`. */
  readonly code: string;
  readonly message: string;
  /** Whether the error is the user's input or configuration (an InputError: exit code 2). */
  readonly input: boolean;
  readonly findings: readonly Finding[];
}

/** The RPI actor's context: plain JSON, so a snapshot persists and restores exactly. */
export interface RpiContext {
  readonly repairRounds: number;
  readonly risky: RiskDeclaration;
  readonly crossFamily: boolean;
  /** Whether the change touches a risky surface (declared, or measured and never lowered). */
  readonly riskySurface: boolean;
  /** The risky paths measured so far (for `auto`). */
  readonly riskyPaths: readonly string[];
  readonly intentRef: string | null;
  readonly acceptanceDigest: string | null;
  /** The subject as last measured. */
  readonly subject: SubjectMeasure | null;
  /** The legs of the round being validated, as the validators returned them. */
  readonly legs: readonly unknown[];
  /** Every round judged so far (round 0 first), each its list of legs. */
  readonly rounds: readonly (readonly unknown[])[];
  /** The repair phase (the pure fold's state); null until round 0 is judged. */
  readonly phase: RepairPhaseState | null;
  /** Why the round was refused (shape problems, or a leg that judged another subject). */
  readonly rejection: readonly Finding[];
  /** Why a stage returned nothing (Plan's reason, the implementer's note). */
  readonly stageNote: string | null;
  readonly failure: RpiFailure | null;
  /** The final CI receipt after convergence; null until the final CI step ran. */
  readonly finalCi: FinalCiReceipt | null;
  readonly terminal: RpiTerminal | null;
}

/** What the run reports when it ends (the actor's output). */
export interface RpiOutcome {
  readonly terminal: RpiTerminal;
  /** The repair phase's stop reason, when the phase stopped. */
  readonly stopReason: StopReason | null;
  /** Whether the run converged (the only success). */
  readonly converged: boolean;
  /** The rpi-report.v1, or null when no report can be made (a refused round, a failed effect). */
  readonly report: RpiReportV1 | null;
  /** The repair phase result, when the phase stopped. */
  readonly result: RepairPhaseResult | null;
  readonly roundsUsed: number;
  readonly openFindings: readonly OpenFinding[];
  readonly rejection: readonly Finding[];
  readonly stageNote: string | null;
  readonly failure: RpiFailure | null;
  /** The final CI receipt (`not_configured` without a CI command set), or null when the run never converged. */
  readonly finalCi: FinalCiReceipt | null;
}

/** Input of `measureSubject`: the round the subject is measured for. */
export interface MeasureSubjectInput {
  readonly round: number;
}

/** What every actor of the rpi machine is invoked with and resolves to, by actor name. */
export interface RpiActorContracts {
  readonly plan: ActorContract<Record<string, never>, PlanOutcome>;
  readonly implement: ActorContract<ImplementRequest, ImplementOutcome>;
  readonly measureSubject: ActorContract<MeasureSubjectInput, SubjectMeasure>;
  readonly validateFresh: ActorContract<ValidateRequest, unknown>;
  readonly validateCrossFamily: ActorContract<ValidateRequest, unknown>;
  readonly finalCi: ActorContract<FinalCiRequest, FinalCiOutcome>;
}

/** The actor logic a host provides to the rpi machine, by actor name (`.provide({ actors })`). */
export type RpiActors = ActorImplementations<RpiActorContracts>;
