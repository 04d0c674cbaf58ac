/**
 * The explorer page's script, inlined as plain ES2020. It renders the views the server computes
 * (`/api/*`) and, in live mode, the messages of `/live`; it computes no step itself. Text from the
 * machine, the model or a run is only ever set with `textContent`.
 *
 * Page state for tests and people: `body[data-position]`, `body[data-state]` (state label),
 * `body[data-busy]` while a request is out, `body[data-ready]` once the first view is drawn,
 * `body[data-live]` (`connecting`, `running`, `ended`) in live mode.
 */
import { ZOOM_SCRIPT } from '../viewer/zoom.js';

export const EXPLORER_SCRIPT = String.raw`
(() => {
  'use strict';
  const config = JSON.parse(document.getElementById('ex-config').textContent);
  const $ = (id) => document.getElementById(id);
  const body = document.body;
  const svg = $('ex-diagram').querySelector('svg');
  const node = (tag, text, className) => {
    const element = document.createElement(tag);
    if (text !== undefined && text !== null) element.textContent = String(text);
    if (className) element.className = className;
    return element;
  };
  const pretty = (value) => JSON.stringify(value, null, 2);
  ${ZOOM_SCRIPT}
  const zoom = createZoom(svg, $('ex-diagram'), $('ex-zoom'));
  let lastState = null;
  $('ex-zoom').addEventListener('change', () => {
    if (lastState) zoom.apply(lastState.regionElement, lastState.activeElements[0]);
  });

  const mark = (ids, className) => {
    for (const id of ids || []) {
      const element = document.getElementById(id);
      if (element) element.classList.add(className);
    }
  };
  const clear = (className) => {
    for (const element of Array.from(svg.querySelectorAll('.' + className))) element.classList.remove(className);
  };
  const error = (message) => {
    $('ex-errors').replaceChildren(node('li', message));
  };

  // ---- shared panels: state, last step, guards, projection, actors
  function drawState(state, transitions, regionChanged) {
    for (const name of ['lc-active', 'lc-active-parent', 'lc-taken']) clear(name);
    mark(state.parentElements, 'lc-active-parent');
    mark(state.activeElements, 'lc-active');
    for (const t of transitions) mark(t.elements, 'lc-taken');
    $('ex-state').textContent = state.stateLabel + (state.status === 'active' ? '' : ' (' + state.status + ')');
    body.dataset.state = state.stateLabel;
    body.dataset.status = state.status;
    if (regionChanged || !lastState) zoom.apply(state.regionElement, state.activeElements[0]);
    else zoom.follow(state.activeElements[0]);
    lastState = state;
  }
  function drawLast(title, transitions, note) {
    $('ex-last-title').textContent = title;
    const box = $('ex-last');
    box.replaceChildren();
    if (note) box.appendChild(node('p', note, 'note'));
    if (transitions.length === 0) box.appendChild(node('p', 'no transition taken', 'note'));
    const list = node('ul', undefined, 'lc-transition');
    for (const t of transitions) {
      const item = node('li', t.label);
      item.dataset.key = t.key;
      list.appendChild(item);
    }
    box.appendChild(list);
  }
  function drawGuards(guards) {
    const rows = $('ex-guards').tBodies[0];
    rows.replaceChildren();
    for (const g of guards) {
      const row = node('tr', undefined, g.outcome ? 'ex-pass' : 'ex-fail');
      row.dataset.key = g.key;
      row.dataset.outcome = String(g.outcome);
      row.appendChild(node('td', g.order, 'num'));
      row.appendChild(node('td', g.guard));
      row.appendChild(node('td', g.rule || ''));
      row.appendChild(node('td', g.outcome ? 'passed' : 'failed'));
      row.appendChild(node('td', g.reason));
      rows.appendChild(row);
    }
    if (guards.length === 0) {
      const row = node('tr');
      row.appendChild(node('td', 'no guard was evaluated by this step', 'note'));
      row.firstChild.colSpan = 5;
      rows.appendChild(row);
    }
  }
  function drawActors(actors, running) {
    const list = $('ex-actors');
    list.replaceChildren();
    for (const a of actors) {
      const item = node('li', a.id + (a.src !== a.id ? ' (' + a.src + ')' : '') + ' in ' + a.state);
      item.dataset.actor = a.id;
      list.appendChild(item);
    }
    if (running && running.length > 0) list.appendChild(node('li', 'running: ' + running.join(', '), 'note'));
    if (list.childElementCount === 0) list.appendChild(node('li', 'none', 'note'));
  }

  if (config.mode === 'live') return live();

  // ---- simulation
  const api = async (path, payload) => {
    body.dataset.busy = 'true';
    try {
      const url = path + (path.includes('?') ? '&' : '?') + 'machine=' + encodeURIComponent(config.machine);
      const response = await fetch(url, payload === undefined ? {} : {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload),
      });
      const text = await response.text();
      const data = text === '' ? null : JSON.parse(text);
      if (!response.ok) throw new Error(data && data.error ? data.error : response.status + ' ' + text);
      $('ex-errors').replaceChildren();
      return data;
    } catch (problem) {
      error(problem.message || String(problem));
      return null;
    } finally {
      delete body.dataset.busy;
    }
  };

  let view = null;
  function render(next) {
    if (!next) return;
    const regionChanged = !view || view.state.regionElement !== next.state.regionElement;
    view = next;
    const transitions = next.last ? next.last.transitions : next.initialTransitions;
    drawState(next.state, transitions, regionChanged);
    if (next.last) {
      const payload = Object.assign({}, next.last.event);
      delete payload.type;
      const shown = Object.keys(payload).length > 0 ? ' ' + JSON.stringify(payload) : '';
      drawLast('Last step: ' + next.last.label + ' (' + next.last.delivery + ')', transitions,
        (next.last.changed ? '' : 'the event changed nothing: ') + next.last.event.type + shown);
    } else drawLast('Start', transitions, 'the transitions taken while starting');
    drawGuards(next.last ? next.last.guards : []);
    $('ex-projection').textContent = pretty(next.projection);
    $('ex-explanation').textContent = next.explanation === null ? 'no explanation for this machine' : pretty(next.explanation);
    drawActors(next.state.actors);
    drawEvents(next.events);
    $('ex-position').textContent = 'step ' + next.position + ' / ' + next.steps +
      (next.path ? ' of path ' + next.path.id : '') + ', t = ' + next.now + ' ms';
    $('ex-reset').disabled = next.steps === 0;
    $('ex-back').disabled = next.position === 0;
    $('ex-forward').disabled = next.position >= next.steps;
    body.dataset.position = String(next.position);
    body.dataset.steps = String(next.steps);
    body.dataset.path = next.path ? next.path.id : '';
    body.dataset.ready = 'true';
  }

  function drawEvents(events) {
    const box = $('ex-events');
    box.replaceChildren();
    const groups = new Map();
    for (const e of events) {
      if (!groups.has(e.type)) groups.set(e.type, []);
      groups.get(e.type).push(e);
    }
    for (const [type, cases] of groups) {
      const group = node('div', undefined, 'ex-event-group');
      group.appendChild(node('div', cases[0].label + (cases[0].label !== type ? '  (' + type + ')' : ''), 'ex-event-type'));
      for (const e of cases) {
        const payload = Object.assign({}, e.event);
        delete payload.type;
        const text = Object.keys(payload).length === 0 ? 'send' : JSON.stringify(payload);
        const button = node('button', text.length > 160 ? text.slice(0, 159) + '…' : text);
        button.type = 'button';
        button.title = pretty(e.event) + '\n(' + e.delivery + ')';
        button.dataset.index = String(e.index);
        button.dataset.type = e.type;
        button.dataset.event = JSON.stringify(e.event);
        button.addEventListener('click', async () => render(await api('/api/send', { index: e.index })));
        group.appendChild(button);
      }
      box.appendChild(group);
    }
    if (events.length === 0) box.appendChild(node('p', 'none: the machine is done or the model stops here', 'note'));
  }

  $('ex-machine').addEventListener('change', (event) => {
    location.search = '?machine=' + encodeURIComponent(event.target.value);
  });
  $('ex-reset').addEventListener('click', async () => render(await api('/api/reset', {})));
  $('ex-back').addEventListener('click', async () => render(await api('/api/back', {})));
  $('ex-forward').addEventListener('click', async () => render(await api('/api/forward', {})));
  document.addEventListener('keydown', async (event) => {
    if (event.target && (event.target.tagName === 'SELECT' || event.target.tagName === 'INPUT')) return;
    if (event.key === 'ArrowLeft' && view && view.position > 0) render(await api('/api/back', {}));
    else if (event.key === 'ArrowRight' && view && view.position < view.steps) render(await api('/api/forward', {}));
  });

  let pathsLoaded = false;
  const loadPaths = async () => {
    if (pathsLoaded) return true;
    $('ex-path').options[0].textContent = '(generating the path suite…)';
    const data = await api('/api/paths');
    if (!data) return false;
    pathsLoaded = true;
    $('ex-path').replaceChildren();
    for (const p of data.paths) {
      const option = node('option', p.id + ' (' + p.steps + ' steps): ' + p.description);
      option.value = p.id;
      $('ex-path').appendChild(option);
    }
    body.dataset.paths = String(data.paths.length);
    return true;
  };
  $('ex-path').addEventListener('focus', loadPaths);
  $('ex-path').addEventListener('mousedown', loadPaths);
  $('ex-load').addEventListener('click', async () => {
    if (!(await loadPaths())) return;
    const id = $('ex-path').value;
    if (id) render(await api('/api/path', { id }));
  });
  $('ex-coverage').addEventListener('change', async (event) => {
    for (const name of ['ex-covered', 'ex-uncovered']) clear(name);
    $('ex-coverage-summary').textContent = '';
    body.dataset.coverage = 'off';
    if (!event.target.checked) return;
    const data = await api('/api/coverage');
    if (!data) return;
    mark(data.coveredElements, 'ex-covered');
    mark(data.uncoveredElements, 'ex-uncovered');
    mark(data.uncoveredStateElements, 'ex-uncovered');
    $('ex-coverage-summary').textContent = data.summary + (data.uncovered.length > 0 ? '; not covered: ' + data.uncovered.join(', ') : '');
    body.dataset.coverage = 'on';
  });

  api('/api/view').then(render);

  // ---- live: follow a running actor
  function live() {
    const feed = $('ex-live-feed');
    const status = $('ex-live-status');
    body.dataset.live = 'connecting';
    const source = new EventSource('/live');
    source.onopen = () => {
      if (body.dataset.live === 'connecting') {
        body.dataset.live = 'running';
        status.textContent = 'connected: following the run';
      }
    };
    source.onmessage = (message) => {
      const data = JSON.parse(message.data);
      if (data.kind === 'end') {
        body.dataset.live = 'ended';
        body.dataset.result = data.status;
        status.textContent = 'run ended: ' + data.status + ' in ' + data.state;
        if (data.text) {
          const pre = node('pre', data.text, 'ex-end-text');
          $('ex-last').appendChild(pre);
        }
        source.close();
        return;
      }
      drawState(data.state, data.transitions, !lastState || lastState.regionElement !== data.state.regionElement);
      drawLast('Step ' + data.seq + ': ' + data.label, data.transitions, data.event);
      drawGuards(data.guards);
      $('ex-projection').textContent = data.projection === null ? 'no model projection' : pretty(data.projection);
      drawActors(data.state.actors, data.running);
      const item = node('li', data.label + ' → ' + data.state.stateLabel);
      item.dataset.seq = String(data.seq);
      feed.appendChild(item);
      item.scrollIntoView({ block: 'nearest' });
      body.dataset.seq = String(data.seq);
      body.dataset.ready = 'true';
    };
    source.onerror = () => {
      if (body.dataset.live !== 'ended') {
        status.textContent = 'disconnected: the run has ended or the server stopped';
        body.dataset.live = 'disconnected';
        source.close();
      }
    };
  }
})();
`;
