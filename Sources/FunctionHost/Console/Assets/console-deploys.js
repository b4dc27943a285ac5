// Deploy versions per environment: which version each runs, every version stored, promote
// (production runs staging's version) and roll back (an environment returns to its previous
// version, or runs a version chosen from the list).
'use strict';

(function () {
  const { api, $, status, element, button, request, fillTable, register } = window.FHConsole;
  const environments = ['production', 'staging'];

  async function showDeploys() {
    const [states, versions] = await Promise.all([
      request('GET', api + '/1.1/engine/environments'),
      // An environment's versions are those it has run; all of them otherwise.
      request('GET', api + '/1.1/engine/deploys' + ($('versions-environment').value ? '?environment=' + $('versions-environment').value : '')),
    ]);
    const list = $('deploy-environments');
    list.replaceChildren();
    for (const name of environments) {
      const state = states[name] || {};
      const item = element('li', name + ': ' + (state.version ? 'version ' + state.version : 'the functions directory')
        + (state.history && state.history.length ? ' (history ' + state.history.join(', ') + ')' : ''));
      item.dataset.environment = name;
      item.dataset.version = state.version || '';
      list.append(item);
    }
    fillTable($('versions-table'), versions.results || [], (version) => {
      const actions = element('span', null, 'row');
      for (const name of environments) {
        if ((version.live || []).includes(name)) continue;
        actions.append(button('Run in ' + name, () => rollback(name, version.version), null, 'Run version ' + version.version + ' in ' + name));
      }
      return [
        String(version.version), version.message, version.author, version.createdAt,
        (version.live || []).join(', '), (version.files || []).join(', ') + (version.engine ? ' (engine app)' : ''), actions,
      ];
    }, 'No versions yet: deploy with functionhost deploy.');
  }

  async function change(path, body, done) {
    try {
      const answer = await request('POST', api + '/1.1/engine/' + path, body);
      await showDeploys();
      status(done(answer));
    } catch (error) {
      status(error.message, true);
    }
  }

  function promote() {
    if (!window.confirm('Run staging\u2019s version in production?')) return;
    change('promote', {}, (answer) => 'Promoted: production runs version ' + answer.version + '.');
  }

  function rollback(environment, version) {
    const what = version ? 'Run version ' + version + ' in ' + environment + '?' : 'Return ' + environment + ' to its previous version?';
    if (!window.confirm(what)) return;
    const body = version ? { environment, version } : { environment };
    change('rollback', body, (answer) => 'Rolled back: ' + answer.environment + ' runs version ' + answer.version + '.');
  }

  function setUp() {
    $('promote').addEventListener('click', promote);
    $('versions-environment').addEventListener('change', () => showDeploys().catch((error) => status(error.message, true)));
    for (const name of environments) $('rollback-' + name).addEventListener('click', () => rollback(name));
  }

  register({ name: 'deploys', label: 'Deploys', section: 'deploys-view', open: showDeploys, setUp });
})();
