// Metrics drawn as charts. The table gives every function's and route's totals since the host
// started, from its Prometheus histograms (GET /console/api/metrics, its /metrics text); the
// charts draw one of them per minute over the last hour (GET /console/api/metrics/history):
// calls, errors, and p50/p99 latency, as SVG drawn here (no library). Both are read again every
// ten seconds while the page is open.
'use strict';

(function () {
  const { api, $, status, element, button, request, fillTable, register } = window.FHConsole;
  const interval = 10000;
  const minutes = 60;
  const svgNS = 'http://www.w3.org/2000/svg';
  // `loop` numbers each run of the readings: one left or replaced drops its late answer.
  const state = { totals: null, history: null, timer: null, selected: null, loop: 0 };

  // One line of the text format: name, labels and value (`# ...` lines and others are skipped).
  function parseLine(line) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) return null;
    const labels = {};
    const pattern = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
    let label;
    while ((label = pattern.exec(match[2] || '')) !== null) labels[label[1]] = label[2].replace(/\\(.)/g, (all, c) => (c === 'n' ? '\n' : c));
    return { name: match[1], labels, value: Number(match[3]) };
  }

  // The histograms of functions and routes, summed per function (or route) and environment.
  function totals(text) {
    const groups = new Map();
    const kinds = {
      functionhost_function_duration_seconds: (l) => ['function ' + l.function + ' (' + l.environment + ')', l.outcome !== 'ok'],
      functionhost_http_request_duration_seconds: (l) => [l.method + ' ' + l.route + ' (' + l.environment + ')', Number(l.status) >= 500],
    };
    for (const line of text.split('\n')) {
      const parsed = parseLine(line);
      if (!parsed) continue;
      const base = parsed.name.replace(/_(bucket|count|sum)$/, '');
      if (!kinds[base]) continue;
      const [key, failed] = kinds[base](parsed.labels);
      if (!groups.has(key)) groups.set(key, { calls: 0, errors: 0, buckets: new Map() });
      const group = groups.get(key);
      if (parsed.name.endsWith('_count')) {
        group.calls += parsed.value;
        if (failed) group.errors += parsed.value;
      } else if (parsed.name.endsWith('_bucket')) {
        const le = parsed.labels.le === '+Inf' ? Infinity : Number(parsed.labels.le);
        group.buckets.set(le, (group.buckets.get(le) || 0) + parsed.value);
      }
    }
    return { groups };
  }

  // The q-quantile (seconds) of cumulative bucket counts, linear within its bucket.
  function quantile(buckets, q) {
    const bounds = Array.from(buckets.keys()).sort((a, b) => a - b);
    const total = bounds.length ? buckets.get(bounds[bounds.length - 1]) : 0;
    if (!total) return null;
    const target = q * total;
    let lower = 0;
    let below = 0;
    for (const bound of bounds) {
      const count = buckets.get(bound);
      if (count >= target) {
        if (bound === Infinity) return lower;
        return lower + (bound - lower) * (count > below ? (target - below) / (count - below) : 0);
      }
      lower = bound;
      below = count;
    }
    return lower;
  }

  function milliseconds(seconds) {
    return seconds === null ? '—' : (seconds * 1000).toFixed(seconds < 0.01 ? 2 : 1) + ' ms';
  }

  function renderTable() {
    const latest = state.totals;
    // Functions first, then routes, each by name.
    const keys = Array.from(latest.groups.keys()).sort((a, b) => (a.startsWith('function ') === b.startsWith('function ') ? a.localeCompare(b) : a.startsWith('function ') ? -1 : 1));
    fillTable($('metrics-table'), keys, (key) => {
      const group = latest.groups.get(key);
      return [
        button(key, () => select(key), 'link', 'Chart ' + key), String(group.calls), String(group.errors),
        milliseconds(quantile(group.buckets, 0.5)), milliseconds(quantile(group.buckets, 0.99)),
      ];
    }, 'Nothing counted yet.');
    if (!state.selected && keys.length) state.selected = keys.find((key) => key.startsWith('function ')) || keys[0];
  }

  function svg(tag, attributes) {
    const el = document.createElementNS(svgNS, tag);
    for (const [name, value] of Object.entries(attributes || {})) el.setAttribute(name, String(value));
    return el;
  }

  // One chart: a line per series over the minutes, its largest value on the axis.
  function chart(title, lines, format, times) {
    const width = 560;
    const height = 150;
    const pad = { left: 70, right: 10, top: 20, bottom: 24 };
    const values = lines.flatMap((line) => line.values).filter((value) => value !== null);
    const top = Math.max(...values, 0) || 1;
    const count = Math.max(...lines.map((line) => line.values.length), 2);
    const x = (index) => pad.left + (index * (width - pad.left - pad.right)) / (count - 1);
    const y = (value) => height - pad.bottom - (value / top) * (height - pad.top - pad.bottom);
    const last = lines.map((line) => line.name + ' ' + format(line.values[line.values.length - 1] ?? null)).join(', ');
    const root = svg('svg', { viewBox: '0 0 ' + width + ' ' + height, width, height, role: 'img', 'aria-label': title + ': latest ' + last, class: 'chart' });
    const titleElement = svg('title');
    titleElement.textContent = title;
    root.append(titleElement);
    root.append(svg('line', { x1: pad.left, y1: y(0), x2: width - pad.right, y2: y(0), class: 'axis' }));
    root.append(svg('line', { x1: pad.left, y1: pad.top, x2: pad.left, y2: y(0), class: 'axis' }));
    const label = (text, attributes) => { const el = svg('text', attributes); el.textContent = text; root.append(el); };
    label(title, { x: pad.left, y: 14, class: 'chart-title' });
    label(format(top), { x: pad.left - 6, y: pad.top + 4, 'text-anchor': 'end' });
    label(format(0), { x: pad.left - 6, y: y(0), 'text-anchor': 'end' });
    const clock = (time) => time.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hour12: false });
    label(clock(times[0]), { x: pad.left, y: height - 6 });
    label(clock(times[times.length - 1]), { x: width - pad.right, y: height - 6, 'text-anchor': 'end' });
    lines.forEach((line, index) => {
      const points = line.values.map((value, at) => (value === null ? null : [x(at), y(value)])).filter((point) => point);
      if (points.length) root.append(svg('polyline', { points: points.map((point) => point.join(',')).join(' '), class: 'series series-' + index }));
      // A marker on each minute that counted something: one such minute alone is a point, not a line.
      line.values.forEach((value, at) => {
        if (value) root.append(svg('circle', { cx: x(at), cy: y(value), r: 2.5, class: 'series series-' + index }));
      });
      label(line.name, { x: width - pad.right - 60 * (lines.length - index), y: 14, class: 'series-label series-' + index });
    });
    return root;
  }

  // The name a history series has in the table.
  function historyKey(series) {
    return (series.kind === 'function' ? 'function ' : '') + series.name + ' (' + series.environment + ')';
  }

  // A minute's buckets (each bucket's own count) as the cumulative counts quantile() reads.
  function cumulative(buckets, bounds) {
    const map = new Map();
    let total = 0;
    buckets.forEach((count, index) => {
      total += count;
      map.set(index < bounds.length ? bounds[index] : Infinity, total);
    });
    return map;
  }

  function renderCharts() {
    const key = state.selected;
    const history = state.history || { bounds: [], minutes: [] };
    $('metrics-chart-title').textContent = key ? key + ', per minute, the last hour' : 'Nothing counted yet';
    const charts = $('metrics-charts');
    if (!key) { charts.replaceChildren(); return; }
    // The hour's minutes up to now, each with this series' counts (none: no calls that minute).
    const last = Math.max(Math.floor(Date.now() / 60000) * 60, ...history.minutes.map((minute) => minute.start));
    const byStart = new Map(history.minutes.map((minute) => [minute.start, minute]));
    const times = [];
    const counts = [];
    for (let start = last - (minutes - 1) * 60; start <= last; start += 60) {
      times.push(new Date(start * 1000));
      const minute = byStart.get(start);
      counts.push(minute ? minute.series.find((series) => historyKey(series) === key) : undefined);
    }
    const count = (value) => String(Math.round(value));
    const latency = (q) => counts.map((series) => (series && series.calls ? quantile(cumulative(series.buckets, history.bounds), q) : null));
    charts.replaceChildren(
      chart('Calls', [{ name: 'calls', values: counts.map((series) => (series ? series.calls : 0)) }], count, times),
      chart('Errors', [{ name: 'errors', values: counts.map((series) => (series ? series.errors : 0)) }], count, times),
      chart('Latency', [{ name: 'p50', values: latency(0.5) }, { name: 'p99', values: latency(0.99) }], milliseconds, times));
  }

  function select(key) {
    state.selected = key;
    renderCharts();
  }

  async function read(loop) {
    state.timer = null;
    try {
      const [text, history] = await Promise.all([request('GET', api + '/metrics'), request('GET', api + '/metrics/history')]);
      if (loop !== state.loop) return;
      state.totals = totals(String(text));
      state.history = history;
      renderTable();
      renderCharts();
    } catch (error) {
      if (loop !== state.loop) return;
      status(error.message, true);
    }
    state.timer = setTimeout(() => read(loop), interval);
  }

  function stop() {
    state.loop += 1;
    if (state.timer) clearTimeout(state.timer);
    state.timer = null;
  }

  function start() {
    stop();
    read(state.loop);
  }

  register({ name: 'metrics', label: 'Metrics', section: 'metrics-view', open: async () => start(), leave: stop });
})();
