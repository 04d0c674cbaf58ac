/**
 * The run viewer page: one self-contained HTML document with the machine's SVG, the transcript as
 * a timeline, the details of the current record and step / play / jump controls. Everything is
 * inline and a Content-Security-Policy of `default-src 'none'` forbids the page any network
 * request, so it opens the same from a file, a CI artifact or `loopchart view --serve`.
 */
import type { RunView } from './run-view.js';
import { VIEWER_SCRIPT } from './script.js';
import { VIEWER_CSS } from './styles.js';

/** The Content-Security-Policy of the page: inline style and script, nothing fetched. */
export const VIEWER_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:";

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * JSON that is safe inside `<script type="application/json">`: `<` is escaped so no string in the
 * transcript can close the script element; U+2028/2029 are escaped for old parsers.
 */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Graphviz's SVG document without the XML declaration, DOCTYPE and comments, to inline in HTML. */
export function inlineSvg(svg: string): string {
  const start = svg.indexOf('<svg');
  if (start < 0) throw new Error('not an SVG document: no <svg> element');
  return svg
    .slice(start)
    .replace(/<!--[\s\S]*?-->/g, '')
    .trim();
}

/**
 * Renders the viewer page.
 *
 * @param view the transcript resolved against its machine ({@link buildRunView})
 * @param svg the machine's SVG as toSvg(toDot(machine)) renders it (element ids included)
 * @returns the HTML document
 */
export function renderViewerPage(view: RunView, svg: string): string {
  const title = `${view.machine} run: ${view.source}`;
  const warnings = view.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${VIEWER_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="loopchart view">
<title>${escapeHtml(title)}</title>
<style>${VIEWER_CSS}</style>
</head>
<body data-machine="${escapeHtml(view.machine)}" data-steps="${view.steps.length}">
<header>
<h1>${escapeHtml(view.machine)}</h1>
<span class="source" title="${escapeHtml(view.source)}">${escapeHtml(view.source)}: ${view.steps.length} records</span>
<span class="legend"><span class="l-active">active state</span><span class="l-parent">enclosing state</span><span class="l-taken">transition taken</span></span>
</header>
<div id="lc-controls" role="toolbar" aria-label="run controls">
<button id="lc-first" type="button" title="first record (Home)">« first</button>
<button id="lc-prev" type="button" title="previous record (←)">◀ prev</button>
<button id="lc-play" type="button" title="play / pause (space)">▶ play</button>
<button id="lc-next" type="button" title="next record (→)">next ▶</button>
<button id="lc-last" type="button" title="last record (End)">last »</button>
<span id="lc-position" aria-live="polite"></span>
<input id="lc-range" type="range" min="0" max="0" value="0" aria-label="jump to record">
<label>speed <select id="lc-speed"><option value="2000">slow</option><option value="1000" selected>normal</option><option value="300">fast</option></select></label>
<label>zoom <select id="lc-zoom" title="region: fit the top-level state holding the active one"><option value="region" selected>region</option><option value="fit">fit</option><option value="0.25">25%</option><option value="0.5">50%</option><option value="0.75">75%</option><option value="1">100%</option></select></label>
</div>
<ul id="lc-warnings">${warnings}</ul>
<main>
<div id="lc-diagram">${inlineSvg(svg)}</div>
<aside id="lc-details" aria-label="record details"></aside>
</main>
<div id="lc-timeline">
<table><thead><tr><th>#</th><th>cycle</th><th>time</th><th>event</th><th>state</th><th>transitions</th><th>outcome</th></tr></thead>
<tbody id="lc-timeline-body"></tbody></table>
</div>
<script id="lc-run" type="application/json">${scriptSafeJson(view)}</script>
<script>${VIEWER_SCRIPT}</script>
</body>
</html>
`;
}
