import { instance } from '@viz-js/viz';
import { VizRenderError } from './errors.js';

type Viz = Awaited<ReturnType<typeof instance>>;

// Graphviz compiles to WASM once per process; every render reuses the instance.
let vizInstance: Promise<Viz> | undefined;

/**
 * Renders DOT text to SVG with Graphviz (the `dot` layout) compiled to WASM, offline.
 *
 * @param dot DOT text, e.g. from {@link toDot}
 * @returns the SVG document
 * @throws VizRenderError with Graphviz's messages when the DOT text does not render
 */
export async function toSvg(dot: string): Promise<string> {
  vizInstance ??= instance();
  const viz = await vizInstance;
  const result = viz.render(dot, { format: 'svg', engine: 'dot' });
  if (result.status !== 'success') {
    throw new VizRenderError(result.errors.map((error) => error.message.trim()));
  }
  return result.output;
}
