// Functions and hooks per environment, and a form that invokes a function (as the master key
// or as a user the host acts for, in staging or production), showing its result and its log
// lines. The page never holds a user's session: /console/api/invoke names the user by objectId.
'use strict';

(function () {
  const { api, $, status, element, button, request, fillTable, register } = window.FHConsole;

  // LeanEngine's hook names (`__before_save_for_Todo`, `__on_login__User`) as hook and class.
  function hook(name) {
    const bare = name.replace(/^__/, '');
    const at = bare.indexOf('_for_');
    if (at >= 0) return [bare.slice(0, at).replace(/_/g, ' '), bare.slice(at + 5)];
    return [bare.replace(/_+/g, ' ').trim(), ''];
  }

  async function showFunctions() {
    const environment = $('functions-environment').value;
    const [listed, environments] = await Promise.all([
      request('GET', api + '/1.1/functions/_ops/metadatas', undefined, environment),
      request('GET', api + '/1.1/engine/environments'),
    ]);
    const names = listed.result || [];
    const functions = names.filter((name) => !name.startsWith('__'));
    const hooks = names.filter((name) => name.startsWith('__'));
    const version = environments[environment] && environments[environment].version;
    $('functions-version').textContent = environment + ' runs ' + (version ? 'version ' + version : 'the functions directory') + '.';
    fillTable($('functions-table'), functions, (name) => [
      button(name, () => choose(name, environment), 'link', 'Invoke ' + name + ' in ' + environment),
    ], 'No functions.');
    fillTable($('hooks-table'), hooks, (name) => hook(name), 'No hooks.');
    // The form's name field suggests these; it may name another environment's function too.
    $('function-names').replaceChildren(...functions.map((name) => { const option = element('option'); option.value = name; return option; }));
    if (!$('invoke-function').value && functions.length) $('invoke-function').value = functions[0];
    status(functions.length + ' functions, ' + hooks.length + ' hooks in ' + environment + '.');
  }

  function choose(name, environment) {
    $('invoke-function').value = name;
    $('invoke-environment').value = environment;
    $('invoke-params').focus();
  }

  async function invoke(event) {
    event.preventDefault();
    let params;
    try { params = JSON.parse($('invoke-params').value || '{}'); } catch (e) { status('The params are not JSON.', true); return; }
    const body = {
      function: $('invoke-function').value, params, environment: $('invoke-environment').value,
      user: $('invoke-user').value.trim() || null,
    };
    $('invoke-output').hidden = true;
    try {
      const answer = await request('POST', api + '/invoke', body);
      const failed = Boolean(answer.error);
      $('invoke-outcome').textContent = (failed ? 'Failed' : 'Succeeded') + ' in ' + answer.environment
        + (body.user ? ' as user ' + body.user : ' as the master key') + '.';
      $('invoke-result').textContent = JSON.stringify(failed ? answer.error : answer.result, null, 2);
      $('invoke-result').className = failed ? 'error' : '';
      const logs = $('invoke-logs');
      logs.replaceChildren(...(answer.logs || []).map((line) => element('li', line)));
      if (!(answer.logs || []).length) logs.append(element('li', 'No log lines.', 'hint'));
      $('invoke-output').hidden = false;
      status('Invoked ' + body.function + ' in ' + answer.environment + '.');
    } catch (error) {
      status(error.message, true);
    }
  }

  function setUp() {
    $('functions-environment').addEventListener('change', () => showFunctions().catch((error) => status(error.message, true)));
    $('invoke-form').addEventListener('submit', invoke);
  }

  register({ name: 'functions', label: 'Functions', section: 'functions-view', open: showFunctions, setUp });
})();
