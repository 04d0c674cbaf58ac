/**
 * The diagram set of a machine, as `loopchart generate` commits it under visualizations/ and
 * `loopchart viz --view all` writes it: the overview (`<machine>.svg`, `.dot`, `.mmd`) and one
 * SVG and DOT per region (`<machine>.<region>.svg`, `.dot`), each laid out in the direction that
 * keeps it within {@link SVG_MAX_WIDTH_PX}.
 */
import type { AnyStateMachine } from 'xstate';
import { type DiagramView, machineRegions, overviewView, regionView } from './diagram-view.js';
import { viewToDot } from './dot.js';
import { viewToMermaid } from './mermaid.js';
import { toSvg } from './svg.js';

/** Widest a committed SVG may render at its natural size, in CSS pixels. */
export const SVG_MAX_WIDTH_PX = 1600;

/**
 * Widest a committed Mermaid diagram may render, in CSS pixels: the content column GitHub gives a
 * Markdown file (1,012 px at most), so the diagram is shown at its natural size, never shrunk.
 */
export const MERMAID_MAX_WIDTH_PX = 1012;

/** One view rendered: its DOT and SVG in the chosen direction. */
export interface RenderedView {
  readonly view: DiagramView;
  readonly rankdir: 'LR' | 'TB';
  readonly dot: string;
  readonly svg: string;
}

/** Width of a Graphviz SVG in CSS pixels (Graphviz writes `width="<n>pt"`; 1 pt = 4/3 px). */
export function svgWidthPx(svg: string): number {
  const match = /<svg[^>]*\swidth="([\d.]+)pt"/.exec(svg);
  return match === null ? Number.POSITIVE_INFINITY : (Number(match[1]) * 4) / 3;
}

/**
 * Renders a view left to right when that fits {@link SVG_MAX_WIDTH_PX}, else top to bottom when
 * that fits, else whichever is narrower (the browser test then names the diagram to split).
 *
 * @throws VizRenderError when Graphviz cannot render it
 */
export async function renderView(view: DiagramView): Promise<RenderedView> {
  const render = async (rankdir: 'LR' | 'TB'): Promise<RenderedView> => {
    const dot = viewToDot(view, { rankdir });
    const svg = await toSvg(dot);
    return { view, rankdir, dot, svg: svg.endsWith('\n') ? svg : `${svg}\n` };
  };
  const lr = await render('LR');
  if (svgWidthPx(lr.svg) <= SVG_MAX_WIDTH_PX) return lr;
  const tb = await render('TB');
  return svgWidthPx(tb.svg) <= svgWidthPx(lr.svg) ? tb : lr;
}

/** Every view of a machine: the overview first, then its regions in document order. */
export function machineViews(machine: AnyStateMachine): DiagramView[] {
  return [
    overviewView(machine),
    ...machineRegions(machine).map((region) => regionView(machine, region.name)),
  ];
}

/** The file stem of a view: `<machine>` for the overview, `<machine>.<region>` for a region. */
export function viewFileStem(name: string, view: DiagramView): string {
  return view.name === 'overview' || view.name === 'full' ? name : `${name}.${view.name}`;
}

/**
 * The diagram files of one machine, paths relative to `dir`: overview `.dot`, `.mmd`, `.svg`,
 * then per region `.dot` and `.svg`. Mermaid is committed for the overview only: it is the one
 * GitHub renders inline (docs/machines.md), and a region's Mermaid layout can exceed the column.
 */
export async function machineDiagramFiles(
  name: string,
  machine: AnyStateMachine,
  dir = 'visualizations',
): Promise<{ path: string; content: string }[]> {
  const files: { path: string; content: string }[] = [];
  for (const view of machineViews(machine)) {
    const rendered = await renderView(view);
    const stem = `${dir}/${viewFileStem(name, view)}`;
    files.push({ path: `${stem}.dot`, content: rendered.dot });
    if (view.name === 'overview')
      files.push({ path: `${stem}.mmd`, content: viewToMermaid(overviewView(machine, { compact: true })) });
    files.push({ path: `${stem}.svg`, content: rendered.svg });
  }
  return files;
}
