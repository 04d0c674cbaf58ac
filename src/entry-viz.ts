/**
 * `loopchart/viz`: diagrams (DOT, Mermaid, SVG through Graphviz WASM, JSON), the interchange
 * formats (`toXStateJson`: a `createMachine` configuration; `toScxml`: W3C SCXML 1.0), the run
 * viewer and the explorer (simulation and live inspection).
 * Loads @viz-js only when an SVG is rendered through this entry.
 */

export type { CoverageOverlay } from './viz/coverage-overlay.js';
export * from './viz/diagram-format.js';
export * from './viz/dot.js';
export * from './viz/element-ids.js';
export * from './viz/errors.js';
export * from './viz/explorer/live.js';
export * from './viz/explorer/page.js';
export * from './viz/explorer/server.js';
export * from './viz/explorer/session.js';
export type * from './viz/explorer/step-view.js';
export * from './viz/load-machine.js';
export * from './viz/machine-json.js';
export * from './viz/mermaid.js';
export * from './viz/scxml.js';
export * from './viz/svg.js';
export * from './viz/viewer/page.js';
export * from './viz/viewer/run-view.js';
export * from './viz/viewer/serve.js';
export * from './viz/viewer/transcript-page.js';
export * from './viz/xstate-json.js';
