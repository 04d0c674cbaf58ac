/**
 * loopchart: bounded agent repair loops as XState statecharts.
 *
 * The package root re-exports what a host needs most: the pure protocol cores
 * (`loopchart/core`), the statecharts (`loopchart/machines`) and the runners and effects
 * (`loopchart/host`). Model-based testing is `loopchart/testing`; diagrams and the viewer are
 * `loopchart/viz`. docs/api.md is the overview; every export is documented where it is defined.
 */

export * from './entry-core.js';
export * from './entry-host.js';
export * from './entry-machines.js';
