import { SimulatedClock } from 'xstate';

/**
 * XState's {@link SimulatedClock} that also knows when its pending timers fire, so a test can
 * advance time exactly to the next timer instead of guessing a duration. Time only moves when the
 * test moves it.
 */
export class SteppingClock extends SimulatedClock {
  private readonly deadlines = new Map<number, number>();

  /** Arms a timer; its deadline is remembered until it fires or is cleared. */
  override setTimeout(fn: (...args: unknown[]) => void, timeout: number): number {
    let id = -1;
    id = super.setTimeout((...args: unknown[]) => {
      this.deadlines.delete(id);
      fn(...args);
    }, timeout);
    this.deadlines.set(id, this.now() + timeout);
    return id;
  }

  /** Disarms a timer. */
  override clearTimeout(id: number): void {
    this.deadlines.delete(id);
    super.clearTimeout(id);
  }

  /** The earliest deadline among pending timers, or `undefined` when none is pending. */
  nextDeadline(): number | undefined {
    let earliest: number | undefined;
    for (const deadline of this.deadlines.values()) {
      if (earliest === undefined || deadline < earliest) earliest = deadline;
    }
    return earliest;
  }

  /**
   * Moves time to the earliest pending deadline, firing every timer due by then.
   *
   * @returns false when no timer is pending (time does not move)
   */
  advanceToNextTimer(): boolean {
    const deadline = this.nextDeadline();
    if (deadline === undefined) return false;
    this.set(Math.max(deadline, this.now()));
    return true;
  }
}
