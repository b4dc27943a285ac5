// Timers and Cloud Queue tasks: every timer with its schedule and next firing (one run now on
// request), and the newest tasks with their status and last attempt (a failed one retried).
'use strict';

(function () {
  const { api, $, status, element, button, request, fillTable, register } = window.FHConsole;

  async function showQueue() {
    const filter = $('tasks-status').value;
    const [timers, tasks] = await Promise.all([
      request('GET', api + '/1.1/engine/timers'),
      request('GET', api + '/1.1/engine/cloud-queue/tasks?limit=50' + (filter ? '&status=' + encodeURIComponent(filter) : '')),
    ]);
    fillTable($('timers-table'), timers.results || [], (timer) => [
      timer.name, timer.function, timer.environment, timer.cron ? 'cron ' + timer.cron : 'every ' + timer.every + ' s',
      timer.enabled ? 'yes' : 'no', timer.nextFireAt || '—', timer.lastFiredAt || '—',
      button('Run now', () => runTimer(timer.name), null, 'Run timer ' + timer.name + ' now'),
    ], 'No timers.');
    fillTable($('tasks-table'), tasks.results || [], (task) => {
      const last = (task.history || [])[(task.history || []).length - 1];
      const actions = element('span');
      if (task.status === 'failed') actions.append(button('Retry', () => retry(task.uniqueId), null, 'Retry task ' + task.uniqueId));
      return [task.uniqueId, task.function, task.environment, task.status, task.attempt + ' of ' + task.attempts,
        task.runAt || '', last ? last.outcome + (last.logs && last.logs.length ? ': ' + last.logs.join(' | ') : '') : '—', actions];
    }, 'No tasks.');
  }

  async function act(method, path, done) {
    try {
      await request(method, api + '/1.1/engine/' + path, {});
      await showQueue();
      status(done);
    } catch (error) {
      status(error.message, true);
    }
  }

  function runTimer(name) {
    act('POST', 'timers/' + encodeURIComponent(name) + '/run', 'Timer ' + name + ' enqueued its task.');
  }

  function retry(uniqueId) {
    act('POST', 'cloud-queue/tasks/' + encodeURIComponent(uniqueId) + '/retry', 'Task ' + uniqueId + ' is queued again.');
  }

  function setUp() {
    $('tasks-status').addEventListener('change', () => showQueue().catch((error) => status(error.message, true)));
    $('queue-refresh').addEventListener('click', () => showQueue().catch((error) => status(error.message, true)));
  }

  register({ name: 'queue', label: 'Timers & tasks', section: 'queue-view', open: showQueue, setUp });
})();
