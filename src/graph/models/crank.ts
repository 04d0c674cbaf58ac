/**
 * The model that explores the crank statechart over a three-lane wave: `parser` and `docs` share
 * nothing and may run together; `lexer` writes under `parser`'s scope, so it waits for `parser`.
 * Every lane can return or fail, and the wave acceptance can pass, fail or not run.
 */
import type { SnapshotFrom } from 'xstate';
import { type CrankContext, crankMachine, type LaneReturn } from '../../../machines/crank.js';
import type { JsonValue } from '../../common/json-value.js';
import type { Wave } from '../../crank/wave.js';
import { defineMachineModel } from '../machine-model.js';

type CrankSnapshot = SnapshotFrom<typeof crankMachine>;

/** The model's wave (already checked, as `parseWave` returns it). */
export const CRANK_MODEL_WAVE: Wave = {
  lanes: [
    {
      id: 'parser',
      scope: ['src/parser/**'],
      brief: 'Parse CRLF ledgers.',
      acceptance: ['npx vitest run test/parser'],
      regenSurfaces: [],
    },
    {
      id: 'docs',
      scope: ['docs/**'],
      brief: 'Document the ledger format.',
      acceptance: ['npx vitest run test/docs'],
      regenSurfaces: [],
    },
    {
      id: 'lexer',
      scope: ['src/parser/lexer/**'],
      brief: 'Tokenize quoted cells.',
      acceptance: ['npx vitest run test/lexer'],
      regenSurfaces: [],
    },
  ],
  repairRounds: 2,
  acceptance: ['npm test'],
};

function laneReturn(id: string, status: 'PASS' | 'FAIL'): LaneReturn {
  const digest = (id === 'parser' ? 'a' : id === 'docs' ? 'b' : 'c').repeat(64);
  return {
    terminal: status === 'PASS' ? 'converged' : 'repair_budget_exhausted',
    status,
    stopReason: status === 'PASS' ? 'converged' : 'repair_budget_exhausted',
    openFindings: status === 'PASS' ? [] : [{ id: `${id}:defect`, summary: 'still open' }],
    subjectDigest: digest,
    report: null,
    error: null,
    transcript: null,
  };
}

// A lane's outcome can only happen while its actor runs: a settled actor never reports twice.
function laneRunning(snapshot: CrankSnapshot, id: string): boolean {
  const context = snapshot.context as CrankContext;
  return context.started.includes(id) && !context.returned.includes(id);
}

function laneEvents(id: string) {
  const returns = [
    { output: laneReturn(id, 'PASS') as unknown as JsonValue },
    { output: laneReturn(id, 'FAIL') as unknown as JsonValue },
  ];
  const failures = [{ error: { code: 'internal', message: `lane ${id} crashed` } }];
  return {
    [`xstate.done.actor.lane.${id}`]: (snapshot: CrankSnapshot) => (laneRunning(snapshot, id) ? returns : []),
    [`xstate.error.actor.lane.${id}`]: (snapshot: CrankSnapshot) =>
      laneRunning(snapshot, id) ? failures : [],
  };
}

/**
 * What the crank guards read: which lanes started and which returned (sets, in caller order), and
 * whether the acceptance has a result.
 *
 * @param context the crank context
 */
export function projectCrank(context: CrankContext): JsonValue {
  const order = (ids: readonly string[]) =>
    context.lanes.map((lane) => lane.id).filter((id) => ids.includes(id));
  return {
    started: order(context.started),
    returned: order(context.returned),
    failedLanes: order(
      Object.values(context.evidence)
        .filter((e) => e.status === null)
        .map((e) => e.id),
    ),
    acceptance: context.acceptance === null ? null : context.acceptance.passed,
  };
}

/** The crank model. */
export const crankModel = defineMachineModel(crankMachine, {
  input: { wave: CRANK_MODEL_WAVE },
  events: {
    ...laneEvents('parser'),
    ...laneEvents('docs'),
    ...laneEvents('lexer'),
    'xstate.done.actor.runAcceptance': [
      { output: { passed: true, commands: ['npm test'], failure: null } },
      {
        output: {
          passed: false,
          commands: ['npm test'],
          failure: { command: 'npm test', exitCode: 1, logPath: null, tail: '1 failed' },
        },
      },
    ],
    'xstate.error.actor.runAcceptance': [
      { error: { code: 'internal', message: 'the acceptance could not start' } },
    ],
  },
  project: (snapshot: CrankSnapshot) => projectCrank(snapshot.context as CrankContext),
});
