// The FunctionHost console's core: plain DOM, no library. Every value from the server is written
// with textContent, never as HTML. The master key is sent once, to /console/login; after that the
// page holds only the CSRF token it reads from /console/api/session, and its cookie (HttpOnly) is
// the browser's. Each page's script (console-*.js, loaded after this one) registers its view here.
'use strict';

(function () {
  const api = '/console/api';
  const state = { csrf: null, current: null };
  const views = [];
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

  function button(text, onClick, className, label) {
    const el = element('button', text, className);
    el.type = 'button';
    if (label) el.setAttribute('aria-label', label);
    el.addEventListener('click', onClick);
    return el;
  }

  // One request to the console's API: JSON in and out, the CSRF token on every request (a GET
  // may run a function: the server asks the token of reads too); staging's functions are named
  // by X-LC-Prod: 0, as a client names them.
  async function request(method, path, body, environment) {
    const headers = { 'Accept': 'application/json', 'X-Console-CSRF': state.csrf || '' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (environment === 'staging') headers['X-LC-Prod'] = '0';
    const response = await fetch(path, {
      method, headers, credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch (e) { json = text; }
    if (response.status === 401) { showLogin(); throw new Error('Logged out: log in again.'); }
    if (!response.ok) {
      throw new Error((json && json.error ? json.error : 'HTTP ' + response.status) + (json && json.code ? ' (code ' + json.code + ')' : ''));
    }
    return json;
  }

  // A table body filled with one row per item, each cell a text or an element.
  function fillTable(table, items, cells, empty) {
    const body = table.tBodies[0];
    body.replaceChildren();
    for (const item of items) {
      const row = element('tr');
      for (const cell of cells(item)) {
        const td = element('td');
        if (cell instanceof Node) td.append(cell); else td.textContent = cell === undefined || cell === null ? '' : String(cell);
        row.append(td);
      }
      body.append(row);
    }
    if (!items.length && empty) {
      const row = element('tr');
      const td = element('td', empty, 'hint');
      td.colSpan = table.tHead ? table.tHead.rows[0].cells.length : 1;
      row.append(td);
      body.append(row);
    }
  }

  // Registers a page: { name, label (its nav button, none for a page reached from another),
  // section (its element's id), open(argument), leave() (stops its timers) }.
  function register(view) {
    views.push(view);
  }

  function leaveCurrent() {
    if (state.current && state.current.leave) state.current.leave();
    state.current = null;
  }

  function showSection(id) {
    for (const section of document.querySelectorAll('main > section')) section.hidden = section.id !== id;
    const loggedIn = id !== 'login-view';
    $('logout').hidden = !loggedIn;
    $('console-nav').hidden = !loggedIn;
  }

  // Opens a page by name; its address (#view=name&arg=...) lets a reload come back to it.
  async function open(name, argument) {
    const view = views.find((candidate) => candidate.name === name);
    if (!view) return open('classes');
    leaveCurrent();
    // The last page's outcome is not this one's.
    status('');
    state.current = view;
    showSection(view.section);
    for (const navButton of $('console-nav').querySelectorAll('button')) {
      if (navButton.dataset.view === name) navButton.setAttribute('aria-current', 'page'); else navButton.removeAttribute('aria-current');
    }
    const address = new URLSearchParams({ view: name });
    if (argument) address.set('arg', argument);
    history.replaceState(null, '', '#' + address);
    try {
      await view.open(argument);
    } catch (error) {
      status(error.message, true);
    }
  }

  function showLogin() {
    state.csrf = null;
    leaveCurrent();
    showSection('login-view');
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
      await open('classes');
    } catch (error) {
      status(error.message, true);
    }
  }

  async function logout() {
    try { await request('POST', api + '/logout', {}); } catch (e) { /* logged out either way */ }
    status('Logged out.');
    showLogin();
  }

  function buildNav() {
    const nav = $('console-nav');
    for (const view of views) {
      if (!view.label) continue;
      const navButton = button(view.label, () => open(view.name));
      navButton.id = 'nav-' + view.name;
      navButton.dataset.view = view.name;
      nav.append(navButton);
    }
  }

  async function start() {
    buildNav();
    $('login-form').addEventListener('submit', login);
    $('logout').addEventListener('click', logout);
    for (const view of views) if (view.setUp) view.setUp();
    try {
      const session = await request('GET', api + '/session');
      state.csrf = session.csrfToken;
      const wanted = new URLSearchParams(location.hash.slice(1));
      await open(wanted.get('view') || 'classes', wanted.get('arg') || undefined);
    } catch (error) {
      showLogin();
    }
  }

  window.FHConsole = { api, $, status, element, button, request, fillTable, register, open };
  document.addEventListener('DOMContentLoaded', start);
})();
