/**
 * A reference of the cybernetic loop written in test code from the skill text (procedure steps
 * 1-9) and docs/cybernetic-loop.md's verdict table and equivalence definitions, NOT from
 * src/cybernetic: it replays a generated path's events and answers the state the loop must be in
 * after each step.
 */
import type { PathStep } from '../../src/graph/path-suite-schema.js';

interface Execution {
  readonly kind: string;
  readonly exitCode?: number;
  readonly signature?: string;
  readonly reason?: string;
}
interface Run {
  readonly failing: string;
  readonly fingerprint: string;
  readonly passing: ReadonlySet<string>;
}

/** The request fields the reference reads. */
export interface CyberneticRequest {
  readonly budget: number;
  readonly scope: readonly string[];
  readonly existingChecks: readonly { readonly name: string }[];
}

function runOf(names: readonly string[], executions: Readonly<Record<string, Execution>>): Run {
  const passing = new Set(
    names.filter((n) => executions[n]?.kind === 'exited' && executions[n]?.exitCode === 0),
  );
  const notPassing = names.filter((n) => !passing.has(n)).sort();
  return {
    failing: notPassing.join(','),
    fingerprint: JSON.stringify(notPassing.map((n) => [n, executions[n]])),
    passing,
  };
}

/** The state after each step. */
export function cyberneticReference(steps: readonly PathStep[]): string[] {
  let request: CyberneticRequest | null = null;
  let names: string[] = [];
  const runs: Run[] = [];
  let retained = 0;
  let pendingPaths: string[] = [];
  let abandoning = false;
  const unavailable = () =>
    Object.fromEntries(names.map((n) => [n, { kind: 'not-executed', reason: 'the runner failed' }]));
  const inScope = (path: string) =>
    (request?.scope ?? []).some((s) => path === s || path.startsWith(`${s}/`));
  const decide = (): string => {
    const current = runs.at(-1) as Run;
    const k = runs.length - 1;
    if (pendingPaths.some((p) => !inScope(p))) return 'restoring';
    if (/not-executed/.test(current.fingerprint)) return 'restoring';
    if (current.failing === '') return 'restored';
    if (runs.slice(1, k).some((r) => r.fingerprint === current.fingerprint)) return 'restoring';
    const retainedRun = runs[retained] as Run;
    const oscillates =
      current.failing !== retainedRun.failing &&
      runs
        .slice(0, k)
        .some(
          (x, i) =>
            x.failing === current.failing && runs.slice(i + 1, k).some((b) => b.failing !== x.failing),
        );
    if (oscillates) return 'restoring';
    if (k >= (request?.budget ?? 0)) return 'restoring';
    const improved = [...names].some((n) => !retainedRun.passing.has(n) && current.passing.has(n));
    const broke = [...retainedRun.passing].some((n) => !current.passing.has(n));
    return improved && !broke ? 'candidate.retaining' : 'candidate.reverting';
  };
  return steps.map(({ event }) => {
    const type = event.type;
    const output = event.output as Record<string, unknown> | undefined;
    if (type === 'START') {
      request = event.request as unknown as CyberneticRequest;
      const budget = request.budget;
      if (!(Number.isInteger(budget) && budget > 0)) return 'invalidInput';
      names = ['invariant', ...request.existingChecks.map((c) => c.name)];
      return 'echoing';
    }
    switch (type) {
      case 'xstate.done.actor.echoContract':
        return 'checkpointing';
      case 'xstate.error.actor.echoContract':
        return 'failed';
      case 'xstate.done.actor.createCheckpoint':
        return output?.kind === 'created' ? 'baseline' : 'nonConverged';
      case 'xstate.error.actor.createCheckpoint':
        return 'nonConverged';
      case 'xstate.done.actor.runChecks':
      case 'xstate.error.actor.runChecks': {
        const executions =
          type === 'xstate.done.actor.runChecks'
            ? (output?.executions as Record<string, Execution>)
            : (unavailable() as Record<string, Execution>);
        runs.push(runOf(names, executions));
        if (runs.length === 1) {
          const baseline = runs[0] as Run;
          if (baseline.failing === '') return 'alreadyHolds';
          return /not-executed/.test(baseline.fingerprint) ? 'restoring' : 'candidate.applying';
        }
        return decide();
      }
      case 'xstate.done.actor.applyCandidate':
        pendingPaths = (output?.changedPaths ?? []) as string[];
        return 'candidate.checking';
      case 'xstate.done.actor.retainCandidate':
        retained = runs.length - 1;
        return 'candidate.applying';
      case 'xstate.done.actor.revertCandidate':
        return 'candidate.applying';
      case 'xstate.error.actor.applyCandidate':
      case 'xstate.error.actor.retainCandidate':
      case 'xstate.error.actor.revertCandidate':
        abandoning = true;
        return 'abandoning';
      case 'xstate.done.actor.restoreCheckpoint':
      case 'xstate.error.actor.restoreCheckpoint': {
        if (abandoning) return 'failed';
        const failedRestore =
          type === 'xstate.error.actor.restoreCheckpoint' ||
          output?.kind === 'failed' ||
          ((output?.remainingDelta ?? []) as string[]).length > 0;
        return failedRestore ? 'recoveryFailure' : 'nonConverged';
      }
      default:
        return `no expectation for ${type}`;
    }
  });
}
