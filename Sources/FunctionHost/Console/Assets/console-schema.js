// The schema: a class's fields with their types, who may do each action on it (class
// permissions), and each field's flags (field permissions), viewed and changed.
'use strict';

(function () {
  const { api, $, status, element, request, register } = window.FHConsole;
  const actions = ['get', 'find', 'create', 'update', 'delete', 'add_fields'];
  const flags = [['hidden', 'Hidden'], ['read_only', 'Read only'], ['user_private', 'User private']];
  const builtIn = ['objectId', 'createdAt', 'updatedAt', 'ACL'];
  let className = null;

  async function showSchema(wanted) {
    const schemas = await request('GET', api + '/1.1/schemas');
    const names = Object.keys(schemas || {}).sort();
    const select = $('schema-class');
    select.replaceChildren(...names.map((name) => { const option = element('option', name); option.value = name; return option; }));
    className = names.includes(wanted) ? wanted : names[0] || null;
    if (className) {
      select.value = className;
      await load();
    } else {
      status('No classes yet.');
    }
  }

  function ruleKind(rule) {
    if (!rule || rule['*']) return 'everyone';
    if (rule.onlySignInUsers) return 'signedIn';
    return 'listed';
  }

  function textInput(value, label) {
    const input = element('input');
    input.type = 'text';
    input.value = value;
    input.setAttribute('aria-label', label);
    return input;
  }

  async function load() {
    const [fields, settings] = await Promise.all([
      request('GET', api + '/1.1/schemas/' + encodeURIComponent(className)),
      request('GET', api + '/1.1/schemas/' + encodeURIComponent(className) + '/permissions'),
    ]);
    const permissions = settings.permissions || {};
    const body = $('permissions-table').tBodies[0];
    body.replaceChildren();
    for (const action of actions) {
      const rule = permissions[action];
      const row = element('tr');
      row.dataset.action = action;
      const who = element('select');
      who.setAttribute('aria-label', 'Who may ' + action);
      for (const [value, text] of [['everyone', 'Everyone'], ['signedIn', 'Signed-in users'], ['listed', 'Listed users and roles (none: master key only)']]) {
        const option = element('option', text);
        option.value = value;
        who.append(option);
      }
      who.value = ruleKind(rule);
      const listed = rule && !rule['*'] && !rule.onlySignInUsers;
      const users = textInput(listed ? (rule.users || []).join(', ') : '', 'Users who may ' + action + ' (objectIds, comma-separated)');
      const roles = textInput(listed ? (rule.roles || []).join(', ') : '', 'Roles who may ' + action + ' (names, comma-separated)');
      users.dataset.part = 'users';
      roles.dataset.part = 'roles';
      const cells = [element('th', action), element('td'), element('td'), element('td')];
      cells[0].scope = 'row';
      cells[1].append(who);
      cells[2].append(users);
      cells[3].append(roles);
      row.append(...cells);
      body.append(row);
    }
    const shown = settings.schema || {};
    const fieldBody = $('field-permissions-table').tBodies[0];
    fieldBody.replaceChildren();
    for (const [field, descriptor] of Object.entries(fields || {}).sort()) {
      if (builtIn.includes(field)) continue;
      const row = element('tr');
      row.dataset.field = field;
      const name = element('th', field);
      name.scope = 'row';
      row.append(name, element('td', descriptor && descriptor.type ? descriptor.type : ''));
      for (const [flag, text] of flags) {
        const cell = element('td');
        // A user's own fields exist in _User only.
        if (flag === 'user_private' && className !== '_User') { cell.textContent = '—'; row.append(cell); continue; }
        const box = element('input');
        box.type = 'checkbox';
        box.dataset.flag = flag;
        box.checked = Boolean(shown[field] && shown[field][flag]);
        box.setAttribute('aria-label', text + ': ' + field);
        cell.append(box);
        row.append(cell);
      }
      fieldBody.append(row);
    }
    status('');
  }

  function names(input) {
    return input.value.split(',').map((name) => name.trim()).filter((name) => name);
  }

  async function save(event) {
    event.preventDefault();
    const permissions = {};
    for (const row of $('permissions-table').tBodies[0].rows) {
      const kind = row.querySelector('select').value;
      if (kind === 'everyone') permissions[row.dataset.action] = { '*': true };
      else if (kind === 'signedIn') permissions[row.dataset.action] = { onlySignInUsers: true };
      else {
        permissions[row.dataset.action] = {
          users: names(row.querySelector('[data-part=users]')), roles: names(row.querySelector('[data-part=roles]')),
        };
      }
    }
    const schema = {};
    for (const row of $('field-permissions-table').tBodies[0].rows) {
      const set = {};
      for (const box of row.querySelectorAll('input[type=checkbox]')) set[box.dataset.flag] = box.checked;
      schema[row.dataset.field] = set;
    }
    try {
      await request('PUT', api + '/1.1/schemas/' + encodeURIComponent(className), { permissions, schema });
      await load();
      status('Saved the permissions of ' + className + '.');
    } catch (error) {
      status(error.message, true);
    }
  }

  function setUp() {
    $('schema-class').addEventListener('change', () => {
      className = $('schema-class').value;
      history.replaceState(null, '', '#view=schema&arg=' + encodeURIComponent(className));
      load().catch((error) => status(error.message, true));
    });
    $('permissions-form').addEventListener('submit', save);
  }

  register({ name: 'schema', label: 'Schema', section: 'schema-view', open: showSchema, setUp });
})();
