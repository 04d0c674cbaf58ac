/**
 * The continue / pivot / stop table evaluated before another cycle: one ordered list of guarded
 * `always` transitions whose descriptions carry the rule labels (S1..S11), in `STOP_RULE_ORDER`.
 */
import type { ContinuationDecision, StopRule } from '../../src/loop-protocol/stop-rules.js';
import { loopProtocolSetup } from './setup.js';

/** One row of the continue / pivot / stop table. */
function rule(
  label: string,
  decision: ContinuationDecision['decision'],
  name: StopRule | 'progress-made' | 'within-patience',
  target: string,
) {
  return {
    description: label,
    guard: { type: 'decided' as const, params: { decision, rule: name } },
    target,
    actions: 'recordDecision' as const,
  };
}

/** The ordered continue / pivot / stop table (`STOP_RULE_ORDER`), one guarded row each. */
export const decidingState = loopProtocolSetup.createStateConfig({
  description: '7. Evaluate every terminal condition before another cycle (STOP_RULE_ORDER).',
  always: [
    rule('S1 user-cancelled', 'stop', 'user-cancelled', 'stopped'),
    rule('S2 source-lost', 'stop', 'source-lost', 'stopped'),
    rule('S3 rollback-boundary-overlap', 'stop', 'rollback-boundary-overlap', 'stopped'),
    rule('S4 success', 'stop', 'success', 'stopped'),
    rule('S5 terminal-failure', 'stop', 'terminal-failure', 'stopped'),
    rule('S6 scope-needs-broadening', 'stop', 'scope-needs-broadening', 'stopped'),
    rule('S7 budget-exhausted', 'stop', 'budget-exhausted', 'stopped'),
    rule('S8 no-wakeup', 'stop', 'no-wakeup', 'stopped'),
    {
      ...rule('S9 plateau: pivot', 'pivot', 'plateau', 'cycle'),
      actions: ['recordDecision', 'pivot'],
    },
    rule('S9 plateau: stop', 'stop', 'plateau', 'stopped'),
    {
      ...rule('S10 repeated-error: pivot', 'pivot', 'repeated-error', 'cycle'),
      actions: ['recordDecision', 'pivot'],
    },
    rule('S10 repeated-error: stop', 'stop', 'repeated-error', 'stopped'),
    rule('S11 no-permitted-action', 'stop', 'no-permitted-action', 'stopped'),
    {
      ...rule('continue: progress made', 'continue', 'progress-made', 'cycle'),
      actions: ['recordDecision', 'nextCycle'],
    },
    {
      ...rule('continue: within patience', 'continue', 'within-patience', 'cycle'),
      actions: ['recordDecision', 'nextCycle'],
    },
  ],
});
