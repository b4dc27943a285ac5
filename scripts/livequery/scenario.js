'use strict';
// LiveQuery with a real client: LeanCloud's JS SDK (its LiveQuery build, used as it is) against a
// `functionhost serve` this script starts. The SDK looks the realtime server up (`/v1/route`),
// opens its `lc.protobuf2.3` socket, logs in and subscribes; another client (plain REST here)
// writes, and each event kind must arrive: create, update, enter, leave, delete, and login on a
// `_User` subscription. Then the server is stopped and started again on the same port and data:
// the SDK must reconnect, resubscribe, and receive events again.
//
//   node scenario.js <functionhost binary> <av-live-query-core.js>
// with NODE_PATH reaching Debian's node-ws. Exit status 0 when every check passed.
const childProcess = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');
const WebSocket = require('ws');

const [binary, sdkPath] = process.argv.slice(2);
const APP_ID = 'livequery-app';
const APP_KEY = 'livequery-key';
const MASTER = 'livequery-master';
const WAIT_MS = 30000;

let failures = 0;
let passes = 0;
function check(label, ok) {
  if (ok) passes += 1;
  else {
    failures += 1;
    console.log(`FAILED: ${label}`);
  }
}

// --- the server -----------------------------------------------------------------------------
const data = fs.mkdtempSync(path.join(os.tmpdir(), 'livequery-data-'));
const logFile = path.join(data, 'server.log');
let server;
let port;

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port: chosen } = probe.address();
      probe.close(() => resolve(chosen));
    });
  });
}

async function startServer() {
  const log = fs.openSync(logFile, 'a');
  server = childProcess.spawn(binary, ['serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', data, '--functions', data], {
    stdio: ['ignore', log, log],
    env: Object.assign({}, process.env, {
      LEANCLOUD_APP_ID: APP_ID, LEANCLOUD_APP_KEY: APP_KEY, LEANCLOUD_APP_MASTER_KEY: MASTER, LEANCLOUD_APP_HOOK_KEY: 'hook',
    }),
  });
  const until = Date.now() + WAIT_MS;
  while (Date.now() < until) {
    try {
      const answer = await fetch(`http://127.0.0.1:${port}/__engine/1/ping`);
      if (answer.ok) return;
    } catch (error) { /* not listening yet */ }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the server did not start');
}

function stopServer() {
  return new Promise((resolve) => {
    if (!server || server.exitCode !== null) return resolve();
    server.once('exit', () => resolve());
    server.kill('SIGTERM');
  });
}

// --- the other client: plain REST ------------------------------------------------------------
async function rest(method, route, body, session) {
  const headers = { 'X-LC-Id': APP_ID, 'X-LC-Key': APP_KEY, 'Content-Type': 'application/json' };
  if (session) headers['X-LC-Session'] = session;
  const answer = await fetch(`http://127.0.0.1:${port}/1.1${route}`, { method, headers, body: body && JSON.stringify(body) });
  const json = await answer.json();
  if (!answer.ok) throw new Error(`${method} ${route}: ${answer.status} ${JSON.stringify(json)}`);
  return json;
}

// --- the SDK's platform: requests on fetch, storage in memory, WebSocket from node-ws ---------
let subscribeAnswers = 0;
async function request(url, options = {}) {
  const method = (options.method || 'GET').toUpperCase();
  const headers = {};
  for (const [name, value] of Object.entries(options.headers || {})) if (value !== undefined && value !== null) headers[name] = String(value);
  let body;
  if (options.data !== undefined && options.data !== null) body = typeof options.data === 'string' ? options.data : JSON.stringify(options.data);
  const answer = await fetch(url, { method, headers, body });
  const text = await answer.text();
  let parsed;
  try { parsed = text ? JSON.parse(text) : undefined; } catch (error) { parsed = undefined; }
  if (answer.ok && /\/LiveQuery\/subscribe$/.test(new URL(url).pathname)) subscribeAnswers += 1;
  const answerHeaders = {};
  answer.headers.forEach((value, name) => { answerHeaders[name] = value; });
  return { status: answer.status, ok: answer.ok, headers: answerHeaders, data: parsed, text };
}

const memory = new Map();
const storage = {
  async: false,
  getItem: (key) => (memory.has(key) ? memory.get(key) : null),
  setItem: (key, value) => { memory.set(key, String(value)); },
  removeItem: (key) => { memory.delete(key); },
  clear: () => { memory.clear(); },
};

// --- events, waited for one at a time ---------------------------------------------------------
function recorder(liveQuery, kinds) {
  const seen = [];
  const waiters = [];
  for (const kind of kinds) {
    liveQuery.on(kind, (object, updatedKeys) => {
      seen.push({ kind, object, updatedKeys });
      for (const waiter of waiters.splice(0)) waiter();
    });
  }
  return async function next(kind, objectId) {
    const until = Date.now() + WAIT_MS;
    for (;;) {
      const index = seen.findIndex((event) => event.kind === kind && (!objectId || event.object.id === objectId));
      if (index >= 0) return seen.splice(index, 1)[0];
      const left = until - Date.now();
      if (left <= 0) return undefined;
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, left);
        waiters.push(() => { clearTimeout(timer); resolve(); });
      });
    }
  };
}

async function waitFor(condition) {
  const until = Date.now() + WAIT_MS;
  while (!condition()) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

async function main() {
  port = await freePort();
  await startServer();
  const AV = require(sdkPath);
  AV.setAdapters({ request, storage, WebSocket });
  AV.init({ appId: APP_ID, appKey: APP_KEY, serverURLs: `http://127.0.0.1:${port}` });

  // The subscriber: a user of its own; the writer: another user.
  const alice = await rest('POST', '/users', { username: 'alice', password: 'alice-pass-1' });
  const bob = await rest('POST', '/users', { username: 'bob', password: 'bob-pass-1' });
  await AV.User.become(alice.sessionToken);

  const todos = await new AV.Query('Todo').greaterThanOrEqualTo('priority', 2).subscribe();
  const nextTodo = recorder(todos, ['create', 'update', 'enter', 'leave', 'delete']);
  const me = await new AV.Query('_User').equalTo('objectId', alice.objectId).subscribe();
  const nextUser = recorder(me, ['login', 'update']);

  const open = { ACL: { '*': { read: true, write: true } } };
  const todo = await rest('POST', '/classes/Todo', Object.assign({ title: 'milk', priority: 3 }, open), bob.sessionToken);
  const created = await nextTodo('create', todo.objectId);
  check('create arrives, as a Todo with its fields', created && created.object.className === 'Todo' && created.object.get('title') === 'milk');

  await rest('PUT', `/classes/Todo/${todo.objectId}`, { title: 'oat milk' }, bob.sessionToken);
  const updated = await nextTodo('update', todo.objectId);
  check('update arrives with its updatedKeys', updated && updated.object.get('title') === 'oat milk' && updated.updatedKeys.includes('title'));

  await rest('PUT', `/classes/Todo/${todo.objectId}`, { priority: 1 }, bob.sessionToken);
  check('leave arrives when the object stops matching', Boolean(await nextTodo('leave', todo.objectId)));

  await rest('PUT', `/classes/Todo/${todo.objectId}`, { priority: 5 }, bob.sessionToken);
  const entered = await nextTodo('enter', todo.objectId);
  check('enter arrives when it matches again', entered && entered.object.get('priority') === 5);

  await rest('DELETE', `/classes/Todo/${todo.objectId}`, undefined, bob.sessionToken);
  check('delete arrives', Boolean(await nextTodo('delete', todo.objectId)));

  await rest('POST', '/login', { username: 'alice', password: 'alice-pass-1' });
  const login = await nextUser('login', alice.objectId);
  check('login arrives on the _User subscription', login && login.object.get('username') === 'alice');

  // The server stops and starts again on the same port and data: the SDK reconnects, logs in
  // and subscribes again (both queries), and events flow as before.
  const subscribedBefore = subscribeAnswers;
  await stopServer();
  await startServer();
  check('the SDK subscribes again after the restart', await waitFor(() => subscribeAnswers >= subscribedBefore + 2));
  const again = await rest('POST', '/classes/Todo', Object.assign({ title: 'bread', priority: 2 }, open), bob.sessionToken);
  const afterRestart = await nextTodo('create', again.objectId);
  check('events arrive after the restart', afterRestart && afterRestart.object.get('title') === 'bread');

  await todos.unsubscribe();
  await me.unsubscribe();
}

const deadline = setTimeout(() => {
  console.log('FAILED: the scenario ran past 180 s');
  failures += 1;
  finish();
}, 180000);

function finish() {
  clearTimeout(deadline);
  stopServer().then(() => {
    if (failures) console.log(fs.readFileSync(logFile, 'utf8').split('\n').slice(-40).join('\n'));
    fs.rmSync(data, { recursive: true, force: true });
    console.log(`LiveQuery JS SDK scenario: ${passes} passed, ${failures} failed`);
    process.exit(failures ? 1 : 0);
  });
}

main().catch((error) => {
  failures += 1;
  console.log(`FAILED: ${error && error.stack ? error.stack : error}`);
}).then(finish);
