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

/** The evaluation-order number of a transition: its position among its source's candidates for
 * the same event, from 1; undefined when it is the only candidate (nothing to order). */
export function evaluationNumber(
  transition: TransitionInfo,
  candidates: ReadonlyMap<string, number>,
): number | undefined {
  const count = candidates.get(`${transition.source}|${transition.eventType}`) ?? 1;
  return count > 1 ? transition.index + 1 : undefined;
}

/** Options of {@link numberedLabelLines}. */
export interface NumberedLabelOptions {
  /** Leave out the word `always` (the edge is drawn dashed, which says it). */
  readonly omitAlways?: boolean;
  /** Leave out the rule labels (number, event and guard only), for the narrow Mermaid overview. */
  readonly compact?: boolean;
}

/** One transition on a merged edge, with where it starts or ends inside a stub box. */
export interface LabelItem {
  readonly transition: TransitionInfo;
  /** The source's path inside the stub box the edge starts at (`boundSpent`). */
  readonly from?: string;
  /** The target's path inside the stub box the edge ends at. */
  readonly to?: string;
}

interface LabelEntry {
  readonly number?: number;
  readonly from: string[];
  readonly events: string[];
  readonly tail: string;
  readonly to?: string;
}

/**
 * The label lines of a merged edge, one per transition in document order: the evaluation number
 * when the source has several candidates for the event (`1`, `2`, … in the order XState tries
 * them; an unguarded last candidate reads `otherwise`), the event, the `[guard]` and the rule
 * label. An edge from or to a stub box names the state inside it (`boundSpent: …`, `… → dirtyTree`).
 * Unnumbered transitions that differ only in their event share a line
 * (`human.retry, human.raise [choiceApplies]`), and lines that differ only in their source state
 * share one too (`rowAllowance, missingModel: human.stop`).
 *
 * @param items the transitions drawn as one edge, in document order
 * @param candidates number of candidates per `<source id>|<event type>`
 */
export function numberedLabelLines(
  items: readonly LabelItem[],
  candidates: ReadonlyMap<string, number>,
  options: NumberedLabelOptions = {},
): string[] {
  const entries: LabelEntry[] = [];
  for (const { transition, from, to } of items) {
    const { event, guard, rule } = edgeLabelParts(transition);
    const number = evaluationNumber(transition, candidates);
    let tail = [guard, options.compact ? undefined : rule].filter((part) => part !== undefined).join(' ');
    let shownEvent = event;
    if (transition.kind === 'always' && options.omitAlways && (tail !== '' || number !== undefined)) {
      shownEvent = '';
      if (tail === '') tail = 'otherwise';
    }
    const entry: LabelEntry = {
      ...(number === undefined ? {} : { number }),
      from: from === undefined ? [] : [from],
      events: shownEvent ? [shownEvent] : [],
      tail,
      ...(to === undefined ? {} : { to }),
    };
    const previous = entries.at(-1);
    if (
      number === undefined &&
      previous !== undefined &&
      previous.number === undefined &&
      shownEvent !== '' &&
      previous.events.length > 0 &&
      previous.tail === tail &&
      previous.to === to &&
      previous.from.join() === entry.from.join()
    ) {
      if (!previous.events.includes(shownEvent)) previous.events.push(shownEvent);
      continue;
    }
    entries.push(entry);
  }
  // Lines that differ only in their source inside the stub share one line.
  const merged: LabelEntry[] = [];
  for (const entry of entries) {
    const same = merged.find(
      (other) =>
        entry.number === undefined &&
        other.number === undefined &&
        entry.from.length > 0 &&
        other.from.length > 0 &&
        other.events.join() === entry.events.join() &&
        other.tail === entry.tail &&
        other.to === entry.to,
    );
    if (same === undefined) merged.push(entry);
    else for (const source of entry.from) if (!same.from.includes(source)) same.from.push(source);
  }
  return merged.map((entry) => {
    const body = [
      entry.number === undefined ? undefined : String(entry.number),
      entry.events.join(', '),
      entry.tail,
    ]
      .filter((part) => part !== undefined && part !== '')
      .join(' ');
    const prefix = entry.from.length > 0 ? `${entry.from.join(', ')}: ` : '';
    return `${prefix}${body}${entry.to === undefined ? '' : ` → ${entry.to}`}`;
  });
}

/**
 * Breaks a label line into lines of at most `width` characters at spaces (a longer word stays
 * whole); continuation lines are indented by two spaces.
 */
export function wrapLabelLine(line: string, width: number): string[] {
  const words = line.split(' ');
  const lines: string[] = [];
  let current = '';
  for (const word of words) {
    const candidate = current === '' ? word : `${current} ${word}`;
    if (candidate.length > width && current !== '' && current.trim() !== '') {
      lines.push(current);
      current = `  ${word}`;
    } else current = candidate;
  }
  if (current !== '') lines.push(current);
  return lines;
}
