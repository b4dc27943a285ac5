// Live function logs: the logs route asked every two seconds for the lines after the last one
// shown (`after`), each new line added at the end without a reload. Polling stops when the page
// is left or paused.
'use strict';

(function () {
  const { api, $, status, element, request, register } = window.FHConsole;
  const interval = 2000;
  const kept = 500;
  // `loop` numbers each run of the polling: a paused or replaced run's answer arriving late is dropped.
  const state = { after: 0, timer: null, running: false, environment: null, loop: 0 };

  function lineItem(line) {
    const item = element('li', null, 'log-' + line.level);
    item.dataset.sequence = String(line.sequence);
    item.append(
      element('span', line.time, 'log-time'), ' ', element('span', line.level, 'type'), ' ',
      element('span', line.source, 'log-source'), ' ', element('span', line.message, 'log-message'));
    return item;
  }

  async function poll(loop) {
    state.timer = null;
    const environment = state.environment;
    try {
      const answer = await request('GET', api + '/1.1/engine/logs?environment=' + encodeURIComponent(environment) + '&after=' + state.after + '&limit=200');
      if (loop !== state.loop) return;
      const list = $('log-lines');
      for (const line of answer.results || []) {
        list.append(lineItem(line));
        state.after = Math.max(state.after, line.sequence);
      }
      while (list.children.length > kept) list.firstElementChild.remove();
      $('log-count').textContent = list.children.length + ' lines of ' + environment + ', newest last.';
    } catch (error) {
      if (loop !== state.loop) return;
      status(error.message, true);
    }
    state.timer = setTimeout(() => poll(loop), interval);
  }

  function run() {
    state.running = true;
    state.loop += 1;
    $('logs-pause').textContent = 'Pause';
    poll(state.loop);
  }

  function follow() {
    stop();
    state.environment = $('logs-environment').value;
    state.after = 0;
    $('log-lines').replaceChildren();
    run();
  }

  function stop() {
    state.running = false;
    state.loop += 1;
    if (state.timer) clearTimeout(state.timer);
    state.timer = null;
  }

  function togglePause() {
    if (state.running) {
      stop();
      $('logs-pause').textContent = 'Resume';
      status('Paused.');
    } else {
      status('');
      run();
    }
  }

  function setUp() {
    $('logs-environment').addEventListener('change', follow);
    $('logs-pause').addEventListener('click', togglePause);
  }

  register({ name: 'logs', label: 'Logs', section: 'logs-view', open: async () => follow(), leave: stop, setUp });
})();
