/**
 * The loop engine's input, the contracts of its actors (what each one returns) and its context.
 */
import type { Finding } from '../../src/common/finding.js';
import type { DispatchPlan, ReservationFacts } from '../../src/gauntlet/dispatch.js';
import type { LoopHistory } from '../../src/gauntlet/history.js';
import type { HumanStop } from '../../src/gauntlet/human-stop.js';
import type {
  ClosureReviewSettings,
  FixRoundCounts,
  ReviewReturnResult,
  ReviewRole,
} from '../../src/gauntlet/review.js';
import type { ActionRecord, CommitFact, Ledger, Spec } from '../../src/gauntlet/types.js';

/** What the host passes when it creates the loop actor. */
export interface LoopImplementationInput {
  /** Repo-relative path of the ledger file. */
  readonly ledgerPath: string;
  /** Repo-relative path of the spec file. */
  readonly specPath: string;
  /** The verification (CI) command a fresh ledger records; also the default gate set. */
  readonly verification: string;
  /**
   * The checkout of every member of a coordinated run (member name -> absolute path; the home
   * member's is the worktree), as the host resolved and checked them. Absent for a single-leg run.
   */
  readonly legCheckouts?: Readonly<Record<string, string>>;
}

/** What `inspectWorkspace` reports at entry. */
export interface WorkspaceFacts {
  /** Full SHA of HEAD. */
  readonly head: string;
  /**
   * `git status --porcelain` minus the loop's own expected dirt (the ledger when its bytes are
   * exactly the reserved bump and tuple).
   */
  readonly porcelain: string;
  /** The ledger file in the worktree, or `null` when there is none (a fresh run). */
  readonly ledgerText: string | null;
  /** The spec file in the worktree, or `null` when it cannot be read. */
  readonly specText: string | null;
  /** When the ledger carries a pending tuple: the ledger at the tuple's HEAD (the before-image). */
  readonly savedLedgerText: string | null;
  /**
   * The latest dispatch `reserveDispatch` stored and `finishDispatch` has not cleared, as stored
   * (`null` or absent when there is none). The machine takes a dispatch in flight's task fields
   * from it, and recognizes from it a dispatch whose child committed before the run ended (the
   * commit removed the tuple from the ledger): see `reservationInFlight`.
   */
  readonly reservation?: ReservationFacts | null;
  /**
   * A coordinated run: HEAD of every member's checkout (home included), read with that checkout's
   * own git (`input.legCheckouts`). The seed records them as the members' bases.
   */
  readonly legHeads?: Readonly<Record<string, string>>;
}

/** Settings held for the run (resolved once at entry). */
export interface LoopSettings {
  /** Allowance of a fresh ledger (the allowance setting; default 4). */
  readonly allowance: number;
  /** `loopEngine.escalateAfter`. */
  readonly escalateAfter: number;
}

/** What a child dispatch reported (before git is read). */
export interface ChildReport {
  /** `DONE`, another status, or `null` when the child wrote no return. */
  readonly returned: string | null;
  readonly dispatchError?: string;
  readonly killedAfterSilence?: boolean;
}

/** What `recoverDispatch` learns about a dispatch found in flight at resume. */
export type DispatchRecovery = { readonly launched: false } | ({ readonly launched: true } & ChildReport);

/** What git says after a child returned. */
export interface BoundaryFacts {
  /** Unexpected dirt: `status --porcelain` minus the reserved ledger when it is byte-identical. */
  readonly porcelain: string;
  /** `rev-list HEAD_BEFORE..HEAD --count`. */
  readonly commitCount: number;
  /** The single new commit, when there is exactly one. */
  readonly commit: { readonly sha: string; readonly subject: string; readonly body: string } | null;
  /** The ledger at HEAD, when there is exactly one new commit. */
  readonly headLedgerText: string | null;
  /**
   * Action records the child wrote in the dispatch's jobs file (§3.19): each must survive in the
   * admitted ledger, or the return is a validation miss.
   */
  readonly actionRecords?: readonly ActionRecord[];
  /**
   * A companion dispatch (§3.20): home at the boundary. `head` is home HEAD now (it must still be
   * the dispatch's home HEAD) and `porcelain` home's `status --porcelain` minus the reserved
   * ledger (it must be empty). The fields above describe the companion checkout.
   */
  readonly home?: { readonly head: string; readonly porcelain: string };
}

/** What `refresh` reads: the durable state the loop rebuilds itself from. */
export interface RefreshFacts {
  /** Full SHA of HEAD. */
  readonly head: string;
  readonly ledgerText: string;
  /**
   * The history of the commits since the ledger base against the ledger in `ledgerText`, when the
   * host replayed it itself (reading only the commit ledgers the replay asks for).
   */
  readonly history?: LoopHistory;
  /** Commits since the ledger base, oldest first, with their ledgers: replayed here when `history` is absent. */
  readonly commits?: readonly CommitFact[];
  /** A coordinated run: HEAD of every member's checkout (home included), as read now. */
  readonly legHeads?: Readonly<Record<string, string>>;
}

/** A ledger (and optionally spec) write plus one commit. */
export interface CommitRequest {
  readonly ledger: Ledger;
  readonly subject: string;
  readonly body: string;
  /** New spec text to write and commit together with the ledger (amendments). */
  readonly specText?: string;
  /** Allow a commit that changes nothing (never needed by the protocol; false). */
  readonly allowEmpty?: boolean;
  /**
   * Delete the ledger file instead of writing `ledger` (`loop: redraw` only): the commit removes
   * the loop's own file and touches no other path.
   */
  readonly deleteLedger?: boolean;
}

/**
 * Outcome of the gate set (verify step 1). `head` is HEAD after the run, including the commit of
 * tracked changes the gates produced (passing or failing): a verification repair plans on it.
 */
export type GateRun =
  | {
      readonly passed: true;
      readonly head: string;
      /** Each leg whose pairs passed in this run, to the HEAD of its checkout (absent: home only). */
      readonly verified?: Readonly<Record<string, string>>;
    }
  | {
      readonly passed: false;
      readonly head: string;
      /** Legs whose pairs passed in this run before the failure (fail-fast), to their HEADs. */
      readonly verified?: Readonly<Record<string, string>>;
      /** The member whose pair failed (absent or `home` on a single leg). */
      readonly leg?: string;
      /** HEAD of the failing leg's checkout after the run (absent: `head`, the home checkout). */
      readonly legHead?: string;
      readonly gate: number;
      readonly command: string;
      readonly exitCode: number;
      readonly logPath: string;
      /** The last lines of the gate's log (at most 20). */
      readonly tail: string;
    };

/**
 * What `runReview` reports for verify step 2 (whole-diff) or 3 (conformance): the reviewer's
 * return (validated, or a named miss), the role's fix rounds and grants as branch history records
 * them, the closureReview settings, the audited HEAD and the fix commits index. `ran: false` when
 * the host has no reviewer for the role (docs/review-contract.md).
 */
export type ReviewReport =
  | { readonly ran: false; readonly role: ReviewRole }
  /**
   * No conformance reviewer, and the caller waived the audit (`--no-conformance-review`): verify
   * closes without one, on the HEAD the gates passed, with the whole-diff fix commits since base.
   */
  | {
      readonly ran: false;
      readonly role: 'conformance';
      readonly waived: true;
      /** Full SHA of HEAD when step 3 was reached (the gates passed on it). */
      readonly head: string;
      /** Every fix round's commits since base (the closure's fix commits index). */
      readonly fixCommits: readonly string[];
    }
  | {
      readonly ran: true;
      readonly role: ReviewRole;
      readonly returned: ReviewReturnResult;
      readonly counts: FixRoundCounts;
      readonly settings: ClosureReviewSettings;
      /** Full SHA of the HEAD the reviewer audited. */
      readonly head: string;
      /** Every fix round's commits since base (the closure's fix commits index). */
      readonly fixCommits: readonly string[];
    };

/** What a fix round asks of the host: run the fixer on the review's tasks, then record the round. */
export interface FixRoundRequest {
  readonly role: ReviewRole;
  /** 1-based round number (used + 1). */
  readonly round: number;
  /** The fix tasks (and, for conformance, `G<n>: <text>` of each open gap). */
  readonly tasks: readonly string[];
}

/** How a run ended: the machine's output when it reaches a final state. */
export type LoopOutput =
  | { readonly status: 'finished'; readonly closure: string | null }
  | {
      readonly status: 'stopped';
      /** What the loop says when the person chose Stop: nothing was changed by the choice. */
      readonly text: string;
    }
  | { readonly status: 'invalid'; readonly message: string; readonly findings: readonly Finding[] }
  | { readonly status: 'failed'; readonly message: string };

/** Events a person sends at a human stop. Each stop state accepts only the offers of its menu. */
export type HumanEvent =
  | { readonly type: 'human.retry'; readonly row: number; readonly hint: string }
  | { readonly type: 'human.raise'; readonly amount: number; readonly words: string }
  | {
      readonly type: 'human.amend';
      readonly amendment:
        | { readonly kind: 'cut'; readonly row: number; readonly disposition: string }
        | { readonly kind: 'reopen'; readonly row: number; readonly text?: string }
        | { readonly kind: 'preserve'; readonly what: string };
    }
  /** Redraw: delete the ledger (`loop: redraw`) and end the run; the next run reseeds. */
  | { readonly type: 'human.redraw'; readonly reason: string }
  | { readonly type: 'human.discard' }
  | { readonly type: 'human.return' }
  | { readonly type: 'human.stop' };

/** A line the loop prints without stopping (`terminated <k> child jobs`, `amended the spec: …`). */
export interface NoticeEvent {
  readonly type: 'notice';
  readonly text: string;
}

/** The loop actor's context. Everything here is rebuilt from disk and git on resume. */
export interface LoopContext {
  readonly input: LoopImplementationInput;
  readonly settings: LoopSettings | null;
  /** Why settings could not be resolved, when they could not. */
  readonly settingsProblem: string | null;
  readonly workspace: WorkspaceFacts | null;
  readonly specText: string | null;
  readonly spec: Spec | null;
  readonly specFindings: readonly Finding[];
  /** The ledger as on disk (HEAD plus an uncommitted bump and tuple while a dispatch is in flight). */
  readonly ledger: Ledger | null;
  readonly ledgerFindings: readonly Finding[];
  readonly history: LoopHistory;
  /** The dispatch in flight: saved ledger, reserved ledger, tuple and task fields. */
  readonly plan: DispatchPlan | null;
  /** The resolved model of an escalated round or a verification repair. */
  readonly model: string | null;
  readonly child: ChildReport | null;
  readonly boundary: BoundaryFacts | null;
  /** Action records retained for the dispatch in flight (jobs file, earlier repair bodies). */
  readonly actionRecords: readonly ActionRecord[];
  /** The reason an interrupted dispatch is being recovered. */
  readonly interruption: string | null;
  /** The stop the loop is waiting at, for the host to render. */
  readonly stop: HumanStop | null;
  /** The ledger whose rows the stop lists (restored pre-dispatch cells at rejected-return stops). */
  readonly stopLedger: Ledger | null;
  /** Configuration problem that ended the run (exit code 2). */
  readonly problem: { readonly message: string; readonly findings: readonly Finding[] } | null;
  /** The last failed gate run (verify). */
  readonly gateFailure: Extract<GateRun, { passed: false }> | null;
  /**
   * The legs whose gate pairs passed in this verify session, to the HEAD each passed on (§3.20
   * "retain each verified HEAD"); emptied when a verify session starts, kept across its repairs.
   */
  readonly verifiedHeads: Readonly<Record<string, string>>;
  /** The leg the verification repair in flight answers: the next gate run starts with its pairs. */
  readonly repairedLeg: string | null;
  /** The last review report of verify step 2 or 3. */
  readonly review: ReviewReport | null;
  /** Final SHIP `Minor` lines of the whole-diff review (carried to the closure). */
  readonly minors: readonly string[];
  /** The `## Closure / conformance` block, once verify closed (CONFORMS, or the audit waived). */
  readonly closure: string | null;
  /** The human choice being committed (computed when the stop accepted the event). */
  readonly pendingChoice: CommitRequest | null;
  /** Full SHA of HEAD as last read. */
  readonly head: string | null;
  /** A coordinated run: HEAD of every member's checkout as last read (`null` for a single leg). */
  readonly legHeads: Readonly<Record<string, string>> | null;
  /** Internal error text, when an effect failed unexpectedly. */
  readonly error: string | null;
}
