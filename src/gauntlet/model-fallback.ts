/**
 * The escalated model's resolution (§3.21, `escalationLoop`): the configured `implModel`, or, when
 * it is unset or blank, the configured main-loop model. Only when neither exists does an escalated
 * round or a verification repair take the missing-model stop. Pure.
 */

/**
 * The model an escalated round or a verification repair runs with.
 *
 * @param implModel `escalationLoop.implModel` as configured (`null`/blank when unset)
 * @param mainModel the main-loop model as configured (`null`/blank when unset)
 * @returns the trimmed model, or `null` when neither is set
 */
export function effectiveImplModel(
  implModel: string | null | undefined,
  mainModel: string | null | undefined,
): string | null {
  for (const model of [implModel, mainModel]) {
    const trimmed = model?.trim() ?? '';
    if (trimmed !== '') return trimmed;
  }
  return null;
}
