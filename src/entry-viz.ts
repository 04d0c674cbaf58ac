/**
 * `loopchart/viz`: diagrams (DOT, Mermaid, SVG through Graphviz WASM, JSON) and the run viewer.
 * Loads @viz-js only when an SVG is rendered through this entry.
 */

export type { CoverageOverlay } from './viz/coverage-overlay.js';
export * from './viz/diagram-format.js';
export * from './viz/dot.js';
export * from './viz/element-ids.js';
export * from './viz/errors.js';
export * from './viz/load-machine.js';
export * from './viz/machine-json.js';
export * from './viz/mermaid.js';
export * from './viz/svg.js';
export * from './viz/viewer/page.js';
export * from './viz/viewer/run-view.js';
export * from './viz/viewer/serve.js';
export * from './viz/viewer/transcript-page.js';
