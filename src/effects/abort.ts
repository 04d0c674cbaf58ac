/**
 * Cancellation shared by the effects: every effect that starts a process takes an optional
 * `AbortSignal` (XState passes one to each promise actor and aborts it when the actor stops), and a
 * host may add a run-wide one (Ctrl-C). Aborting kills the process group of what runs; no new
 * process starts after an abort.
 */
import { LoopchartError } from '../common/errors.js';

/**
 * One signal that aborts when any of the given ones does; `undefined` when none is given.
 *
 * @param signals signals, `undefined` entries ignored
 */
export function anySignal(...signals: readonly (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  if (present.length === 0) return undefined;
  if (present.length === 1) return present[0];
  return AbortSignal.any(present);
}

/** An effect was stopped through its abort signal (its actor was stopped, or the run interrupted). */
export class EffectAbortedError extends LoopchartError {
  /** @param what the effect, e.g. `validator \`npm test\`` */
  constructor(what: string) {
    super('effects.aborted', `${what} was stopped: its actor was stopped or the run was interrupted`);
  }
}

/**
 * Throws {@link EffectAbortedError} when the signal has aborted: called before an effect starts a
 * process or writes anything, so a stopped actor starts nothing new.
 *
 * @param signal the effect's signal (nothing happens without one)
 * @param what the effect, for the message
 */
export function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw new EffectAbortedError(what);
}

/** Spreads `{ signal }` into an options object only when a signal is given. */
export function signalOption(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal === undefined ? {} : { signal };
}
