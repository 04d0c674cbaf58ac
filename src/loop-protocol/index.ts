/**
 * The loop protocol contract, pure: the entry contract (schema, text form, infer-or-stop), the
 * noisy-metric baseline, progress, the continue / pivot / stop decision, the transcript record
 * every runner writes and the final report. See docs/loop-protocol.md.
 */

export * from './cycle-record.js';
export * from './design-contract.js';
export * from './entry-contract.js';
export * from './entry-contract-text.js';
export * from './final-report.js';
export * from './infer-or-stop.js';
export * from './noisy-baseline.js';
export * from './progress.js';
export * from './render-final-report.js';
export * from './schemas.js';
export * from './stop-rules.js';
export * from './time-or-cost-budget.js';
export * from './transcript.js';
export * from './transcript-record.js';
