import { LoopchartError } from '../common/errors.js';
import { finding } from '../common/finding.js';

/** Graphviz could not render a DOT text (code `viz.render.failed`); findings carry its messages. */
export class VizRenderError extends LoopchartError {
  constructor(messages: readonly string[]) {
    super(
      'viz.render.failed',
      'Graphviz could not render the diagram',
      messages.map((message) => finding('viz.graphviz', 0, message)),
    );
  }
}
