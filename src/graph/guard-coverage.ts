import type { AnyStateMachine } from 'xstate';
import { enumerateTransitions, type TransitionInfo } from './transitions.js';

/** One outcome of one guard that no step showed. */
export interface MissingGuardOutcome {
  /** The guarded transition's key. */
  readonly key: string;
  readonly source: string;
  readonly event: string;
  readonly index: number;
  readonly guard: string;
  readonly rule?: string;
  /** The outcome never observed. */
  readonly outcome: boolean;
}

/** Guard-outcome coverage of one machine (see {@link guardCoverage}). */
export interface GuardCoverage {
  readonly machine: string;
  /** Outcomes observed, out of two per guarded transition. */
  readonly covered: number;
  readonly total: number;
  readonly missing: readonly MissingGuardOutcome[];
}

/**
 * Guard-outcome coverage, MC/DC-style over each ordered fan of candidates (the transitions of one
 * source for one event type, `always` included, in document order). XState takes the first
 * candidate whose guard holds, so a step that took candidate `k`:
 *
 * - showed candidate `k`'s guard **true**;
 * - showed the guard of every guarded candidate `j < k` of the same fan **false** while `j` could
 *   have fired (its source was active and the event matched; the table's order was exercised).
 *
 * A guarded transition is covered when both outcomes were shown. The false outcome of a fan's last
 * candidate shows only as an event that took no transition, which inspection cannot see: name
 * such outcomes in `unobservable` with the reason, and they count as covered.
 *
 * @param machine the machine
 * @param taken transition keys taken by the runs (for example `run.collected().transitions`)
 * @param unobservable keys of guarded transitions whose false outcome no step can show, with why
 */
export function guardCoverage(
  machine: AnyStateMachine,
  taken: Iterable<string> | ReadonlyMap<string, number>,
  unobservable: Readonly<Record<string, string>> = {},
): GuardCoverage {
  const transitions = enumerateTransitions(machine);
  const takenKeys = new Set<string>(taken instanceof Map ? taken.keys() : (taken as Iterable<string>));
  const fans = new Map<string, TransitionInfo[]>();
  for (const t of transitions) {
    const fan = `${t.source}|${t.eventType}`;
    fans.set(fan, [...(fans.get(fan) ?? []), t]);
  }
  const missing: MissingGuardOutcome[] = [];
  let total = 0;
  for (const t of transitions) {
    if (t.guard === undefined) continue;
    total += 2;
    const fan = fans.get(`${t.source}|${t.eventType}`) ?? [];
    const shownTrue = takenKeys.has(t.key);
    const shownFalse =
      fan.some((later) => later.index > t.index && takenKeys.has(later.key)) || t.key in unobservable;
    const base = {
      key: t.key,
      source: t.source,
      event: t.event,
      index: t.index,
      guard: t.guard,
      ...(t.rule === undefined ? {} : { rule: t.rule }),
    };
    if (!shownTrue) missing.push({ ...base, outcome: true });
    if (!shownFalse) missing.push({ ...base, outcome: false });
  }
  return { machine: machine.id, covered: total - missing.length, total, missing };
}

/** `<machine>: guards covered N/M`. */
export function formatGuardLine(coverage: GuardCoverage): string {
  return `${coverage.machine}: guards covered ${coverage.covered}/${coverage.total}`;
}
