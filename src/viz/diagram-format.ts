/**
 * One rendering of a machine in one of the formats `loopchart viz` offers, with the same file
 * extensions `loopchart generate` uses under visualizations/ (`.svg`, `.dot`, `.mmd`,
 * `.xstate.json`, `.scxml`) plus `.json`.
 */
import type { AnyStateMachine } from 'xstate';
import type { CoverageOverlay } from './coverage-overlay.js';
import { toDot } from './dot.js';
import { machineToJson } from './machine-json.js';
import { toMermaid } from './mermaid.js';
import { toScxml } from './scxml.js';
import { toSvg } from './svg.js';
import { toXStateJson } from './xstate-json.js';

/**
 * The diagram formats, in the order help texts list them: drawings (`svg`, `dot`, `mermaid`),
 * loopchart's JSON description (`json`), and the interchange formats other statechart tools read
 * (`xstate-json`: a `createMachine` configuration; `scxml`: W3C SCXML 1.0).
 */
export const DIAGRAM_FORMATS = ['svg', 'dot', 'mermaid', 'json', 'xstate-json', 'scxml'] as const;

/** A diagram format. */
export type DiagramFormat = (typeof DIAGRAM_FORMATS)[number];

/** The file extension of each format (Mermaid's is `.mmd`, as under visualizations/). */
export const DIAGRAM_EXTENSIONS: Readonly<Record<DiagramFormat, string>> = {
  svg: 'svg',
  dot: 'dot',
  mermaid: 'mmd',
  json: 'json',
  'xstate-json': 'xstate.json',
  scxml: 'scxml',
};

/**
 * True for the formats that draw a coverage overlay (Mermaid cannot colour one edge: G25; the
 * interchange formats describe the machine only).
 */
export function formatDrawsCoverage(format: DiagramFormat): boolean {
  return format === 'svg' || format === 'dot' || format === 'json';
}

/**
 * Renders `machine` in `format`. A coverage overlay colours uncovered transitions and unentered
 * states red in DOT and SVG; JSON carries the overlay as a `coverage` field; Mermaid, xstate-json
 * and SCXML ignore it.
 *
 * @returns the text, ending with a newline
 * @throws MachineShapeError when `machine` is not a machine
 * @throws VizRenderError when Graphviz cannot render the SVG
 * @throws ScxmlExportError when an event or id of the machine cannot be written as SCXML
 */
export async function renderDiagram(
  machine: AnyStateMachine,
  format: DiagramFormat,
  coverage?: CoverageOverlay,
): Promise<string> {
  const options = coverage === undefined ? {} : { coverage };
  switch (format) {
    case 'dot':
      return toDot(machine, options);
    case 'svg': {
      const svg = await toSvg(toDot(machine, options));
      return svg.endsWith('\n') ? svg : `${svg}\n`;
    }
    case 'mermaid':
      return toMermaid(machine);
    case 'json':
      return `${JSON.stringify({ ...machineToJson(machine), ...(coverage === undefined ? {} : { coverage }) }, null, 2)}\n`;
    case 'xstate-json':
      return toXStateJson(machine);
    case 'scxml':
      return toScxml(machine);
  }
}
