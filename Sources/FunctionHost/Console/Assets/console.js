// The FunctionHost console: plain DOM, no library. Every value from the server is written with
// textContent, never as HTML. The master key is sent once, to /console/login; after that the
// page holds only the CSRF token it reads from /console/api/session, and its cookie (HttpOnly)
// is the browser's.
'use strict';

(function () {
  const api = '/console/api';
  const pageSize = 50;
  const state = { csrf: null, className: null, skip: 0, where: '', count: 0, rows: [], columns: [] };
  const $ = (id) => document.getElementById(id);

  function status(text, isError) {
    const el = $('status');
    el.textContent = text || '';
    el.className = isError ? 'error' : '';
  }

  function element(tag, text, className) {
    const el = document.createElement(tag);
    if (text !== undefined && text !== null) el.textContent = text;
    if (className) el.className = className;
    return el;
  }

  // One request to the console's API: JSON in and out, the CSRF token on every request (a
  // GET may run a function: the server asks the token of reads too).
  async function request(method, path, body) {
    const headers = { 'Accept': 'application/json', 'X-Console-CSRF': state.csrf || '' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(path, {
      method, headers, credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
    if (response.status === 401) { showLogin(); throw new Error('Logged out: log in again.'); }
    if (!response.ok) {
      throw new Error((json && json.error ? json.error : 'HTTP ' + response.status) + (json && json.code ? ' (code ' + json.code + ')' : ''));
    }
    return json;
  }

  function show(view) {
    for (const id of ['login-view', 'classes-view', 'browser-view']) $(id).hidden = id !== view;
    const loggedIn = view !== 'login-view';
    $('logout').hidden = !loggedIn;
    $('nav-classes').hidden = !loggedIn;
  }

  function showLogin() {
    state.csrf = null;
    show('login-view');
    $('master-key').focus();
  }

  async function login(event) {
    event.preventDefault();
    const key = $('master-key').value;
    try {
      const response = await fetch('/console/login', {
        method: 'POST', credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', 'Accept': 'application/json' },
        body: JSON.stringify({ masterKey: key }),
      });
      const json = await response.json().catch(() => null);
      if (!response.ok) throw new Error(json && json.error ? json.error : 'HTTP ' + response.status);
      $('master-key').value = '';
      state.csrf = json.csrfToken;
      status('Logged in.');
      await showClasses();
    } catch (error) {
      status(error.message, true);
    }
  }

  async function logout() {
    try { await request('POST', api + '/logout', {}); } catch (e) { /* logged out either way */ }
    status('Logged out.');
    showLogin();
  }

  // The class list, with each class's count.
  async function showClasses() {
    show('classes-view');
    history.replaceState(null, '', '#');
    const schemas = await request('GET', api + '/1.1/schemas');
    const names = Object.keys(schemas || {}).sort();
    const body = $('classes-table').tBodies[0];
    body.replaceChildren();
    for (const name of names) {
      const row = element('tr');
      const nameCell = element('td');
      const open = element('button', name, 'link');
      open.type = 'button';
      open.dataset.className = name;
      open.addEventListener('click', () => browse(name));
      nameCell.append(open);
      const countCell = element('td', '…');
      countCell.dataset.countOf = name;
      row.append(nameCell, countCell);
      body.append(row);
    }
    status(names.length + ' classes.');
    for (const name of names) {
      request('GET', api + '/1.1/classes/' + encodeURIComponent(name) + '?count=1&limit=0')
        .then((answer) => { body.querySelector('[data-count-of="' + CSS.escape(name) + '"]').textContent = String(answer.count); })
        .catch(() => { body.querySelector('[data-count-of="' + CSS.escape(name) + '"]').textContent = '—'; });
    }
    const first = body.querySelector('button');
    if (first) first.focus();
  }

  // A value as its type shows it: Dates, Pointers, Files, GeoPoints, Bytes and Relations by
  // name, objects and arrays as JSON.
  function describe(value) {
    if (value === null || value === undefined) return { type: null, text: value === null ? 'null' : '' };
    if (Array.isArray(value)) return { type: 'Array', text: JSON.stringify(value) };
    if (typeof value === 'object') {
      switch (value.__type) {
        case 'Date': return { type: 'Date', text: value.iso };
        case 'Pointer': return { type: 'Pointer', text: value.className + ' ' + value.objectId };
        case 'File': return { type: 'File', text: (value.name || '') + (value.url ? ' ' + value.url : '') };
        case 'GeoPoint': return { type: 'GeoPoint', text: value.latitude + ', ' + value.longitude };
        case 'Bytes': return { type: 'Bytes', text: (value.base64 || '').length + ' base64 characters' };
        case 'Relation': return { type: 'Relation', text: value.className };
        default: return { type: 'Object', text: JSON.stringify(value) };
      }
    }
    if (typeof value === 'number') return { type: 'Number', text: String(value) };
    if (typeof value === 'boolean') return { type: 'Boolean', text: String(value) };
    return { type: 'String', text: String(value) };
  }

  function valueCell(value, column) {
    const cell = element('td');
    const shown = describe(value);
    // The built-in dates are ISO strings on the wire, Dates in meaning.
    if (column === 'createdAt' || column === 'updatedAt') shown.type = 'Date';
    if (shown.type) cell.append(element('span', shown.type, 'type'));
    cell.append(element('span', shown.text, value === null ? 'value null' : 'value'));
    return cell;
  }

  async function browse(className) {
    state.className = className;
    state.skip = 0;
    state.where = '';
    $('where').value = '';
    $('browser-title').textContent = className;
    show('browser-view');
    history.replaceState(null, '', '#class=' + encodeURIComponent(className));
    await loadPage();
    $('where').focus();
  }

  async function loadPage() {
    const params = new URLSearchParams({ limit: String(pageSize), skip: String(state.skip), order: '-createdAt', count: '1' });
    if (state.where) params.set('where', state.where);
    try {
      const answer = await request('GET', api + '/1.1/classes/' + encodeURIComponent(state.className) + '?' + params);
      state.rows = answer.results || [];
      state.count = answer.count || 0;
      render();
      status('');
    } catch (error) {
      status(error.message, true);
    }
  }

  function render() {
    const columns = new Set(['objectId']);
    for (const row of state.rows) for (const key of Object.keys(row)) columns.add(key);
    for (const key of ['createdAt', 'updatedAt', 'ACL']) { if (columns.delete(key)) columns.add(key); }
    state.columns = Array.from(columns);
    const head = $('objects-table').tHead;
    head.replaceChildren();
    const headRow = element('tr');
    for (const column of state.columns) {
      const th = element('th', column);
      th.scope = 'col';
      headRow.append(th);
    }
    const actions = element('th', 'Actions');
    actions.scope = 'col';
    headRow.append(actions);
    head.append(headRow);
    const body = $('objects-table').tBodies[0];
    body.replaceChildren();
    for (const row of state.rows) {
      const tr = element('tr');
      tr.dataset.objectId = row.objectId;
      for (const column of state.columns) {
        const cell = valueCell(row[column], column);
        if (!['objectId', 'createdAt', 'updatedAt'].includes(column)) {
          const edit = element('button', 'Edit', 'link');
          edit.type = 'button';
          edit.setAttribute('aria-label', 'Edit ' + column + ' of ' + row.objectId);
          edit.addEventListener('click', () => openEditor(row, column));
          cell.append(' ', edit);
        }
        tr.append(cell);
      }
      const cell = element('td');
      const remove = element('button', 'Delete', 'danger');
      remove.type = 'button';
      remove.setAttribute('aria-label', 'Delete ' + row.objectId);
      remove.addEventListener('click', () => removeRow(row.objectId));
      cell.append(remove);
      tr.append(cell);
      body.append(tr);
    }
    const last = Math.min(state.skip + state.rows.length, state.count);
    $('count').textContent = state.count + ' objects' + (state.where ? ' match the filter' : '') + '.';
    $('page-label').textContent = state.rows.length ? (state.skip + 1) + '–' + last + ' of ' + state.count : 'none';
    $('previous-page').disabled = state.skip === 0;
    $('next-page').disabled = state.skip + pageSize >= state.count;
  }

  let editing = null;
  function openEditor(row, column) {
    editing = { objectId: row.objectId, column };
    $('edit-target').textContent = state.className + ' ' + row.objectId + ': ' + column;
    $('edit-value').value = row[column] === undefined ? '' : JSON.stringify(row[column], null, 2);
    $('edit-error').textContent = '';
    $('edit-dialog').showModal();
    $('edit-value').focus();
  }

  async function saveEdit(event) {
    event.preventDefault();
    let value;
    try { value = JSON.parse($('edit-value').value); } catch (e) {
      $('edit-error').textContent = 'Not JSON: write text in quotes, "like this".';
      return;
    }
    try {
      await request('PUT', api + '/1.1/classes/' + encodeURIComponent(state.className) + '/' + encodeURIComponent(editing.objectId),
        { [editing.column]: value });
      $('edit-dialog').close();
      await loadPage();
      status('Saved ' + editing.column + ' of ' + editing.objectId + '.');
    } catch (error) {
      $('edit-error').textContent = error.message;
    }
  }

  async function addRow(event) {
    event.preventDefault();
    let fields;
    try { fields = JSON.parse($('new-object').value); } catch (e) { status('The new row is not JSON.', true); return; }
    try {
      const created = await request('POST', api + '/1.1/classes/' + encodeURIComponent(state.className), fields);
      $('new-object').value = '{}';
      state.skip = 0;
      await loadPage();
      status('Added ' + created.objectId + '.');
    } catch (error) {
      status(error.message, true);
    }
  }

  async function removeRow(objectId) {
    if (!window.confirm('Delete ' + state.className + ' ' + objectId + '?')) return;
    try {
      await request('DELETE', api + '/1.1/classes/' + encodeURIComponent(state.className) + '/' + encodeURIComponent(objectId));
      await loadPage();
      status('Deleted ' + objectId + '.');
    } catch (error) {
      status(error.message, true);
    }
  }

  function applyFilter(event) {
    event.preventDefault();
    const text = $('where').value.trim();
    if (text) {
      try { JSON.parse(text); } catch (e) { status('The filter is not JSON.', true); return; }
    }
    state.where = text;
    state.skip = 0;
    loadPage();
  }

  async function start() {
    $('login-form').addEventListener('submit', login);
    $('logout').addEventListener('click', logout);
    $('nav-classes').addEventListener('click', () => showClasses().catch((e) => status(e.message, true)));
    $('filter-form').addEventListener('submit', applyFilter);
    $('clear-filter').addEventListener('click', () => { $('where').value = ''; state.where = ''; state.skip = 0; loadPage(); });
    $('previous-page').addEventListener('click', () => { state.skip = Math.max(0, state.skip - pageSize); loadPage(); });
    $('next-page').addEventListener('click', () => { state.skip += pageSize; loadPage(); });
    $('add-form').addEventListener('submit', addRow);
    $('edit-form').addEventListener('submit', saveEdit);
    $('edit-cancel').addEventListener('click', () => $('edit-dialog').close());
    try {
      const session = await request('GET', api + '/session');
      state.csrf = session.csrfToken;
      const wanted = new URLSearchParams(location.hash.slice(1)).get('class');
      if (wanted) await browse(wanted); else await showClasses();
    } catch (error) {
      showLogin();
    }
  }

  document.addEventListener('DOMContentLoaded', start);
})();
