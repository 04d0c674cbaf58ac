/**
 * `loopchart/testing`: model-based testing over the machines: transition and state enumeration,
 * path suites, coverage, controlled actors and the machines' models. Needs the `@xstate/graph`
 * peer dependency; `eventSequenceArbitrary` takes the caller's fast-check (peer dependency).
 */

export * from './graph/arbitraries.js';
export * from './graph/assertion-tally.js';
export * from './graph/controlled-actors.js';
export * from './graph/coverage.js';
export * from './graph/coverage-format.js';
export * from './graph/coverage-report.js';
export * from './graph/coverage-report-schema.js';
export * from './graph/errors.js';
export * from './graph/guard-coverage.js';
export type { TransitionKind } from './graph/labels.js';
export * from './graph/machine-model.js';
export { models } from './graph/models/index.js';
export { loopImplementationModel, loopProjection } from './graph/models/loop-implementation.js';
export * from './graph/path-suite.js';
export * from './graph/path-suite-schema.js';
export * from './graph/run-path.js';
export * from './graph/run-path-suite.js';
export * from './graph/states.js';
export * from './graph/stepping-clock.js';
export * from './graph/transitions.js';
