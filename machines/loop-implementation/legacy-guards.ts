/**
 * Guards of the legacy `cap:` ledger migration at restore (legacy.ts), kept apart from the state
 * configs so the machine's guard table can import them without an import cycle.
 */
import { type LegacyAllowance, legacyAllowance } from '../../src/gauntlet/legacy-allowance.js';
import type { LoopContext } from './context.js';

/** What the ledger on disk needs at restore. */
export function legacyOf(context: LoopContext): LegacyAllowance {
  const text = context.workspace?.ledgerText ?? null;
  return text === null ? { kind: 'current' } : legacyAllowance(text);
}

/** Guards of the migration, spread into the machine's guards. */
export const legacyGuards = {
  /** The ledger on disk carries `cap:` and no `allowance:`, and migrates cleanly. */
  legacyCapLedger: ({ context }: { context: LoopContext }) => legacyOf(context).kind === 'migrate',
  /** The ledger on disk carries `cap:` and no `allowance:` but cannot be migrated. */
  legacyCapInvalid: ({ context }: { context: LoopContext }) => legacyOf(context).kind === 'invalid',
};
