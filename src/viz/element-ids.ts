/**
 * The `id` attributes toDot gives the drawn elements, so that tools over the SVG (the run viewer,
 * a host's own page) find a state or a transition without parsing Graphviz's `<title>` text,
 * which is the same for every edge between the same two states. Graphviz copies a DOT `id`
 * attribute verbatim onto the SVG `<g>` of the node, cluster or edge.
 */

/** The SVG element id of a state: its node, or its cluster when the state has children. */
export function stateElementId(stateId: string): string {
  return `state:${stateId}`;
}

/**
 * The SVG element id of one drawn edge of a transition: a transition with several targets (into
 * parallel regions) is drawn as one edge per target.
 *
 * @param key the transition key `<source id>|<event type>|<index>`
 * @param targetIndex position of the target in the transition's target list
 */
export function transitionElementId(key: string, targetIndex = 0): string {
  return `transition:${key}:${targetIndex}`;
}
