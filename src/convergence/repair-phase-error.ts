import { InputError } from '../common/errors.js';

/** Codes of {@link RepairPhaseError}. */
export type RepairPhaseErrorCode =
  | 'repair-phase.no-rounds'
  | 'repair-phase.repair-rounds-invalid'
  | 'repair-phase.risky-surface-invalid'
  | 'repair-phase.already-stopped'
  | 'repair-phase.budget-remaining';

/**
 * Invalid arguments to the repair phase: no validation rounds, a `repairRounds` that is not a
 * non-negative integer, a `riskySurface` that is not a boolean, a round offered to a phase
 * that has already stopped, or a budget stop while budget remains. Malformed rounds throw `RoundShapeError` instead.
 */
export class RepairPhaseError extends InputError {
  declare readonly code: RepairPhaseErrorCode;

  /**
   * @param code which argument is wrong
   * @param message one sentence naming the value and what was expected
   */
  constructor(code: RepairPhaseErrorCode, message: string) {
    super(code, message);
  }
}
