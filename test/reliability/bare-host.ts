/**
 * A bare host for the loop engine statechart: the actors a host embedding the machine writes
 * itself, each one primitive (read a file, run git, spawn the child, write a file, commit). None
 * of them decides anything the protocol decides: which records a dispatch carries, whether a
 * dispatch found after a crash is still in flight, what a stop says, which records survive a
 * discard are the machine's. It uses the pure core only to read and write ledgers and to build the
 * task from the plan, as the README invites a host to do; no part of src/host or src/effects.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fromPromise } from 'xstate';
import type {
  BoundaryFacts,
  ChildReport,
  CommitRequest,
  DispatchRecovery,
  GateRun,
  LoopSettings,
  RefreshFacts,
  ReviewReport,
  WorkspaceFacts,
} from '../../machines/loop-implementation/index.js';
import { extractActionRecords, parseActionRecord } from '../../src/gauntlet/action-records.js';
import { attributionMatches } from '../../src/gauntlet/commits.js';
import { childTask, type DispatchPlan, type ReservationFacts } from '../../src/gauntlet/dispatch.js';
import { parseLedger, serializeLedger } from '../../src/gauntlet/ledger.js';
import type { ActionRecord, CommitFact, Ledger } from '../../src/gauntlet/types.js';

/** Where the bare host works and keeps its own files (outside the worktree). */
export interface BareHostOptions {
  readonly worktree: string;
  readonly ledgerPath: string;
  readonly specPath: string;
  /** A folder outside the worktree for the reservation, tasks, returns and jobs files. */
  readonly stateDir: string;
  /** The child command, run with `/bin/sh -c` in the worktree. */
  readonly child: string;
  readonly settings: LoopSettings;
  /** Environment of every git process and of the child. */
  readonly env: NodeJS.ProcessEnv;
}

/** What the bare host stores at reservation: the plan as the machine gave it, and the launch. */
interface Reservation {
  readonly plan: DispatchPlan;
  readonly launched: boolean;
  readonly dirtBefore: string;
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The bare host's actors, plus the tasks it handed to children (for the test to read). */
export function bareHostActors(options: BareHostOptions) {
  const { worktree, ledgerPath, specPath, stateDir } = options;
  mkdirSync(stateDir, { recursive: true });
  const reservationFile = join(stateDir, 'reservation.json');
  const tasks: string[] = [];

  const git = (args: readonly string[], stdin?: string) =>
    new Promise<{ code: number; out: string }>((resolve, reject) => {
      const child = spawn('git', args, { cwd: worktree, env: options.env });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
      });
      child.stderr.on('data', (chunk) => {
        err += chunk;
      });
      child.on('error', reject);
      child.on('close', (code) => {
        if (code !== 0 && code !== 1) reject(new Error(`git ${args.join(' ')}: ${err}`));
        else resolve({ code: code ?? 1, out });
      });
      child.stdin.on('error', () => {}); // git that reads no input closes its stdin
      child.stdin.end(stdin ?? '');
    });
  const gitOut = async (...args: string[]) => {
    const result = await git(args);
    if (result.code !== 0) throw new Error(`git ${args.join(' ')} exited ${result.code}`);
    return result.out;
  };
  const head = async () => (await gitOut('rev-parse', 'HEAD')).trim();
  const showFile = async (rev: string, path: string) => {
    const result = await git(['show', `${rev}:${path}`]);
    return result.code === 0 ? result.out : null;
  };
  const readReservation = (): Reservation | null => {
    const text = readOrNull(reservationFile);
    return text === null ? null : (JSON.parse(text) as Reservation);
  };
  const writeReservation = (r: Reservation) => writeFileSync(reservationFile, JSON.stringify(r));
  const diskLedger = () => readOrNull(join(worktree, ledgerPath));
  const jobsFileOf = (plan: DispatchPlan) => join(stateDir, `loop-${plan.iteration}.jobs`);
  const returnFileOf = (plan: DispatchPlan) => join(stateDir, `return-${plan.iteration}.json`);
  const taskFileOf = (plan: DispatchPlan) => join(stateDir, `task-${plan.iteration}.json`);
  /** `git status --porcelain`, without the ledger line when the ledger is exactly `expected`. */
  const porcelain = async (expected: string | null) => {
    const lines = (await gitOut('status', '--porcelain')).split('\n').filter((l) => l !== '');
    const ledgerIsExpected = expected !== null && diskLedger() === expected;
    return lines.filter((l) => !(ledgerIsExpected && l.slice(3) === ledgerPath)).join('\n');
  };
  const jobsRecords = (plan: DispatchPlan): ActionRecord[] =>
    (readOrNull(jobsFileOf(plan)) ?? '')
      .split('\n')
      .map(parseActionRecord)
      .filter((r): r is ActionRecord => r !== null);
  const ledgerRecords = (ledger: Ledger | null): ActionRecord[] =>
    ledger === null
      ? []
      : [...ledger.decisions, ...ledger.rows.map((r) => r.evidence)].flatMap(extractActionRecords);

  const actors = {
    inspectWorkspace: fromPromise<WorkspaceFacts, { ledgerPath: string; specPath: string }>(async () => {
      const now = await head();
      const ledgerText = diskLedger();
      const pending = ledgerText === null ? null : (parseLedger(ledgerText).ledger?.pending ?? null);
      const stored = readReservation();
      let reservation: ReservationFacts | null = null;
      if (stored !== null) {
        const from = stored.plan.pending.head;
        const reachable = (await git(['merge-base', '--is-ancestor', from, now])).code === 0;
        const subjects = reachable
          ? (await gitOut('log', '--reverse', '--format=%s', `${from}..${now}`)).split('\n').filter(Boolean)
          : null;
        reservation = { plan: stored.plan, launched: stored.launched, subjects };
      }
      return {
        head: now,
        porcelain: await porcelain(stored === null ? null : serializeLedger(stored.plan.reserved)),
        ledgerText,
        specText: readOrNull(join(worktree, specPath)),
        savedLedgerText: pending === null ? null : await showFile(pending.head, ledgerPath),
        reservation,
      };
    }),
    resolveSettings: fromPromise<LoopSettings, Record<string, never>>(async () => options.settings),
    commitLedger: fromPromise<{ head: string }, CommitRequest>(async ({ input }) => {
      mkdirSync(dirname(join(worktree, ledgerPath)), { recursive: true });
      writeFileSync(join(worktree, ledgerPath), serializeLedger(input.ledger));
      const paths = [ledgerPath];
      if (input.specText !== undefined) {
        writeFileSync(join(worktree, specPath), input.specText);
        paths.push(specPath);
      }
      await gitOut('add', '--', ...paths);
      const message =
        input.body.length > 0
          ? `${input.subject}\n\n${input.body.replace(/\n$/, '')}\n`
          : `${input.subject}\n`;
      const committed = await git(
        ['commit', '--quiet', '--cleanup=verbatim', '--file=-', '--only', '--', ...paths],
        message,
      );
      if (committed.code !== 0) throw new Error(`commit ${input.subject} failed`);
      return { head: await head() };
    }),
    refresh: fromPromise<RefreshFacts, { ledgerPath: string; base: string }>(async ({ input }) => {
      const now = await head();
      const ledgerText = diskLedger();
      if (ledgerText === null) throw new Error('the ledger is missing');
      const log = await gitOut('log', '--reverse', '--format=%H%x1f%s%x1f%b%x1e', `${input.base}..${now}`);
      const commits: CommitFact[] = [];
      for (const entry of log
        .split('\x1e')
        .map((e) => e.replace(/^\n/, ''))
        .filter(Boolean)) {
        const [sha = '', subject = '', body = ''] = entry.split('\x1f');
        const paths = (await gitOut('diff-tree', '--no-commit-id', '--name-only', '-r', sha))
          .split('\n')
          .filter(Boolean);
        const text = await showFile(sha, ledgerPath);
        commits.push({
          sha,
          subject,
          body: body.replace(/\n$/, ''),
          paths,
          ledger: text === null ? null : parseLedger(text).ledger,
        });
      }
      return { head: now, ledgerText, commits };
    }),
    resolveImplModel: fromPromise<{ model: string | null }, { row: number | 'verify' }>(async () => ({
      model: null,
    })),
    reserveDispatch: fromPromise<Record<string, never>, { plan: DispatchPlan; ledgerPath: string }>(
      async ({ input }) => {
        const { plan } = input;
        writeReservation({ plan, launched: false, dirtBefore: await porcelain(null) });
        rmSync(returnFileOf(plan), { force: true });
        rmSync(jobsFileOf(plan), { force: true });
        const task = childTask(plan, {
          worktree,
          ledger: ledgerPath,
          spec: specPath,
          returnFile: returnFileOf(plan),
          jobsFile: jobsFileOf(plan),
        });
        writeFileSync(taskFileOf(plan), JSON.stringify(task, null, 2));
        writeFileSync(join(worktree, ledgerPath), serializeLedger(plan.reserved));
        return {};
      },
    ),
    dispatchChild: fromPromise<ChildReport, { plan: DispatchPlan; gate: GateRun | null }>(
      async ({ input, signal }) => {
        const { plan } = input;
        const stored = readReservation();
        if (stored === null) throw new Error('no reservation');
        writeReservation({ ...stored, launched: true });
        tasks.push(readFileSync(taskFileOf(plan), 'utf8'));
        const code = await new Promise<number | null>((resolve) => {
          const child = spawn('/bin/sh', ['-c', options.child], {
            cwd: worktree,
            env: {
              ...options.env,
              LOOPCHART_TASK: taskFileOf(plan),
              LOOPCHART_RETURN: returnFileOf(plan),
              LOOPCHART_JOBS: jobsFileOf(plan),
            },
            stdio: 'ignore',
            signal,
          });
          child.on('error', () => resolve(null));
          child.on('close', (exit) => resolve(exit));
        });
        if (code === null) throw new Error('the child was stopped');
        return { returned: returnedOf(readOrNull(returnFileOf(plan))) };
      },
    ),
    recoverDispatch: fromPromise<DispatchRecovery, { plan: DispatchPlan }>(async ({ input }) => {
      const stored = readReservation();
      if (stored === null || !stored.launched) return { launched: false };
      return { launched: true, returned: returnedOf(readOrNull(returnFileOf(input.plan))) };
    }),
    readBoundary: fromPromise<BoundaryFacts, { plan: DispatchPlan; ledgerPath: string }>(
      async ({ input }) => {
        const { plan } = input;
        const from = plan.pending.head;
        const count = Number((await gitOut('rev-list', '--count', `${from}..HEAD`)).trim());
        let commit: BoundaryFacts['commit'] = null;
        let headLedgerText: string | null = null;
        if (count === 1) {
          const [sha = '', subject = '', body = ''] = (
            await gitOut('log', '-1', '--format=%H%x1f%s%x1f%b')
          ).split('\x1f');
          commit = { sha, subject, body: body.replace(/\n+$/, '') };
          headLedgerText = await showFile(sha, ledgerPath);
        }
        return {
          porcelain: await porcelain(serializeLedger(plan.reserved)),
          commitCount: count,
          commit,
          headLedgerText,
          actionRecords: jobsRecords(plan),
        };
      },
    ),
    checkProvenance: fromPromise<{ owned: true } | { owned: false; what: string }, { plan: DispatchPlan }>(
      async () => {
        const stored = readReservation();
        return stored !== null && stored.dirtBefore === ''
          ? { owned: true }
          : { owned: false, what: 'checkout ownership unproven' };
      },
    ),
    collectActionRecords: fromPromise<{ actionRecords: readonly ActionRecord[] }, { plan: DispatchPlan }>(
      async ({ input }) => {
        const { plan } = input;
        const records = jobsRecords(plan);
        const log = await gitOut('log', '--reverse', '--format=%b%x1e', `${plan.pending.head}..HEAD`);
        for (const body of log.split('\x1e').map((b) => b.replace(/^\n/, '').replace(/\n+$/, '')))
          if (attributionMatches(body, plan.pending, plan.iteration + 1))
            records.push(...extractActionRecords(body.split('\n').slice(2).join('\n')));
        const text = diskLedger();
        const before = new Set(ledgerRecords(plan.saved).map((r) => r.text));
        records.push(
          ...ledgerRecords(text === null ? null : parseLedger(text).ledger).filter(
            (r) => !before.has(r.text),
          ),
        );
        return { actionRecords: records };
      },
    ),
    cleanupJobs: fromPromise<{ terminated: number; problem: string | null }, { plan: DispatchPlan }>(
      async () => ({ terminated: 0, problem: null }),
    ),
    resetCheckout: fromPromise<{ clean: boolean }, { head: string }>(async ({ input }) => {
      const stored = readReservation();
      if (stored === null) throw new Error('no reservation to reset for');
      await gitOut('reset', '--quiet', '--hard', input.head);
      await gitOut('clean', '-fdq');
      const reserved = serializeLedger(stored.plan.reserved);
      writeFileSync(join(worktree, ledgerPath), reserved);
      const count = Number((await gitOut('rev-list', '--count', `${input.head}..HEAD`)).trim());
      return { clean: (await porcelain(reserved)) === '' && count === 0 };
    }),
    finishDispatch: fromPromise<Record<string, never>, { plan: DispatchPlan }>(async ({ input }) => {
      rmSync(reservationFile, { force: true });
      rmSync(jobsFileOf(input.plan), { force: true });
      return {};
    }),
    discardChanges: fromPromise<{ clean: boolean }, { head: string }>(async ({ input }) => {
      await gitOut('reset', '--quiet', '--hard', input.head);
      await gitOut('clean', '-fdq');
      return { clean: (await porcelain(null)) === '' };
    }),
    runGates: fromPromise<GateRun, unknown>(async () => ({ passed: true, head: await head() })),
    // No reviewers; the conformance audit is waived (what --no-conformance-review asks of the
    // real host), so verify closes on HEAD with a waived closure. The bare host runs no fix rounds.
    runReview: fromPromise<ReviewReport, { role: 'whole-diff' | 'conformance' }>(async ({ input }) =>
      input.role === 'conformance'
        ? { ran: false, role: 'conformance', waived: true, head: await head(), fixCommits: [] }
        : { ran: false, role: input.role },
    ),
    runFixRound: fromPromise<{ head: string }, unknown>(async () => {
      throw new Error('the bare host runs no fix rounds');
    }),
    finishBranch: fromPromise<Record<string, never>, unknown>(async () => ({})),
  };
  return { actors, tasks };
}

/** The `status` of a return file, or `null` when there is none or it is not JSON. */
function returnedOf(text: string | null): string | null {
  if (text === null) return null;
  try {
    const status = (JSON.parse(text) as { status?: unknown }).status;
    return typeof status === 'string' ? status : null;
  } catch {
    return null;
  }
}
