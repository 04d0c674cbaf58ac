/**
 * Guard outcomes that no generated step can show, per registered machine, with the reason. A
 * step shows a guard false only when a later candidate of the same ordered fan is taken (see
 * guardCoverage); the false outcome of a fan's last guarded candidate would be an event that
 * takes no transition, which inspection cannot see. Each entry says why that outcome is impossible
 * or where a test shows it.
 */
export const unobservableGuardOutcomes: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'loop-implementation': {
    'loop-implementation.implement.validating||6':
      'impossible: the verdict is exactly one of interrupted, unattributed, companion miss, seed miss, row miss, companion admitted or admitted, so admitted holds whenever the six rows before it fail',
    ...Object.fromEntries(
      [
        'rowAllowance',
        'missingModel',
        'seedExhaustion',
        'boundSpent',
        'unreachableAmend',
        'specAmend',
        'repeatedEvidence',
        'redraw',
      ].flatMap((stop) =>
        ['human.retry', 'human.raise', 'human.amend'].map((event) => [
          `loop-implementation.humanStop.${stop}|${event}|0`,
          'a refused reply takes no transition; test/model/loop-implementation.guards.test.ts sends one at every stop and sees the stop kept',
        ]),
      ),
    ),
    'loop-implementation.humanStop.verificationFailed|human.amend|1':
      'a refused reply takes no transition; test/model/loop-implementation.guards.test.ts sends one at the verification stop and sees the stop kept',
  },
  crank: {
    'crank.lanes|xstate.done.actor.lane.*|1':
      'impossible: a lane reports only while it runs, so when it was not the last lane another lane still runs',
    'crank.lanes|xstate.error.actor.lane.*|1':
      'impossible: a lane reports only while it runs, so when it was not the last lane another lane still runs',
  },
  'cybernetic-loop': {
    'cybernetic-loop.candidate.deciding||7':
      'impossible: after the six verdict rows a continuing run is either kept or reverted, and keep is the row before',
  },
  'loop-protocol': {
    'loop-protocol.deciding||14':
      'impossible: decideContinuation answers exactly one row, and within-patience is what remains when no stop, pivot or progress row holds',
  },
};
