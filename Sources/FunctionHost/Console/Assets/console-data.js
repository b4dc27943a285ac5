// The class list and the data browser: paged, filtered with the query language, typed values
// shown as such (files previewed), a field edited, rows added and deleted.
'use strict';

(function () {
  const { api, $, status, element, button, request, register, open } = window.FHConsole;
  const pageSize = 50;
  const state = { className: null, skip: 0, where: '', count: 0, rows: [], columns: [] };
  const imageName = /\.(png|jpe?g|gif|webp|avif|bmp|ico)$/i;

  // The class list, with each class's count.
  async function showClasses() {
    const schemas = await request('GET', api + '/1.1/schemas');
    const names = Object.keys(schemas || {}).sort();
    const body = $('classes-table').tBodies[0];
    body.replaceChildren();
    for (const name of names) {
      const row = element('tr');
      const nameCell = element('td');
      const openButton = button(name, () => open('browser', name), 'link');
      openButton.dataset.className = name;
      nameCell.append(openButton);
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
        case 'File': return { type: 'File', text: value.name || '' };
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

  // A file's address, only when it is this host's /files path or an http(s) URL: a stored
  // value is anyone's writing, and a javascript: URL must never become a link.
  function fileURL(value) {
    const url = typeof value.url === 'string' ? value.url : '';
    if (url.startsWith('/') && !url.startsWith('//')) return url;
    try {
      const parsed = new URL(url);
      // This host's own file under another name (its --public-url): asked of the console's own
      // origin, which the page's Content-Security-Policy lets an <img> load.
      if (parsed.pathname.startsWith('/files/')) return parsed.pathname + parsed.search;
      return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
    } catch (e) {
      return null;
    }
  }

  // A file shown as itself: an image by an <img> of its URL, anything else as a link.
  function filePreview(value) {
    const url = fileURL(value);
    if (!url) return null;
    const name = value.name || url;
    const type = (value.metaData && value.metaData.mime_type) || value.mime_type || '';
    if (type.startsWith('image/') || imageName.test(name)) {
      const image = element('img', null, 'preview');
      image.src = url;
      image.alt = 'Preview of ' + name;
      image.loading = 'lazy';
      return image;
    }
    const link = element('a', 'Open ' + name);
    link.href = url;
    link.target = '_blank';
    link.rel = 'noopener noreferrer';
    return link;
  }

  function valueCell(value, column) {
    const cell = element('td');
    const shown = describe(value);
    // The built-in dates are ISO strings on the wire, Dates in meaning.
    if (column === 'createdAt' || column === 'updatedAt') shown.type = 'Date';
    if (shown.type) cell.append(element('span', shown.type, 'type'));
    cell.append(element('span', shown.text, value === null ? 'value null' : 'value'));
    if (shown.type === 'File') {
      const preview = filePreview(value);
      if (preview) cell.append(element('br'), preview);
    }
    return cell;
  }

  async function browse(className) {
    if (!className) return open('classes');
    state.className = className;
    state.skip = 0;
    state.where = '';
    $('where').value = '';
    $('browser-title').textContent = className;
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
    for (const column of state.columns.concat(['Actions'])) {
      const th = element('th', column);
      th.scope = 'col';
      headRow.append(th);
    }
    head.append(headRow);
    const body = $('objects-table').tBodies[0];
    body.replaceChildren();
    for (const row of state.rows) {
      const tr = element('tr');
      tr.dataset.objectId = row.objectId;
      for (const column of state.columns) {
        const cell = valueCell(row[column], column);
        if (!['objectId', 'createdAt', 'updatedAt'].includes(column)) {
          cell.append(' ', button('Edit', () => openEditor(row, column), 'link', 'Edit ' + column + ' of ' + row.objectId));
        }
        tr.append(cell);
      }
      const cell = element('td');
      cell.append(button('Delete', () => removeRow(row.objectId), 'danger', 'Delete ' + row.objectId));
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

  function setUp() {
    $('filter-form').addEventListener('submit', applyFilter);
    $('clear-filter').addEventListener('click', () => { $('where').value = ''; state.where = ''; state.skip = 0; loadPage(); });
    $('previous-page').addEventListener('click', () => { state.skip = Math.max(0, state.skip - pageSize); loadPage(); });
    $('next-page').addEventListener('click', () => { state.skip += pageSize; loadPage(); });
    $('add-form').addEventListener('submit', addRow);
    $('edit-form').addEventListener('submit', saveEdit);
    $('edit-cancel').addEventListener('click', () => $('edit-dialog').close());
  }

  register({ name: 'classes', label: 'Classes', section: 'classes-view', open: showClasses, setUp });
  register({ name: 'browser', section: 'browser-view', open: browse });
})();
