/**
 * The viewer page's stylesheet, inlined into the page (no network). The highlight classes act on
 * Graphviz's own shapes: a node or cluster `<g>` holds `path`/`polygon`/`ellipse` outlines, an
 * edge `<g>` holds the line (`path`) and its arrow head (`polygon`).
 */
export const VIEWER_CSS = `
:root { --active: #e8590c; --active-fill: #ffe8cc; --parent: #f59f00; --taken: #1971c2;
  --seen: #a5d8ff; --ink: #212529; --muted: #868e96; --line: #dee2e6; --panel: #f8f9fa; }
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; }
body { font: 13px/1.4 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: var(--ink);
  display: flex; flex-direction: column; height: 100vh; }
header { display: flex; gap: 16px; align-items: baseline; padding: 8px 14px; border-bottom: 1px solid var(--line); }
header h1 { font-size: 16px; margin: 0; }
header .source { color: var(--muted); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
#lc-controls { display: flex; gap: 6px; align-items: center; padding: 6px 14px; border-bottom: 1px solid var(--line);
  background: var(--panel); flex-wrap: wrap; }
#lc-controls button, #lc-controls select { font: inherit; padding: 3px 9px; border: 1px solid #ced4da;
  background: white; border-radius: 4px; cursor: pointer; }
#lc-controls button:disabled { color: #adb5bd; cursor: default; }
#lc-controls input[type=range] { flex: 1; min-width: 160px; }
#lc-position { min-width: 110px; font-variant-numeric: tabular-nums; font-weight: 600; }
#lc-warnings { margin: 0; padding: 6px 14px; background: #fff3bf; border-bottom: 1px solid #ffe066; }
#lc-warnings:empty { display: none; }
main { flex: 1 1 auto; display: grid; grid-template-columns: 1fr minmax(320px, 30%); min-height: 0; }
#lc-diagram { overflow: auto; min-height: 0; background: white; border-right: 1px solid var(--line); }
#lc-diagram svg { display: block; }
#lc-details { overflow: auto; padding: 10px 14px; background: var(--panel); min-height: 0; }
#lc-details h2 { font-size: 14px; margin: 4px 0 8px; }
#lc-details h3 { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted);
  margin: 14px 0 4px; }
#lc-details dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; margin: 0; }
#lc-details dt { color: var(--muted); }
#lc-details dd { margin: 0; overflow-wrap: anywhere; }
#lc-details ul { margin: 0; padding-left: 18px; }
#lc-details li { overflow-wrap: anywhere; }
#lc-details pre { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; }
#lc-details table { border-collapse: collapse; width: 100%; font-size: 12px; }
#lc-details td, #lc-details th { border: 1px solid var(--line); padding: 2px 5px; text-align: left; vertical-align: top; }
#lc-details .note { color: var(--muted); font-style: italic; }
.lc-transition { color: var(--taken); font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
#lc-timeline { flex: 0 0 30%; overflow: auto; border-top: 1px solid var(--line); min-height: 0; }
#lc-timeline table { border-collapse: collapse; width: 100%; font-size: 12px; }
#lc-timeline th { position: sticky; top: 0; background: #e9ecef; text-align: left; padding: 4px 8px; }
#lc-timeline td { padding: 3px 8px; border-bottom: 1px solid #f1f3f5; white-space: nowrap; }
#lc-timeline td.wide { white-space: normal; }
#lc-timeline tr { cursor: pointer; }
#lc-timeline tbody tr:hover { background: #f1f3f5; }
#lc-timeline tr.lc-session-even { background: #f3f0ff; }
#lc-timeline tr.lc-session-start td { background: #e5dbff; font-weight: 600; white-space: normal; cursor: default; }
#lc-timeline tr.lc-current { background: var(--active-fill); }
#lc-timeline .num { text-align: right; font-variant-numeric: tabular-nums; color: var(--muted); }
#lc-details .lc-stop-text { background: white; border: 1px solid var(--line); padding: 6px 8px; font-size: 12px; }
#lc-details .lc-stop h4 { font-size: 12px; margin: 8px 0 2px; }
#lc-details .lc-stop-menu { padding-left: 22px; }
#lc-details .lc-stop-menu code { font-size: 12px; }
.lc-badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 11px; background: #e9ecef; }
.lc-badge.stop, .lc-badge.fail { background: #ffc9c9; }
.lc-badge.pass, .lc-badge.continue { background: #d3f9d8; }
.lc-badge.pivot { background: #ffec99; }
.lc-badge.lc-leg { background: #d0ebff; margin-left: 4px; }
g.lc-seen > path, g.lc-seen > polygon, g.lc-seen > ellipse { fill: #f1f3f5; }
g.lc-seen-edge > path { stroke: var(--seen); stroke-width: 2px; }
g.lc-seen-edge > polygon { stroke: var(--seen); fill: var(--seen); }
g.lc-active-parent > path, g.lc-active-parent > polygon { stroke: var(--parent); stroke-width: 3px; fill: #fff9db; }
g.lc-active > path, g.lc-active > polygon, g.lc-active > ellipse { stroke: var(--active); stroke-width: 4px; fill: var(--active-fill); }
g.lc-active > text { font-weight: bold; }
g.lc-taken > path { stroke: var(--taken); stroke-width: 4px; }
g.lc-taken > polygon { stroke: var(--taken); fill: var(--taken); }
g.lc-taken > text { fill: var(--taken); font-weight: bold; }
.legend { display: flex; gap: 12px; color: var(--muted); margin-left: auto; }
.legend span::before { content: ""; display: inline-block; width: 10px; height: 10px; margin-right: 4px;
  vertical-align: -1px; border: 2px solid; }
.legend .l-active::before { border-color: var(--active); background: var(--active-fill); }
.legend .l-parent::before { border-color: var(--parent); background: #fff9db; }
.legend .l-taken::before { border-color: var(--taken); background: var(--taken); height: 2px; border-width: 1px; }
`;
