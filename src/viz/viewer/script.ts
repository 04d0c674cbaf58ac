/**
 * The viewer page's script, inlined into the page as plain ES2020 (no bundler, no network). It
 * reads the run view from the page's `application/json` block and, at each step, puts classes on
 * the SVG elements the run view names: `lc-active` on the active leaf states, `lc-active-parent`
 * on their enclosing clusters, `lc-taken` on the edges of the transitions taken, `lc-seen` /
 * `lc-seen-edge` on what earlier steps visited. Transcript text is untrusted: it is only ever set
 * with `textContent`, never parsed as HTML.
 *
 * Kept as a string rather than compiled from TypeScript so the bundler cannot rename or wrap it.
 */
import { ZOOM_SCRIPT } from './zoom.js';

export const VIEWER_SCRIPT = String.raw`
(() => {
  'use strict';
  const view = JSON.parse(document.getElementById('lc-run').textContent);
  const steps = view.steps;
  const diagram = document.getElementById('lc-diagram');
  const svg = diagram.querySelector('svg');
  const details = document.getElementById('lc-details');
  const rows = [];
  const $ = (id) => document.getElementById(id);
  const node = (tag, text, className) => {
    const element = document.createElement(tag);
    if (text !== undefined && text !== null) element.textContent = String(text);
    if (className) element.className = className;
    return element;
  };
  let current = -1;
  let timer = null;

  // ---- diagram size: "region" (the default) fits the top-level region of the active state,
  // "fit" the whole machine, a percentage scales Graphviz's natural size (zoom.ts).
${ZOOM_SCRIPT}
  const zoom = createZoom(svg, diagram, $('lc-zoom'));
  let zoomedRegion;
  const applyZoom = () => {
    if (current < 0) return;
    zoomedRegion = steps[current].regionElement;
    zoom.apply(zoomedRegion, steps[current].activeElements[0]);
    document.body.dataset.zoom = String(Math.round(zoom.factor() * 100) / 100);
  };
  $('lc-zoom').addEventListener('change', applyZoom);
  // Keep the active state in view while the region stays the same.
  function follow() {
    if (current < 0 || $('lc-zoom').value === 'fit') return;
    const ids = steps[current].activeElements;
    const target = ids.length > 0 ? document.getElementById(ids[0]) : null;
    if (!target) return;
    const pane = diagram.getBoundingClientRect();
    const rect = target.getBoundingClientRect();
    if (rect.left >= pane.left && rect.right <= pane.right && rect.top >= pane.top && rect.bottom <= pane.bottom) return;
    diagram.scrollLeft += rect.left + rect.width / 2 - (pane.left + pane.width / 2);
    diagram.scrollTop += rect.top + rect.height / 2 - (pane.top + pane.height / 2);
  }

  // ---- timeline
  const start = steps.length > 0 ? Date.parse(steps[0].record.timestamp) : 0;
  const timeline = $('lc-timeline-body');
  const sessions = steps.length > 0 ? steps[steps.length - 1].session : 0;
  steps.forEach((step, index) => {
    const record = step.record;
    if (index === 0 || step.session !== steps[index - 1].session) {
      const band = document.createElement('tr');
      band.className = 'lc-session-start';
      band.dataset.session = String(step.session);
      const cell = node('td', 'session ' + step.session + (step.session === 1 ? ': started ' : ': resumed ') + record.timestamp);
      cell.colSpan = 7;
      band.appendChild(cell);
      timeline.appendChild(band);
    }
    const row = document.createElement('tr');
    row.dataset.index = String(index);
    row.dataset.session = String(step.session);
    row.classList.add(step.session % 2 === 0 ? 'lc-session-even' : 'lc-session-odd');
    row.appendChild(node('td', index + 1, 'num'));
    row.appendChild(node('td', record.cycle, 'num'));
    row.appendChild(node('td', '+' + ((Date.parse(record.timestamp) - start) / 1000).toFixed(1) + 's', 'num'));
    row.appendChild(node('td', step.eventLabel));
    row.appendChild(node('td', step.stateLabel));
    row.appendChild(node('td', step.transitions.length, 'num'));
    const outcome = node('td', undefined, 'wide');
    const verdict = record.verifierResult && record.verifierResult.verdict;
    if (verdict) outcome.appendChild(node('span', verdict, 'lc-badge ' + verdict));
    if (record.decision) outcome.appendChild(node('span', record.decision, 'lc-badge ' + record.decision));
    if (record.terminalCheck) outcome.appendChild(node('span', ' ' + record.terminalCheck.reason));
    if (step.stop) outcome.appendChild(node('span', ' (' + step.stop.kind + ')'));
    // Coordinated runs: the leg the loop acts on (a dispatch, a verification repair, a failed gate).
    const target = record.data && record.data.target;
    if (target && typeof target.leg === 'string')
      outcome.appendChild(node('span', 'leg ' + target.leg + ': ' + target.what, 'lc-badge lc-leg'));
    row.appendChild(outcome);
    row.addEventListener('click', () => show(index));
    timeline.appendChild(row);
    rows.push(row);
  });

  // ---- details beside the diagram
  const latest = (index, read) => {
    for (let i = index; i >= 0; i--) {
      const value = read(steps[i].record);
      if (value !== null && value !== undefined) return { value, from: i };
    }
    return null;
  };
  const list = (items) => {
    const ul = node('ul');
    for (const item of items) ul.appendChild(node('li', item));
    return ul;
  };
  const pairs = (entries) => {
    const dl = node('dl');
    for (const [key, value] of entries) {
      if (value === null || value === undefined || value === '') continue;
      dl.appendChild(node('dt', key));
      dl.appendChild(node('dd', typeof value === 'object' ? JSON.stringify(value) : value));
    }
    return dl;
  };
  const table = (objects) => {
    const keys = [];
    for (const object of objects) for (const key of Object.keys(object)) if (!keys.includes(key)) keys.push(key);
    const element = node('table');
    const head = node('tr');
    for (const key of keys) head.appendChild(node('th', key));
    element.appendChild(head);
    for (const object of objects) {
      const row = node('tr');
      for (const key of keys) {
        const value = object[key];
        row.appendChild(node('td', value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : value));
      }
      element.appendChild(row);
    }
    return element;
  };
  const section = (title, content) => {
    details.appendChild(node('h3', title));
    details.appendChild(content);
  };
  const isRowList = (value) =>
    Array.isArray(value) && value.length > 0 && value.every((v) => v && typeof v === 'object' && !Array.isArray(v));

  function renderDetails(index) {
    const step = steps[index];
    const record = step.record;
    details.replaceChildren();
    details.appendChild(node('h2', 'Step ' + (index + 1) + ': ' + step.eventLabel));
    details.appendChild(pairs([
      ['state', step.stateLabel],
      ['event', record.event],
      ['cycle', record.cycle],
      ['time', record.timestamp],
      ['decision', record.decision],
      ['leg', record.data && record.data.target ? record.data.target.leg + ' (' + record.data.target.what + ')' : null],
    ]));
    section('Transitions taken', step.transitions.length > 0
      ? list(step.transitions.map((t) => t.label))
      : node('p', 'none: the event changed nothing', 'note'));
    details.lastChild.classList.add('lc-transition');

    const budget = latest(index, (r) => r.budget);
    const seen = new Set();
    let taken = 0;
    for (let i = 0; i <= index; i++) for (const t of steps[i].transitions) { taken++; seen.add(t.key); }
    const counters = [
      ['session', step.session + ' of ' + sessions + (step.session > 1 ? ' (resumed)' : '')],
      ['cycle', record.cycle],
      ['records so far', index + 1 + ' of ' + steps.length],
      ['transitions taken', taken + ' (' + seen.size + ' distinct)'],
    ];
    if (budget) {
      const b = budget.value;
      const note = budget.from === index ? '' : ' (as of step ' + (budget.from + 1) + ')';
      counters.push(['iterations', b.iterationsUsed + (b.iterationLimit === null ? '' : ' / ' + b.iterationLimit) + note]);
      if (b.elapsedMs !== null) counters.push(['elapsed', (b.elapsedMs / 1000).toFixed(1) + ' s']);
      if (b.tokensUsed !== null) counters.push(['tokens', b.tokensUsed]);
      if (b.costUsed !== null) counters.push(['cost', b.costUsed]);
    }
    section('Counters', pairs(counters));

    if (record.action) section('Action', pairs([
      ['kind', record.action.kind], ['summary', record.action.summary], ['disposition', record.action.disposition],
    ]));
    if (record.evidence.length > 0) section('Evidence', list(record.evidence));
    if (record.verifierResult) section('Verifier', pairs([
      ['evaluator', record.verifierResult.evaluator], ['verdict', record.verifierResult.verdict],
      ['detail', record.verifierResult.detail],
    ]));
    if (record.observation) section('Observation', pairs([
      ['summary', record.observation.summary], ['metric', record.observation.metric], ['fingerprint', record.fingerprint],
    ]));
    if (record.progressDelta) section('Progress', pairs([
      ['kinds', record.progressDelta.kinds.join(', ')], ['metric delta', record.progressDelta.metricDelta],
    ]));
    if (step.stop) {
      const stopBox = node('div', undefined, 'lc-stop');
      if (step.stop.text !== null) stopBox.appendChild(node('pre', step.stop.text, 'lc-stop-text'));
      else stopBox.appendChild(node('p', 'stop ' + step.stop.kind + ' (this transcript does not carry the rendered text)', 'note'));
      const menu = node('ol', undefined, 'lc-stop-menu');
      for (const offer of step.stop.menu) {
        const item = node('li');
        item.value = offer.number;
        item.appendChild(node('span', offer.label + ': '));
        item.appendChild(node('code', offer.reply));
        menu.appendChild(item);
      }
      stopBox.appendChild(node('h4', 'Replies (answer with loopchart run ... --answer "<reply>")'));
      stopBox.appendChild(menu);
      section('Stopped for a human: ' + step.stop.kind, stopBox);
    }
    if (record.terminalCheck) {
      const check = record.terminalCheck;
      section('Terminal check', pairs([
        ['rule', check.rule], ['success', String(check.success)], ['reason', check.reason],
      ]));
      // A stop's evidence is the stop itself, shown rendered above.
      if (check.evidence.length > 0 && !step.stop) details.appendChild(list(check.evidence));
    }
    if (record.closing) section('Closing', pairs([
      ['unresolved risk', record.closing.unresolvedRisk], ['next hypothesis', record.closing.nextHypothesis],
      ['retained state', record.closing.retainedState.join(', ')], ['cleanup', record.closing.cleanup.join(', ')],
    ]));
    const data = record.data || {};
    for (const [key, value] of Object.entries(data)) {
      if (key === 'stop' && step.stop) continue;
      if (key === 'target') continue;
      if (isRowList(value)) section(key, table(value));
      else if (value && typeof value === 'object' && isRowList(value.rows)) section(key, table(value.rows));
      else section(key, node('pre', JSON.stringify(value, null, 2)));
    }
    for (const note of view.notes || []) details.appendChild(node('p', note, 'note'));
  }

  // ---- highlighting
  const mark = (ids, className) => {
    for (const id of ids) {
      const element = document.getElementById(id);
      if (element) element.classList.add(className);
    }
  };
  const clear = (className) => {
    for (const element of Array.from(svg.querySelectorAll('.' + className))) element.classList.remove(className);
  };

  function show(index) {
    if (steps.length === 0) return;
    index = Math.max(0, Math.min(steps.length - 1, index));
    current = index;
    for (const name of ['lc-active', 'lc-active-parent', 'lc-taken', 'lc-seen', 'lc-seen-edge']) clear(name);
    for (let i = 0; i < index; i++) {
      mark(steps[i].activeElements, 'lc-seen');
      for (const t of steps[i].transitions) mark(t.elements, 'lc-seen-edge');
    }
    const step = steps[index];
    mark(step.activeParentElements, 'lc-active-parent');
    mark(step.activeElements, 'lc-active');
    for (const t of step.transitions) mark(t.elements, 'lc-taken');
    document.body.dataset.step = String(index);
    document.body.dataset.state = step.stateLabel;
    $('lc-position').textContent = 'step ' + (index + 1) + ' / ' + steps.length;
    $('lc-range').value = String(index);
    $('lc-first').disabled = $('lc-prev').disabled = index === 0;
    $('lc-next').disabled = $('lc-last').disabled = index === steps.length - 1;
    rows.forEach((row, i) => row.classList.toggle('lc-current', i === index));
    rows[index].scrollIntoView({ block: 'nearest' });
    renderDetails(index);
    document.body.dataset.session = String(step.session);
    if (step.regionElement !== zoomedRegion) applyZoom();
    else follow();
    if (history.replaceState) history.replaceState(null, '', '#step=' + (index + 1));
  }

  // ---- controls
  const stop = () => {
    if (timer !== null) clearInterval(timer);
    timer = null;
    $('lc-play').textContent = '▶ play';
  };
  const play = () => {
    if (current >= steps.length - 1) show(0);
    $('lc-play').textContent = '❚❚ pause';
    timer = setInterval(() => {
      show(current + 1);
      if (current >= steps.length - 1) stop();
    }, Number($('lc-speed').value));
  };
  $('lc-first').addEventListener('click', () => { stop(); show(0); });
  $('lc-prev').addEventListener('click', () => { stop(); show(current - 1); });
  $('lc-next').addEventListener('click', () => { stop(); show(current + 1); });
  $('lc-last').addEventListener('click', () => { stop(); show(steps.length - 1); });
  $('lc-play').addEventListener('click', () => (timer === null ? play() : stop()));
  $('lc-speed').addEventListener('change', () => { if (timer !== null) { stop(); play(); } });
  $('lc-range').max = String(Math.max(0, steps.length - 1));
  $('lc-range').addEventListener('input', (event) => { stop(); show(Number(event.target.value)); });
  document.addEventListener('keydown', (event) => {
    if (event.target && event.target.tagName === 'SELECT') return;
    if (event.key === 'ArrowRight') { stop(); show(current + 1); }
    else if (event.key === 'ArrowLeft') { stop(); show(current - 1); }
    else if (event.key === 'Home') { stop(); show(0); }
    else if (event.key === 'End') { stop(); show(steps.length - 1); }
    else if (event.key === ' ') { event.preventDefault(); timer === null ? play() : stop(); }
    else return;
  });

  const requested = /step=(\d+)/.exec(location.hash);
  show(requested ? Number(requested[1]) - 1 : 0);
  document.body.dataset.ready = 'true';
})();
`;
