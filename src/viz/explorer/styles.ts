/** The explorer's stylesheet, added to the run viewer's (same highlight classes). */
export const EXPLORER_CSS = `
#ex-controls { display: flex; gap: 6px; align-items: center; padding: 6px 14px; border-bottom: 1px solid var(--line);
  background: var(--panel); flex-wrap: wrap; }
#ex-controls button, #ex-controls select, header select { font: inherit; padding: 3px 9px; border: 1px solid #ced4da;
  background: white; border-radius: 4px; cursor: pointer; max-width: 40em; }
#ex-controls button:disabled { color: #adb5bd; cursor: default; }
#ex-position, #ex-live-status { font-variant-numeric: tabular-nums; font-weight: 600; }
#ex-mode { color: var(--muted); }
#ex-errors { margin: 0; padding: 6px 14px; background: #ffe3e3; border-bottom: 1px solid #ffa8a8; }
#ex-errors:empty { display: none; }
#ex-diagram { overflow: auto; min-height: 0; background: white; border-right: 1px solid var(--line); }
#ex-diagram svg { display: block; }
#ex-panel { overflow: auto; padding: 10px 14px; background: var(--panel); min-height: 0; }
#ex-panel h2 { font-size: 15px; margin: 4px 0 8px; font-family: ui-monospace, Menlo, Consolas, monospace; }
#ex-panel h3 { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 14px 0 4px; }
#ex-panel pre { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; }
#ex-panel ul, #ex-panel ol { margin: 0; padding-left: 18px; }
#ex-panel .note { color: var(--muted); font-style: italic; margin: 2px 0; }
#ex-panel table { border-collapse: collapse; width: 100%; font-size: 12px; }
#ex-panel td, #ex-panel th { border: 1px solid var(--line); padding: 2px 5px; text-align: left; vertical-align: top; }
#ex-guards tr.ex-pass td:nth-child(4) { background: #d3f9d8; }
#ex-guards tr.ex-fail td:nth-child(4) { background: #ffc9c9; }
.ex-event-group { margin: 4px 0 8px; }
.ex-event-type { font-family: ui-monospace, Menlo, Consolas, monospace; font-weight: 600; }
.ex-event-group button { display: block; width: 100%; text-align: left; margin: 2px 0; padding: 3px 6px; font: 12px ui-monospace, Menlo, Consolas, monospace;
  border: 1px solid #ced4da; background: white; border-radius: 4px; cursor: pointer; overflow-wrap: anywhere; }
.ex-event-group button:hover { background: var(--active-fill); }
.ex-end-text { background: white; border: 1px solid var(--line); padding: 6px; }
g.ex-covered > path { stroke: #2f9e44; }
g.ex-covered > polygon { stroke: #2f9e44; fill: #2f9e44; }
g.ex-uncovered > path, g.ex-uncovered > polygon, g.ex-uncovered > ellipse { stroke: #e03131; stroke-dasharray: 5 3; stroke-width: 2px; }
`;
