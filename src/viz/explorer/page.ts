/**
 * The explorer page: the machine's SVG, a panel for the current state (events with the model's
 * payload cases, guards of the last step, the core's verdicts, the projection, the actors) and
 * history / path / coverage controls. Everything is inline; the page only talks to the server
 * that served it (`connect-src 'self'`), which computes every step.
 */
import { escapeHtml, inlineSvg, scriptSafeJson } from '../viewer/page.js';
import { VIEWER_CSS } from '../viewer/styles.js';
import { EXPLORER_SCRIPT } from './script.js';
import { EXPLORER_CSS } from './styles.js';

/** The page may call back only the server that served it. */
export const EXPLORER_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; connect-src 'self'";

/** What the page is built from. */
export interface ExplorerPageOptions {
  /** The machine shown. */
  readonly machine: string;
  /** Every machine the server can explore, for the picker. */
  readonly machines: readonly string[];
  /** The machine's SVG as toSvg(toDot(machine)) renders it. */
  readonly svg: string;
  /** `live`: follow a running actor over `/live` instead of simulating. */
  readonly mode: 'simulate' | 'live';
}

/** Renders the explorer page. */
export function renderExplorerPage(options: ExplorerPageOptions): string {
  const config = { machine: options.machine, machines: options.machines, mode: options.mode };
  const picker = options.machines
    .map(
      (name) =>
        `<option value="${escapeHtml(name)}"${name === options.machine ? ' selected' : ''}>${escapeHtml(name)}</option>`,
    )
    .join('');
  const live = options.mode === 'live';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${EXPLORER_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="loopchart explore">
<title>loopchart explore: ${escapeHtml(options.machine)}</title>
<style>${VIEWER_CSS}${EXPLORER_CSS}</style>
</head>
<body data-machine="${escapeHtml(options.machine)}" data-mode="${options.mode}">
<header>
<h1>loopchart explore</h1>
<label>machine <select id="ex-machine"${live ? ' disabled' : ''}>${picker}</select></label>
<span id="ex-mode">${live ? 'live run' : 'simulation: the path generator&#39;s pure steps'}</span>
<span class="legend"><span class="l-active">current state</span><span class="l-parent">enclosing state</span><span class="l-taken">last transition</span></span>
</header>
<div id="ex-controls" role="toolbar" aria-label="explorer controls">
${
  live
    ? '<span id="ex-live-status" aria-live="polite">connecting…</span>'
    : `<button id="ex-reset" type="button" title="back to the initial state">« reset</button>
<button id="ex-back" type="button" title="step back (←)">◀ back</button>
<button id="ex-forward" type="button" title="step forward (→)">forward ▶</button>
<span id="ex-position" aria-live="polite"></span>
<label>path <select id="ex-path"><option value="">(generate the path suite…)</option></select></label>
<button id="ex-load" type="button">load path</button>
<label><input id="ex-coverage" type="checkbox"> coverage</label>
<span id="ex-coverage-summary"></span>`
}
<label>zoom <select id="ex-zoom"><option value="region" selected>region</option><option value="fit">fit</option><option value="0.5">50%</option><option value="0.75">75%</option><option value="1">100%</option></select></label>
</div>
<ul id="ex-errors" role="alert"></ul>
<main>
<div id="ex-diagram">${inlineSvg(options.svg)}</div>
<aside id="ex-panel" aria-label="state details">
<h2 id="ex-state"></h2>
${
  live
    ? ''
    : '<section><h3>Events this state accepts</h3><p class="note">each button sends the event with one of the model&#39;s payload cases</p><div id="ex-events"></div></section>'
}
<section><h3 id="ex-last-title">Last step</h3><div id="ex-last"></div></section>
<section><h3>Guards evaluated</h3><table id="ex-guards"><thead><tr><th>#</th><th>guard</th><th>rule</th><th>outcome</th><th>why</th></tr></thead><tbody></tbody></table></section>
<section><h3>Context projection</h3><pre id="ex-projection"></pre></section>
${live ? '' : '<section><h3>The core&#39;s verdicts</h3><pre id="ex-explanation"></pre></section>'}
<section><h3>Actors invoked</h3><ul id="ex-actors"></ul></section>
${live ? '<section><h3>Run so far</h3><ol id="ex-live-feed"></ol></section>' : ''}
</aside>
</main>
<script id="ex-config" type="application/json">${scriptSafeJson(config)}</script>
<script>${EXPLORER_SCRIPT}</script>
</body>
</html>
`;
}
