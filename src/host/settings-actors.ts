/**
 * Host actors for the loop's settings (gauntlet-protocol §3.21): `resolveSettings` (the allowance
 * of a fresh ledger and `loopEngine.escalateAfter`, held for the run) and `resolveImplModel`
 * (`escalationLoop.implModel` for an escalated round or a verification repair). The host takes
 * them from its runner options; there is no in-loop default beyond the documented ones.
 */
import { fromPromise } from 'xstate';
import type { LoopSettings } from '../../machines/loop-implementation/index.js';
import { InputError } from '../common/errors.js';
import type { HostSession } from './host-session.js';

/** `escalateAfter` when the runner is given none (docs/decisions/host.md). */
export const DEFAULT_ESCALATE_AFTER = 2;

/**
 * `resolveSettings`: the runner's allowance and escalateAfter, checked.
 *
 * @throws InputError (`settings.invalid`) for an allowance below 1 or a negative escalateAfter;
 *   the machine then stops with the settings-unavailable configuration error
 */
export function resolveSettingsActor(session: HostSession) {
  return fromPromise<LoopSettings, Record<string, never>>(async () => {
    const { allowance, escalateAfter } = session.options;
    if (!Number.isSafeInteger(allowance) || allowance < 1)
      throw new InputError('settings.invalid', `the allowance must be a whole number >= 1, got ${allowance}`);
    if (!Number.isSafeInteger(escalateAfter) || escalateAfter < 0)
      throw new InputError(
        'settings.invalid',
        `escalateAfter must be a whole number >= 0, got ${escalateAfter}`,
      );
    return { allowance, escalateAfter };
  });
}

/** `resolveImplModel`: the runner's impl model, or `null` when none is configured. */
export function resolveImplModelActor(session: HostSession) {
  return fromPromise<{ model: string | null }, { row: number | 'verify' }>(async () => {
    const model = session.options.implModel;
    return { model: model === null || model.trim() === '' ? null : model.trim() };
  });
}
