/**
 * loopchart: bounded agent repair loops as XState statecharts.
 *
 * The public API. Each export is documented where it is defined; docs/api.md is the overview.
 */

export {
  InputError,
  LedgerFormatError,
  LoopchartError,
  NotProvidedError,
  SpecFormatError,
  UsageError,
} from './common/errors.js';
export type { Finding } from './common/finding.js';
export { finding, formatFindings } from './common/finding.js';
export * from './gauntlet/types.js';
