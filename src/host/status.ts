/**
 * `loopchart status`: what the loop would do next, derived only from disk and branch history
 * (the ledger on disk, the commits since its base, the spec, the host's durable dispatch
 * records). It runs the same pure rules the machine runs and renders the stop the machine would
 * take, but changes nothing.
 */
import type { Finding } from '../common/finding.js';
import type { GitPort } from '../effects/git.js';
import { createGitPort } from '../effects/git.js';
import { effectiveAllowance } from '../gauntlet/allowance.js';
import { amendmentEntries } from '../gauntlet/amendment-items.js';
import { seedLeg } from '../gauntlet/companion.js';
import { gateLegs } from '../gauntlet/gate-set.js';
import { type HumanStop, renderHumanStop } from '../gauntlet/human-stop.js';
import { formatPending, parseLedger } from '../gauntlet/ledger.js';
import { specRowOfLedgerRow } from '../gauntlet/leg-amendments.js';
import { homeMember, isCoordinated } from '../gauntlet/leg-entries.js';
import { type LegRowCounts, legOfRow, legSummaries } from '../gauntlet/leg-status.js';
import { evaluateRules } from '../gauntlet/rules.js';
import { parseSpec } from '../gauntlet/spec.js';
import type { Ledger, RowStatus } from '../gauntlet/types.js';
import { readLoopHistory } from './history-facts.js';
import type { StateFiles } from './state-files.js';
import { findUnsettledDispatch } from './unsettled-dispatch.js';
import { readVerifiedHeads } from './verified-heads.js';
import { porcelainLine, readWorktreeFile } from './worktree-view.js';

/**
 * What the loop does next. On a coordinated ledger, `leg` names the member whose checkout the step
 * concerns (the dispatch's or the pending tuple's leg, the stopped row's leg), and the description
 * ends with `(leg <member>)`; verify names every leg of the gate set.
 */
export type NextStep = NextStepKind & { readonly leg?: string };

/** The steps `status` can report. */
export type NextStepKind =
  /** No ledger yet: the next run seeds one from the spec. */
  | { readonly kind: 'seed-ledger'; readonly description: string }
  /** A dispatch is in flight: the next run recovers it before anything else. */
  | { readonly kind: 'recover'; readonly description: string; readonly tuple: string }
  /** The next run dispatches a child. */
  | {
      readonly kind: 'dispatch';
      readonly target: number | 'seed';
      readonly escalated: boolean;
      readonly description: string;
    }
  /** Every row is done or cut: the next run verifies (gate set, reviews). */
  | { readonly kind: 'verify'; readonly description: string }
  /** An amend item (an unreachable cut or an `amend:` item) is applied under the spec's amend grant. */
  | { readonly kind: 'amend'; readonly description: string }
  /** The loop stops for a human with this stop. */
  | {
      readonly kind: 'stop';
      readonly stop: HumanStop;
      readonly stopText: string;
      readonly description: string;
    }
  /** The ledger or spec must be fixed first. */
  | { readonly kind: 'configuration'; readonly description: string; readonly findings: readonly Finding[] };

/** One ledger row as `status` reports it. */
export interface RowStatusLine {
  readonly row: number;
  readonly status: RowStatus;
  readonly attempts: number;
  readonly effectiveAllowance: number;
  readonly evidence: string;
}

/** One leg of a coordinated run as `status` reports it. */
export interface LegStatusLine {
  readonly member: string;
  /** The member whose checkout holds the spec and the ledger. */
  readonly home: boolean;
  /** The checkout's path as given (`--leg`; the worktree for home), or `null` when not given. */
  readonly checkout: string | null;
  /** `base <member>:`. */
  readonly base: string;
  /** `seeded <member>:`. */
  readonly seeded: boolean;
  /** The checkout's HEAD now, when the checkout is given and readable. */
  readonly head: string | null;
  /** The ledger rows mapped to the member. */
  readonly rowNumbers: readonly number[];
  /** Those rows by status. */
  readonly rows: LegRowCounts;
  /** True when the `pending:` tuple names this member (a dispatch or repair in its checkout). */
  readonly pending: boolean;
  /** The HEAD the leg's gate pairs last passed on for this ledger base, when known. */
  readonly verifiedHead: string | null;
}

/** The loop's state on disk. */
export interface LoopStatus {
  readonly ledgerPath: string;
  readonly specPath: string;
  readonly ledger: Ledger | null;
  readonly rows: readonly RowStatusLine[];
  readonly iterations: number | null;
  readonly allowance: number | null;
  /** The pending tuple line on disk, if any. */
  readonly pending: string | null;
  /** Coordinated runs: one line per member, in membership order; `null` for a single leg. */
  readonly legs: readonly LegStatusLine[] | null;
  readonly seedRepairs: number;
  readonly verificationRepairs: number;
  readonly next: NextStep;
}

/** Input of {@link readLoopStatus}. */
export interface StatusInput {
  readonly git: GitPort;
  readonly files: StateFiles;
  readonly ledgerPath: string;
  readonly specPath: string;
  /** `loopEngine.escalateAfter` as the run would hold it. */
  readonly escalateAfter: number;
  /** Whether an impl model is configured (an escalated round without one is the missing-model stop). */
  readonly implModel: string | null;
  /** Companion checkouts (member to absolute path), as `loopchart run --leg` gives them. */
  readonly legCheckouts?: Readonly<Record<string, string>>;
}

/**
 * Reads the loop's state and the step it would take next. Read-only.
 *
 * @param input the worktree's git port and state files, paths and the run's settings
 */
export async function readLoopStatus(input: StatusInput): Promise<LoopStatus> {
  const { git, ledgerPath, specPath } = input;
  const worktree = git.worktree;
  const [head, diskLedger, specText, status] = await Promise.all([
    git.revParseHead(),
    readWorktreeFile(worktree, ledgerPath),
    readWorktreeFile(worktree, specPath),
    git.statusPorcelain(),
  ]);
  const empty = {
    ledgerPath,
    specPath,
    rows: [],
    iterations: null,
    allowance: null,
    pending: null,
    legs: null,
  };
  if (diskLedger === null)
    return {
      ...empty,
      ledger: null,
      seedRepairs: 0,
      verificationRepairs: 0,
      next: {
        kind: 'seed-ledger',
        description: `no ledger at ${ledgerPath}: the next run seeds it from ${specPath}`,
      },
    };
  const parsed = parseLedger(diskLedger);
  const ledger = parsed.ledger;
  const rows: RowStatusLine[] =
    ledger?.rows.map((row) => ({ ...row, effectiveAllowance: effectiveAllowance(ledger, row.row) })) ?? [];
  const base = {
    ledgerPath,
    specPath,
    ledger,
    rows,
    iterations: ledger?.iterations ?? null,
    allowance: ledger?.allowance ?? null,
    pending: ledger?.pending == null ? null : formatPending(ledger.pending),
    legs: ledger === null ? null : await legLines(ledger, specText, worktree, input),
  };
  if (ledger === null)
    return {
      ...base,
      seedRepairs: 0,
      verificationRepairs: 0,
      next: {
        kind: 'configuration',
        description: `the ledger ${ledgerPath} does not parse`,
        findings: parsed.findings,
      },
    };
  const { history } = await readLoopHistory(git, { base: ledger.base, ledgerPath, ledger, head });
  const counts = { seedRepairs: history.seedRepairCount, verificationRepairs: history.verificationRepairs };
  const coordinated = ledger.legs !== undefined;
  // Coordinated ledgers name the leg a step concerns (L19): a row's mapped member, the due seed's.
  const legOf = (target: number | 'seed' | null): string | null =>
    !coordinated || target === null ? null : target === 'seed' ? seedLeg(ledger) : legOfRow(ledger, target);
  const result = (next: NextStep, leg: string | null = null): LoopStatus => ({
    ...base,
    ...counts,
    next: leg === null ? next : { ...next, leg, description: `${next.description} (leg ${leg})` },
  });

  if (ledger.pending !== null)
    return result(
      {
        kind: 'recover',
        tuple: formatPending(ledger.pending),
        description: `a dispatch is in flight (${formatPending(ledger.pending)}): the next run recovers it first`,
      },
      coordinated ? ledger.pending.repo : null,
    );
  const unsettled = await findUnsettledDispatch(git, input.files, head, false);
  if (unsettled !== null)
    return result({
      kind: 'recover',
      tuple: unsettled.tuple,
      description: `the child of ${unsettled.tuple} committed but its return was not validated yet: the next run validates it first`,
    });
  if (status.length > 0) {
    const detail = status.map(porcelainLine).slice(0, 10).join('; ');
    const stop: HumanStop = { kind: 'commit-boundary', problem: 'dirty tree', detail };
    return result({
      kind: 'stop',
      stop,
      stopText: renderHumanStop(stop, ledger),
      description: 'the tree is dirty',
    });
  }
  const spec = specText === null ? null : parseSpec(specText);
  if (spec === null || spec.findings.length > 0)
    return result({
      kind: 'configuration',
      description: spec === null ? `cannot read the spec ${specPath}` : `the spec ${specPath} is not valid`,
      findings: spec?.findings ?? [],
    });
  const outcome = evaluateRules({
    ledger,
    ledgerFindings: parsed.findings,
    history,
    escalateAfter: input.escalateAfter,
    routing: {
      spec: spec.spec,
      amendPermission: spec.spec.amendGrant.kind === 'active',
      amendments: amendmentEntries(specText ?? ''),
    },
  });
  const stopped = (stop: HumanStop, description: string) =>
    result(
      { kind: 'stop', stop, stopText: renderHumanStop(stop, ledger), description },
      'row' in stop && typeof stop.row === 'number' ? legOf(stop.row) : null,
    );
  switch (outcome.kind) {
    case 'configuration-stop':
      return result({ kind: 'configuration', description: outcome.message, findings: outcome.findings });
    case 'bound-spent-stop':
      return stopped({ kind: 'bound-spent', row: outcome.row }, outcome.why);
    case 'spec-amend':
      if (outcome.autoApply) return result({ kind: 'amend', description: outcome.why }, legOf(outcome.row));
      return stopped(
        {
          kind: 'spec-amend',
          row: outcome.row,
          what: outcome.what,
          evidence: outcome.evidence,
          entry: outcome.entry,
        },
        outcome.why,
      );
    case 'repeated-evidence-stop':
      return stopped(
        {
          kind: 'repeated-evidence',
          row: outcome.row,
          what: outcome.what,
          evidence: outcome.evidence,
          earlier: outcome.earlier,
        },
        outcome.why,
      );
    case 'redraw-stop':
      return stopped({ kind: 'redraw', row: outcome.row, reason: outcome.reason }, outcome.why);
    case 'unreachable-amend': {
      if (outcome.autoApply) return result({ kind: 'amend', description: outcome.why }, legOf(outcome.row));
      const rowText = specRowOfLedgerRow(spec.spec, ledger, outcome.row)?.text;
      return stopped(
        {
          kind: 'unreachable-amend',
          row: outcome.row,
          what: outcome.what,
          where: outcome.where,
          ...(rowText === undefined ? {} : { rowText }),
        },
        outcome.why,
      );
    }
    case 'verify':
      return result({
        kind: 'verify',
        description: coordinated
          ? `every row is done or cut: the gate set runs next in every leg (${gateLegs(ledger).join(', ')})`
          : 'every row is done or cut: the gate set runs next',
      });
    case 'row-stop':
      return stopped({ kind: 'row-allowance', row: outcome.row }, outcome.why);
    case 'seed-stop':
      return stopped(
        {
          kind: 'seed-exhaustion',
          seedRepairs: history.seedRepairCount,
          ...(history.lastSeedRepairReason === null ? {} : { lastReason: history.lastSeedRepairReason }),
        },
        outcome.why,
      );
    case 'dispatch-seed':
      return result(
        { kind: 'dispatch', target: 'seed', escalated: false, description: outcome.why },
        legOf('seed'),
      );
    case 'dispatch-row':
      if (outcome.escalated && (input.implModel === null || input.implModel.trim() === ''))
        return stopped(
          { kind: 'missing-model', row: outcome.row },
          `row ${outcome.row}'s escalated round is due and no impl model is configured`,
        );
      return result(
        {
          kind: 'dispatch',
          target: outcome.row,
          escalated: outcome.escalated,
          description: `${outcome.why}${outcome.escalated ? ' (escalated round)' : ''}`,
        },
        legOf(outcome.row),
      );
  }
}

/** The per-leg lines of a coordinated ledger (`null` for a single leg). */
async function legLines(
  ledger: Ledger,
  specText: string | null,
  worktree: string,
  input: StatusInput,
): Promise<LegStatusLine[] | null> {
  const spec = specText === null ? null : parseSpec(specText).spec;
  const summaries = legSummaries(ledger, spec !== null && isCoordinated(spec) ? homeMember(spec) : undefined);
  if (summaries === null) return null;
  const verified = await readVerifiedHeads(input.files.verifiedHeads);
  const heads = verified !== null && verified.base === ledger.base ? verified.heads : {};
  return Promise.all(
    summaries.map(async (leg) => {
      const checkout = leg.home ? worktree : (input.legCheckouts?.[leg.member] ?? null);
      let head: string | null = null;
      if (checkout !== null) {
        try {
          head = leg.home ? await input.git.revParseHead() : await createGitPort(checkout).revParseHead();
        } catch {
          head = null;
        }
      }
      return { ...leg, checkout, head, verifiedHead: heads[leg.member] ?? null };
    }),
  );
}
