/**
 * A scripted in-memory host for the loop engine's verify region (verify steps 1-5, coordinated
 * legs): the machine starts on a restored ledger whose every row is closed, so the ordered table
 * enters verify at once. The host keeps one "disk" (the ledger text and home HEAD): a commit writes
 * the requested ledger and moves HEAD, a reservation writes the reserved ledger, a refresh reads
 * them back. Gate runs, reviews, child reports and boundaries are taken from the script in order;
 * every actor's input is recorded, so a test asserts on what the machine handed the host.
 * No process is spawned and nothing touches a disk.
 */
import { type Actor, createActor, fromPromise, type SnapshotFrom, waitFor } from 'xstate';
import {
  type BoundaryFacts,
  type ChildReport,
  type GateRun,
  loopImplementationMachine,
  type ReviewReport,
} from '../../machines/loop-implementation/index.js';
import { emptyLoopHistory, type LoopHistory } from '../../src/gauntlet/history.js';
import { parseLedger, serializeLedger } from '../../src/gauntlet/ledger.js';
import type { Ledger } from '../../src/gauntlet/types.js';

/** A full SHA made of one repeated hex digit (readable in expectations). */
export function sha(digit: string): string {
  return digit.repeat(40);
}

/** A single-leg ledger (the layout of gauntlet-protocol §1.8) whose two rows are done. */
export const SINGLE_LEG_LEDGER = [
  '# Loop ledger',
  '**Spec:** docs/specs/csv-export.md',
  `base: ${sha('e')}`,
  'verification: npm test',
  'checks: commands',
  'iterations: 2',
  'allowance: 4',
  '',
  '| row | status | attempts | evidence |',
  '|---|---|---|---|',
  '| 1 | done | 1 | npm test; header row written |',
  '| 2 | done | 1 | npm test; commas and quotes escaped |',
  '',
  '## Decisions',
  '',
  'row 1 done | header row written | take row 2',
  'row 2 done | commas and quotes escaped | verify',
  '',
].join('\n');

/** The spec of {@link SINGLE_LEG_LEDGER}: two acceptance criteria, no amend grant. */
export const SINGLE_LEG_SPEC = [
  '# CSV export',
  '',
  '**Amend-grant:** none',
  '',
  '## Acceptance criteria',
  '',
  '- [ ] Export writes a header row',
  '- [ ] Commas and quotes are escaped',
  '',
].join('\n');

/** What a verify test scripts. */
export interface VerifyScript {
  /** The ledger on disk at start (every row closed). */
  readonly ledgerText: string;
  readonly specText: string;
  /** Home HEAD at start. */
  readonly head: string;
  /** A coordinated run's checkouts (member -> path); absent for a single leg. */
  readonly legCheckouts?: Readonly<Record<string, string>>;
  /** A coordinated run's checkout HEADs as `inspectWorkspace` and `refresh` report them. */
  readonly legHeads?: Readonly<Record<string, string>>;
  /** Home `loop: repair verification` markers since base, as the host's replay reports them. */
  readonly verificationRepairs?: number;
  /** Gate runs, in order. */
  readonly gates?: readonly GateRun[];
  /** Review reports, in order (whole-diff and conformance alike). */
  readonly reviews?: readonly ReviewReport[];
  /** Child reports of verification repairs, in order. */
  readonly children?: readonly ChildReport[];
  /** Boundary reads after each child, in order. */
  readonly boundaries?: readonly BoundaryFacts[];
  /** HEADs the host's commits move home to, in order (marker, amendment, fix round ...). */
  readonly commitHeads?: readonly string[];
}

/** One actor invocation the host saw. */
export interface HostCall {
  readonly actor: string;
  // biome-ignore lint/suspicious/noExplicitAny: each test reads the fields of the actor it asserts on
  readonly input: any;
}

type LoopSnapshot = SnapshotFrom<typeof loopImplementationMachine>;

/** A started loop actor on the scripted host, with the calls it made. */
export interface VerifyRun {
  readonly actor: Actor<typeof loopImplementationMachine>;
  readonly calls: HostCall[];
  /** The inputs of every call of one actor source, in order. */
  // biome-ignore lint/suspicious/noExplicitAny: see HostCall.input
  inputsOf(actor: string): any[];
  /** Waits until the machine reaches a human stop or a final state, and returns that snapshot. */
  settled(): Promise<LoopSnapshot>;
  /** Waits until a snapshot satisfies `predicate` (rejects when the run ends first). */
  until(predicate: (snapshot: LoopSnapshot) => boolean): Promise<LoopSnapshot>;
}

/**
 * Starts the loop engine on the scripted host.
 *
 * @param script the start state and the scripted outcomes
 */
export function startVerifyRun(script: VerifyScript): VerifyRun {
  const calls: HostCall[] = [];
  const gates = [...(script.gates ?? [])];
  const reviews = [...(script.reviews ?? [])];
  const children = [...(script.children ?? [])];
  const boundaries = [...(script.boundaries ?? [])];
  const commitHeads = [...(script.commitHeads ?? [])];
  let ledgerText = script.ledgerText;
  let head = script.head;

  const take = <T>(queue: T[], what: string): T => {
    const next = queue.shift();
    if (next === undefined) throw new Error(`the script has no ${what} left`);
    return next;
  };
  const scripted = <I, O>(name: string, body: (input: I) => O) =>
    fromPromise<O, I>(async ({ input }) => {
      calls.push({ actor: name, input });
      return body(input);
    });
  const commit = (ledger: Ledger) => {
    ledgerText = serializeLedger(ledger);
    head = take(commitHeads, 'commit HEAD');
    return { head };
  };
  // Without a repair count the machine replays history itself (no commits since base).
  const history = (): { history: LoopHistory } | { commits: [] } => {
    if (script.verificationRepairs === undefined) return { commits: [] };
    const ledger = parseLedger(ledgerText).ledger ?? undefined;
    return { history: { ...emptyLoopHistory(ledger), verificationRepairs: script.verificationRepairs } };
  };

  const machine = loopImplementationMachine.provide({
    actors: {
      inspectWorkspace: scripted('inspectWorkspace', () => ({
        head,
        porcelain: '',
        ledgerText,
        specText: script.specText,
        savedLedgerText: null,
        ...(script.legHeads === undefined ? {} : { legHeads: script.legHeads }),
      })),
      resolveSettings: scripted('resolveSettings', () => ({ allowance: 4, escalateAfter: 2 })),
      refresh: scripted('refresh', () => ({
        head,
        ledgerText,
        ...history(),
        ...(script.legHeads === undefined ? {} : { legHeads: script.legHeads }),
      })),
      commitLedger: scripted('commitLedger', (request: { ledger: Ledger }) => commit(request.ledger)),
      resolveImplModel: scripted('resolveImplModel', () => ({ model: 'repair-model' })),
      reserveDispatch: scripted('reserveDispatch', (input: { plan: { reserved: Ledger } }) => {
        ledgerText = serializeLedger(input.plan.reserved);
        return {};
      }),
      dispatchChild: scripted('dispatchChild', () => take(children, 'child report')),
      readBoundary: scripted('readBoundary', () => take(boundaries, 'boundary read')),
      finishDispatch: scripted('finishDispatch', () => ({})),
      runGates: scripted('runGates', () => {
        const run = take(gates, 'gate run');
        head = run.head;
        return run;
      }),
      runReview: scripted('runReview', () => take(reviews, 'review report')),
      runFixRound: scripted('runFixRound', () => {
        head = take(commitHeads, 'commit HEAD');
        return { head };
      }),
      finishBranch: scripted('finishBranch', () => ({})),
    } as never,
  });
  const actor = createActor(machine, {
    input: {
      ledgerPath: 'docs/plans/csv-export.md',
      specPath: 'docs/specs/csv-export.md',
      verification: 'npm test',
      ...(script.legCheckouts === undefined ? {} : { legCheckouts: script.legCheckouts }),
    },
  });
  actor.start();
  return {
    actor,
    calls,
    inputsOf: (name) => calls.filter((c) => c.actor === name).map((c) => c.input),
    settled: () => waitFor(actor, (s) => s.status !== 'active' || s.matches('humanStop')),
    until: (predicate) => waitFor(actor, predicate),
  };
}
