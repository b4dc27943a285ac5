// Environment variables per environment: listed (a secret's value arrives masked from the
// host and is never shown or sent back), set (as a secret or not) and unset.
'use strict';

(function () {
  const { api, $, status, element, button, request, fillTable, register } = window.FHConsole;

  function environment() {
    return $('variables-environment').value;
  }

  function render(answer) {
    const secrets = new Set(answer.secrets || []);
    const names = Object.keys(answer.variables || {}).sort();
    fillTable($('variables-table'), names, (name) => {
      const value = secrets.has(name) ? element('span', 'secret (hidden)', 'hint') : element('code', answer.variables[name]);
      return [name, value, button('Unset', () => unset(name), 'danger', 'Unset ' + name)];
    }, 'No variables in ' + answer.environment + '.');
  }

  async function showVariables() {
    render(await request('GET', api + '/1.1/engine/variables?environment=' + encodeURIComponent(environment())));
  }

  async function put(body, done) {
    try {
      render(await request('PUT', api + '/1.1/engine/variables', Object.assign({ environment: environment() }, body)));
      status(done);
    } catch (error) {
      status(error.message, true);
    }
  }

  function set(event) {
    event.preventDefault();
    const name = $('variable-name').value.trim();
    const secret = $('variable-secret').checked;
    put({ set: { [name]: $('variable-value').value }, secret }, 'Set ' + name + (secret ? ' (secret)' : '') + ' in ' + environment() + '.');
    $('variable-value').value = '';
    $('variable-name').value = '';
  }

  function unset(name) {
    if (!window.confirm('Unset ' + name + ' in ' + environment() + '?')) return;
    put({ unset: [name] }, 'Unset ' + name + ' in ' + environment() + '.');
  }

  function setUp() {
    $('variables-environment').addEventListener('change', () => showVariables().catch((error) => status(error.message, true)));
    $('variable-form').addEventListener('submit', set);
    // A secret's value is typed unseen.
    $('variable-secret').addEventListener('change', () => { $('variable-value').type = $('variable-secret').checked ? 'password' : 'text'; });
  }

  register({ name: 'variables', label: 'Variables', section: 'variables-view', open: showVariables, setUp });
})();
