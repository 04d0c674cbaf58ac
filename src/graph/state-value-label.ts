import type { StateValue } from 'xstate';

/**
 * A state value as people write it: `idle`, `working.patching`, and for parallel states the
 * regions joined with `+` (`run.(build+test.unit)` style is avoided: `run.build+run.test.unit`).
 */
export function stateValueLabel(value: StateValue): string {
  if (typeof value === 'string') return value;
  const parts: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    if (child === undefined) continue;
    const inner = stateValueLabel(child as StateValue);
    parts.push(
      ...inner
        .split('+')
        .filter((part) => part !== '')
        .map((part) => `${key}.${part}`),
    );
    if (inner === '') parts.push(key);
  }
  return parts.join('+');
}
