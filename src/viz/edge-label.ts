import type { TransitionInfo } from '../graph/transitions.js';

/**
 * The parts of a transition's diagram label: the short event (`START`, `done: x`, `always`), the
 * guard in brackets, and the rule label (`R1 pass`). Renderers join them their own way.
 */
export function edgeLabelParts(transition: TransitionInfo): { event: string; guard?: string; rule?: string } {
  return {
    event: transition.event,
    ...(transition.guard === undefined ? {} : { guard: `[${transition.guard}]` }),
    ...(transition.rule === undefined ? {} : { rule: transition.rule }),
  };
}
