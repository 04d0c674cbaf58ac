/**
 * Dispatch of one child (gauntlet-protocol §3.9): the saved pre-dispatch ledger, the reserved
 * ledger written on disk before the child runs (iterations bumped, `pending:` tuple added), and
 * the task the child receives.
 *
 * The task line carries the pre-bump count `i` by design; the child's commit body and the ledger
 * header carry the consumed count `i + 1`. The two never compare to each other (§3.9).
 */
import { formatActionRecord } from './action-records.js';
import { formatAttribution, parseSubject } from './commits.js';
import { MAX_DECISION_CELL } from './decisions.js';
import { MAX_RESULT_LINES } from './evidence.js';
import { formatPending } from './ledger.js';
import { type ActionRecord, HOME, type Ledger, type PendingTuple, type Target } from './types.js';

/** Everything a dispatch fixes before the child starts. */
export interface DispatchPlan {
  readonly target: Target;
  /** The pre-bump `iterations:` count `i`, sent as the task's `iteration:`. */
  readonly iteration: number;
  /** The tuple written with the bump: `pending: <target> | <repo> | <HEAD_BEFORE>`. */
  readonly pending: PendingTuple;
  /** The ledger before the bump and tuple write: the before-image of every repair. */
  readonly saved: Ledger;
  /** The ledger to write on disk (uncommitted) before the child runs. */
  readonly reserved: Ledger;
  /** The `hint:` task field, or `null` for none. */
  readonly hint: string | null;
  /** The `previous decision:` task field: the decision line, or `none`. */
  readonly previousDecision: string;
  /** The model override of an escalated round (or a verification repair), else `null`. */
  readonly model: string | null;
  /**
   * The spend history the dispatch carries (§3.19 rule 4): every action record of the ledger's
   * decisions and evidence and of the loop's repair bodies, once each, in the parenthesised
   * spelling. The child repeats each verbatim before any new spend.
   */
  readonly actionRecords: readonly string[];
  /**
   * A companion dispatch of a coordinated run (§3.20): home HEAD when the dispatch was planned
   * (`pending.head` is the companion's HEAD). Home must not move while the companion works.
   */
  readonly homeHead?: string;
}

/** Input of {@link planDispatch}. */
export interface PlanDispatchInput {
  /** The ledger at HEAD, without a pending tuple. */
  readonly ledger: Ledger;
  readonly target: Target;
  /** Full SHA of the checkout's HEAD before the dispatch (`HEAD_BEFORE`). */
  readonly head: string;
  readonly hint?: string | null;
  /** The previous decision line, or `null` for `none` (seed, after an ordinary-miss repair). */
  readonly previousDecision?: string | null;
  readonly model?: string | null;
  /** The spend history to carry (record lines, see {@link DispatchPlan.actionRecords}); none by default. */
  readonly actionRecords?: readonly string[];
  /** Repository identity of the tuple; `home` for a single-leg run. */
  readonly repo?: string;
  /** Home HEAD of a companion dispatch ({@link DispatchPlan.homeHead}). */
  readonly homeHead?: string;
}

/**
 * Plans one dispatch: saves the ledger, bumps `iterations:` to `i + 1` and writes the pending
 * tuple with the checkout's HEAD. Pure: the caller writes `reserved` to disk and commits nothing.
 *
 * @param input the ledger at HEAD (no tuple), the target, HEAD_BEFORE and the task fields
 * @returns the plan
 * @throws Error when the ledger already carries a pending tuple (recover it first)
 */
export function planDispatch(input: PlanDispatchInput): DispatchPlan {
  const { ledger, target, head } = input;
  if (ledger.pending !== null)
    throw new Error(`cannot plan a dispatch over an in-flight tuple (${formatPending(ledger.pending)})`);
  const pending: PendingTuple = { target, repo: input.repo ?? HOME, head };
  return {
    target,
    iteration: ledger.iterations,
    pending,
    saved: ledger,
    reserved: { ...ledger, iterations: ledger.iterations + 1, pending },
    hint: input.hint ?? null,
    previousDecision: target === 'seed' ? 'none' : (input.previousDecision ?? 'none'),
    model: input.model ?? null,
    actionRecords: [...(input.actionRecords ?? [])],
    ...(input.homeHead === undefined ? {} : { homeHead: input.homeHead }),
  };
}

/** The evidence and decision contract repeated in every task, so a child needs no other document. */
export interface EvidenceContract {
  /** Evidence cell: `<check name>; <result 1>[; <result 2>[; <result 3>]]`, pipes escaped as `\|`. */
  readonly evidenceFormat: string;
  readonly maxResultLines: number;
  /** Ordinary decision line grammar. */
  readonly decisionPattern: string;
  readonly maxDecisionCell: number;
  /** Seed decision line grammar. */
  readonly seedDecision: string;
}

/** The evidence contract of this protocol version. */
export const EVIDENCE_CONTRACT: EvidenceContract = {
  evidenceFormat: '<check name>; <result 1>[; <result 2>[; <result 3>]]',
  maxResultLines: MAX_RESULT_LINES,
  decisionPattern: `^row <n> <done|failed> \\| .{1,${MAX_DECISION_CELL}} \\| .{1,${MAX_DECISION_CELL}}$`,
  maxDecisionCell: MAX_DECISION_CELL,
  seedDecision: 'row 0 done | seeded <k> rows, closed <m> on baseline | <first row to take>',
};

/** What a verification-repair child is told about the failing gate (never its output). */
export interface VerificationFailure {
  /** 1-based gate index in the gate set. */
  readonly gate: number;
  readonly command: string;
  readonly exitCode: number;
  readonly logPath: string;
}

/**
 * The blocking-call contract every verification repair task carries (§3.18 step 1, verbatim): the
 * repair child bounds each blocking command with `timeout -k 30 <n>` where `n` is at most 600
 * seconds, and runs longer work in the background, polling it (docs/child-contract.md).
 */
export const BLOCKING_CALL_CONTRACT =
  'bound every blocking command with `timeout -k 30 <n>`, n <= 600; background and poll longer work';

/** The verification part of a verification repair task: the failing gate and the blocking-call contract. */
export interface VerificationTask extends VerificationFailure {
  /** {@link BLOCKING_CALL_CONTRACT}. */
  readonly blockingCalls: string;
}

/**
 * The task a child receives (the JSON file named by `LOOPCHART_TASK`). See docs/child-contract.md.
 */
export interface ChildTask {
  readonly version: 1;
  /** `row` for a numbered target, `seed`, or `verify` for a verification repair. */
  readonly kind: 'row' | 'seed' | 'verify';
  readonly target: Target;
  /** Pre-bump iteration `i`. */
  readonly iteration: number;
  /** The exact first two lines the child's commit body must start with. */
  readonly commitBody: readonly [string, string];
  /** Absolute path of the worktree the child works in. */
  readonly worktree: string;
  /** Repo-relative ledger path. */
  readonly ledger: string;
  /** Repo-relative spec path. */
  readonly spec: string;
  readonly previousDecision: string;
  readonly hint: string | null;
  readonly model: string | null;
  /** The subject the child's single commit must carry (`<status>` is the child's outcome). */
  readonly commitSubject: string;
  readonly evidence: EvidenceContract;
  /** Action records already spent: repeat each verbatim before any new spend (§3.19). */
  readonly actionRecords: readonly string[];
  /** Absolute path the child writes its JSON return to (also `LOOPCHART_RETURN`). */
  readonly returnFile: string;
  /** Absolute path of the jobs file (also `LOOPCHART_JOBS`). */
  readonly jobsFile: string;
  /** For a verification repair: the failing gate and the blocking-call contract; `null` otherwise. */
  readonly verification: VerificationTask | null;
  /**
   * A coordinated run (§3.20): the leg the child works in. For a companion `worktree` is the
   * companion checkout and the home ledger is read (never written) at `homeLedger`; the child
   * returns its rows and decisions in its commit body (docs/child-contract.md). Absent for a
   * single-leg run.
   */
  readonly leg?: ChildTaskLeg;
}

/** The leg part of a coordinated run's task. */
export interface ChildTaskLeg {
  /** The member the dispatch goes to (the tuple's repo). */
  readonly member: string;
  /** Whether `member` is a companion (its checkout is not home). */
  readonly companion: boolean;
  /** Absolute path of the home worktree. */
  readonly home: string;
  /** Absolute path of the home ledger. */
  readonly homeLedger: string;
  /** Absolute path of the spec in home. */
  readonly homeSpec: string;
  /**
   * A companion's task: home's HEAD when the dispatch was reserved (the plan's home HEAD), so that
   * `loopchart child check` sees a moved home HEAD as the loop's boundary does
   * (docs/decisions/legs.md L22). Absent on a home leg's task, whose tuple HEAD is home's.
   */
  readonly homeHead?: string;
}

/**
 * The absolute path of the task's ledger or spec, the form `loopchart child show` prints
 * (docs/decisions/legs.md L23): on a coordinated run the home file (`leg.homeLedger`,
 * `leg.homeSpec`, which a companion's child opens from its own checkout), else the task's
 * repository-relative path under its worktree. The task itself keeps `ledger` and `spec`
 * repository-relative (to home).
 *
 * @param task the task
 * @param file which file
 */
export function taskFilePath(
  task: Pick<ChildTask, 'worktree' | 'ledger' | 'spec' | 'leg'>,
  file: 'ledger' | 'spec',
): string {
  const home = file === 'ledger' ? task.leg?.homeLedger : task.leg?.homeSpec;
  if (home !== undefined) return home;
  // Git paths use `/`; the worktree is the absolute path the host gave (no I/O here to join them).
  return `${task.worktree.replace(/\/+$/, '')}/${task[file]}`;
}

/** Where the host put the dispatch's files. */
export interface TaskPaths {
  readonly worktree: string;
  readonly ledger: string;
  readonly spec: string;
  readonly returnFile: string;
  readonly jobsFile: string;
}

/**
 * Builds the child task of a planned dispatch.
 *
 * @param plan the dispatch plan
 * @param paths where the worktree, ledger, spec, return file and jobs file are
 * @param extra carried action records and, for a verification repair, the failing gate
 * @returns the task, ready to serialize as JSON
 */
export function childTask(
  plan: DispatchPlan,
  paths: TaskPaths,
  extra: {
    actionRecords?: readonly ActionRecord[];
    verification?: VerificationFailure | null;
    leg?: ChildTaskLeg;
  } = {},
): ChildTask {
  const kind = plan.target === 'seed' ? 'seed' : plan.target === 'verify' ? 'verify' : 'row';
  const [line1, line2] = formatAttribution(plan.pending, plan.iteration + 1).split('\n') as [string, string];
  const subject =
    kind === 'seed'
      ? 'loop: seed evidence'
      : kind === 'verify'
        ? 'loop: verification fix'
        : `loop: row ${plan.target} <done|failed>`;
  return {
    version: 1,
    kind,
    target: plan.target,
    iteration: plan.iteration,
    commitBody: [line1, line2],
    worktree: paths.worktree,
    ledger: paths.ledger,
    spec: paths.spec,
    previousDecision: plan.previousDecision,
    hint: plan.hint,
    model: plan.model,
    commitSubject: subject,
    evidence: EVIDENCE_CONTRACT,
    actionRecords:
      extra.actionRecords === undefined
        ? [...plan.actionRecords]
        : extra.actionRecords.map(formatActionRecord),
    returnFile: paths.returnFile,
    jobsFile: paths.jobsFile,
    verification:
      extra.verification === undefined || extra.verification === null
        ? null
        : { ...extra.verification, blockingCalls: BLOCKING_CALL_CONTRACT },
    ...(extra.leg === undefined ? {} : { leg: extra.leg }),
  };
}

/**
 * The plan of a dispatch found in flight at resume (§3.2 pending recovery): the before-image is the
 * ledger at the tuple's HEAD, the reserved ledger is the one on disk. The task fields only the
 * original dispatch knew (hint, previous decision, model, carried spend) come from the plan the
 * host stored at reservation, when it is the plan of exactly this tuple and iteration; without it
 * they are empty.
 *
 * @param saved the ledger at the tuple's HEAD (committed before the bump)
 * @param reserved the ledger on disk, carrying the tuple
 * @param stored the plan stored at reservation, if any
 * @param homeHead a companion tuple's home HEAD when no stored plan says it (home HEAD at resume)
 * @throws Error when `reserved` carries no tuple
 */
export function restoredPlan(
  saved: Ledger,
  reserved: Ledger,
  stored?: DispatchPlan | null,
  homeHead?: string,
): DispatchPlan {
  if (reserved.pending === null) throw new Error('the ledger on disk carries no pending tuple');
  const same =
    stored != null &&
    stored.iteration === saved.iterations &&
    formatPending(stored.pending) === formatPending(reserved.pending);
  return {
    target: reserved.pending.target,
    iteration: saved.iterations,
    pending: reserved.pending,
    saved,
    reserved,
    hint: same ? stored.hint : null,
    previousDecision: same ? stored.previousDecision : 'none',
    model: same ? stored.model : null,
    actionRecords: same ? [...(stored.actionRecords ?? [])] : [],
    ...(same && stored.homeHead !== undefined
      ? { homeHead: stored.homeHead }
      : homeHead === undefined
        ? {}
        : { homeHead }),
  };
}

/** What a host knows about the latest dispatch it reserved and has not finished. */
export interface ReservationFacts {
  /** The plan `reserveDispatch` stored. */
  readonly plan: DispatchPlan;
  /** Whether the child's launch was intended (from then on the child may have run). */
  readonly launched: boolean;
  /**
   * Subjects of the commits `HEAD_BEFORE..HEAD`, oldest first; `null` when HEAD does not descend
   * from the plan's HEAD_BEFORE.
   */
  readonly subjects: readonly string[] | null;
}

/** Subjects only the parent loop writes (anything but a child's commit or a foreign one). */
function isParentSubject(subject: string): boolean {
  const kind = parseSubject(subject).kind;
  return !(kind === 'seed-evidence' || kind === 'row' || kind === 'verification-repair' || kind === 'other');
}

/**
 * Whether a parent commit is among `subjects` (the commits since a dispatch's HEAD_BEFORE): the
 * parent commits only after an admission or a repair, so such a dispatch is settled.
 *
 * @param subjects commit subjects, matched exactly
 */
export function parentCommitAmong(subjects: readonly string[]): boolean {
  return subjects.some(isParentSubject);
}

/**
 * Whether a stored reservation is a dispatch still in flight although the ledger on disk no longer
 * carries its tuple: the child committed (a child's commit removes the tuple) and the run ended
 * before the parent validated it. It is in flight when its launch was intended, HEAD descends from
 * its HEAD_BEFORE, and no parent commit (which only follows an admission or a repair) came since.
 *
 * A ledger the child deleted or left unreadable in that commit carries no tuple either.
 *
 * @param ledgerOnDisk the ledger in the worktree, parsed (`null` when absent or unreadable)
 * @param reservation what the host reports of its latest reservation
 */
export function reservationInFlight(
  ledgerOnDisk: Ledger | null,
  reservation: ReservationFacts | null | undefined,
): boolean {
  if (reservation == null || ledgerOnDisk?.pending != null) return false;
  if (!reservation.launched || reservation.subjects === null) return false;
  return !parentCommitAmong(reservation.subjects);
}
