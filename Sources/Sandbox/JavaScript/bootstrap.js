// The JavaScript that gives cloud code its AV.Cloud, console, timers, process.env and
// require('leanengine'), and the entry points the host calls for each step of an invocation.
//
// The natives (__fhSettle, __fhNote, __fhHostCall, __fhTimer) are captured here and removed
// from the global object, so user code can only reach the host through the SDK. It runs
// first, before the SDK files (sdk-*.js), which add to the AV it defines.
(function (global) {
  'use strict';
  var native = { settle: global.__fhSettle, note: global.__fhNote, hostCall: global.__fhHostCall, timer: global.__fhTimer };
  delete global.__fhSettle; delete global.__fhNote; delete global.__fhHostCall; delete global.__fhTimer;

  var functions = Object.create(null);
  // Maps, not objects keyed by id (here and for calls and timers): ids only grow, and
  // JavaScriptCore enumerates an object's index-like keys over the whole range it has seen,
  // which made every `for in` over them cost more with each call the worker had served (a
  // quarter of a JS call's CPU in a profile under wrk).
  var live = new Map();
  // `current` is the invocation whose step is running. It is no identity (see __fhCall),
  // only the route for host calls, timers and logs. Host calls and timers are kept here,
  // each with the invocation it went through, which counts it as pending: an invocation
  // that answered stays live while anything it started is pending (its background work,
  // as LeanEngine's process runs on after the answer), so the answers of a promise shared
  // through module state still reach it. An answered invocation tells the host how much it
  // has pending and how many lines it logged each time either changes (native.note), so the
  // host ends a settled one after a step without calling in again: at once when it logged
  // nothing since its answer, through __fhSettled (for its lines) when it did. The script
  // drops the ones the host ended alone at the start of the next step (sweep()), the same
  // test on the same counts. An invocation stopped (deadline, failure, background bound)
  // takes its calls and timers with it (forget()).
  var current = 0, callSeq = 0, timerSeq = 0;
  var calls = new Map(), timers = new Map();
  // The invocation a step's host calls go through: the running one, or, once it has ended
  // (its code finished while another call's continuation still runs), any live one.
  function route() {
    if (live.has(current)) return current;
    for (var id of live.keys()) return id;
    return 0;
  }
  // Something an invocation started is pending, or no longer.
  function started(id) { var inv = live.get(id); if (inv) { inv.pending++; note(id, inv); } }
  function finished(id) { var inv = live.get(id); if (inv) { inv.pending--; note(id, inv); } }
  // What the host counts of an answered invocation: before its answer the answer says it.
  function note(id, inv) { if (inv.answered) native.note(id, inv.pending, inv.logs.length); }
  // A console line of an invocation, within its bound.
  function addLine(id, inv, line) {
    if (inv.logs.length >= maxLogLines) return;
    inv.logs.push(line);
    note(id, inv);
  }
  // Before a step: the answered invocations the host ended after the last one, having
  // nothing pending and no lines to collect (those with lines __fhSettled took already).
  function sweep() {
    live.forEach(function (inv, id) { if (inv.answered && inv.pending <= 0) live.delete(id); });
    forgetIfIdle();
  }
  // An invocation ended: its host calls and timers will never be answered.
  function forget(id) {
    live.delete(id);
    calls.forEach(function (call, callId) { if (call.inv === id) calls.delete(callId); });
    timers.forEach(function (timer, timerId) { if (timer.inv === id) timers.delete(timerId); });
    forgetIfIdle();
  }
  // With no invocation left on this worker nobody awaits anything: forget it all.
  function forgetIfIdle() {
    if (live.size) return;
    calls = new Map();
    timers = new Map();
  }
  var config = { maxResultBytes: 8 << 20 };
  // The host's operations, as Swift declares them (BridgeOperation), handed over at load
  // (__fhConfigure): name them through this table only, so a name Swift doesn't know is
  // refused here, not sent.
  var operations = Object.freeze({}), knownOperations = Object.create(null);
  var maxLogLines = 1000, maxLogLineLength = 16384;

  function CloudError(message, options) {
    var error = new Error(message);
    Object.setPrototypeOf(error, CloudError.prototype);
    error.code = (options && options.code) || 1;
    error.status = (options && options.status) || 400;
    return error;
  }
  CloudError.prototype = Object.create(Error.prototype);
  CloudError.prototype.name = 'AV.Cloud.Error';

  function describe(error) {
    if (error instanceof CloudError) return { code: error.code, status: error.status, message: error.message, user: true };
    if (typeof error === 'string') return { code: 1, status: 400, message: error, user: true };
    if (error && typeof error.code === 'number' && typeof error.message === 'string')
      return { code: error.code, status: error.status || 400, message: error.message, user: true };
    if (error instanceof Error) return { code: 141, status: 500, message: error.name + ': ' + error.message, user: false };
    return { code: 141, status: 500, message: String(error), user: false };
  }

  function invokeLocal(name, request) {
    var entry = functions[name];
    if (!entry) throw new CloudError("No such cloud function '" + name + "'", { code: 1, status: 404 });
    if (entry.fn.length >= 2) {
      return new Promise(function (resolve, reject) {
        entry.fn(request, { success: resolve, error: reject });
      });
    }
    return entry.fn(request);
  }

  var AV = global.AV = {
    // LeanEngine code may call AV.init with its keys: here the host's keys are the app's,
    // so it has nothing to do.
    init: function () {},
    Cloud: {
      define: function (name, options, fn) {
        if (typeof options === 'function') { fn = options; options = {}; }
        if (typeof name !== 'string' || typeof fn !== 'function') throw new TypeError('AV.Cloud.define(name, [options], fn)');
        if (functions[name]) throw new Error("Cloud function '" + name + "' is defined twice");
        functions[name] = { fn: fn, options: options || {} };
      },
      // The called function runs as the user the options name ({user} or {sessionToken}),
      // as LeanEngine's does; an unknown name is the host's 404 "No such cloud function".
      run: function (name, params, options) {
        var user = (options && options.user) || null;
        var token = (options && options.sessionToken) ||
          (user && typeof user.getSessionToken === 'function' ? user.getSessionToken() : null) || null;
        if (!functions[name]) return global.__fhCall(operations.cloudRun, { name: name, params: params || {},
          options: { sessionToken: token } });
        var inv = live.get(current);
        var meta = inv ? inv.meta : {};
        // A token alone names its user: the host looks it up, as for a client's call.
        var found = user || !token ? Promise.resolve(user) : global.__fhCall(operations.cloudUser, { sessionToken: token })
          .then(function (json) { return AV.User && AV.User._fromServer ? AV.User._fromServer(json) : json; });
        // LeanEngine sets both request.user and request.currentUser to the user it runs as.
        return found.then(function (currentUser) {
          return invokeLocal(name, { params: params || {}, meta: meta, currentUser: currentUser, user: currentUser,
            sessionToken: token || undefined });
        });
      },
      Error: CloudError
    }
  };

  // Hooks are functions under LeanEngine's names (`__before_save_for_Todo`), so the host
  // lists and calls them like any other.
  var hookNames = { beforeSave: 'before_save', afterSave: 'after_save', beforeUpdate: 'before_update',
    afterUpdate: 'after_update', beforeDelete: 'before_delete', afterDelete: 'after_delete',
    beforeFind: 'before_find', afterFind: 'after_find', beforeSubscribe: 'before_subscribe',
    afterLiveQueryEvent: 'after_live_query_event' };
  Object.keys(hookNames).forEach(function (kind) {
    AV.Cloud[kind] = function (className, fn) {
      if (className && typeof className === 'function' && className.prototype && className.prototype.className)
        className = className.prototype.className;
      if (typeof className !== 'string' || typeof fn !== 'function') throw new TypeError('AV.Cloud.' + kind + '(className, fn)');
      var name = '__' + hookNames[kind] + '_for_' + className;
      if (functions[name]) throw new Error('The ' + kind + ' hook of ' + className + ' is defined twice');
      functions[name] = { fn: fn, options: { hook: kind, className: className } };
    };
  });
  AV.Cloud.onVerified = function (type, fn) {
    if ((type !== 'sms' && type !== 'email') || typeof fn !== 'function') throw new TypeError("AV.Cloud.onVerified('sms'|'email', fn)");
    functions['__on_verified_' + type] = { fn: fn, options: { hook: 'onVerified', className: type } };
  };
  AV.Cloud.onLogin = function (fn) { functions['__on_login__User'] = { fn: fn, options: { hook: 'onLogin', className: '_User' } }; };
  AV.Cloud.onAuthData = function (fn) { functions['__on_authdata__User'] = { fn: fn, options: { hook: 'onAuthData', className: '_User' } }; };
  // File hooks, as Parse Server had them (LeanEngine has none): request.file is the file's
  // JSON (name, mime_type, metaData, size); a before-hook may change it, or throw to refuse.
  ['beforeSaveFile', 'afterSaveFile', 'beforeDeleteFile', 'afterDeleteFile'].forEach(function (kind) {
    AV.Cloud[kind] = function (fn) {
      if (typeof fn !== 'function') throw new TypeError('AV.Cloud.' + kind + '(fn)');
      functions['__' + kind + '__File'] = { fn: fn, options: { hook: kind, className: '_File' } };
    };
  });
  // Who a data call acts as is never "the invocation whose step is running": a continuation
  // of one call can run inside another's step (a promise shared through module state), so
  // the step says nothing about whose code this is. A call acts as its options say
  // ({useMasterKey}, {sessionToken}, {user}); without them, as the app: with the master key
  // when AV.Cloud.useMasterKey() was called at load time (LeanEngine's template does), else
  // with no user and no master key, as LeanEngine does. Called while serving a call, it
  // applies to that call only, so it never carries over to the next one.
  var appUsesMasterKey = false;
  AV.Cloud.useMasterKey = function (enabled) {
    var id = route(), inv = live.get(id);
    if (!inv) { appUsesMasterKey = enabled !== false; return; }
    // While serving a call there is no telling whose code this is, and LeanEngine's
    // process-wide switch would carry into every later call: refused, and said.
    addLine(id, inv, { level: 'warning', message:
      'AV.Cloud.useMasterKey() applies at load time only; pass { useMasterKey: true } to the data calls that need it.' });
  };

  // Reaching the host: a promise settled by a later step (__fhResolve).
  global.__fhCall = function (op, args) {
    if (typeof op !== 'string' || !knownOperations[op]) {
      return Promise.reject(new CloudError("Unknown host operation '" + String(op) + "'.", { code: 1 }));
    }
    var id = route();
    if (!live.has(id)) return Promise.reject(new CloudError('The host can only be reached while serving a request (not at load time).'));
    var options = args && args.options;
    if (options && typeof options.useMasterKey !== 'boolean') options.useMasterKey = appUsesMasterKey;
    return new Promise(function (resolve, reject) {
      var callId = ++callSeq;
      calls.set(callId, { resolve: resolve, reject: reject, inv: id });
      started(id);
      native.hostCall(id, callId, op, JSON.stringify(args === undefined ? null : args));
    });
  };

  function schedule(fn, ms, args, repeat) {
    var id = route(), timerId = ++timerSeq;
    if (typeof fn !== 'function') throw new TypeError('The timer callback must be a function');
    // A timer set at load time has no invocation to live in: it never fires.
    if (!live.has(id)) return timerId;
    ms = Math.max(0, Number(ms) || 0);
    timers.set(timerId, { fn: fn, args: args, ms: ms, repeat: repeat, inv: id });
    started(id);
    native.timer(id, timerId, ms);
    return timerId;
  }
  function clearTimer(timerId) {
    // Ids are numbers; one handed back as text ('3') still names its timer, as an object key did.
    timerId = Number(timerId);
    var timer = timers.get(timerId);
    if (!timer) return;
    timers.delete(timerId);
    finished(timer.inv);
  }
  global.setTimeout = function (fn, ms) { return schedule(fn, ms, Array.prototype.slice.call(arguments, 2), false); };
  global.setInterval = function (fn, ms) { return schedule(fn, ms, Array.prototype.slice.call(arguments, 2), true); };
  global.setImmediate = function (fn) { return schedule(fn, 0, Array.prototype.slice.call(arguments, 1), false); };
  global.clearTimeout = global.clearInterval = global.clearImmediate = clearTimer;

  function log(level) {
    return function () {
      var id = route(), inv = live.get(id);
      if (!inv || inv.logs.length >= maxLogLines) return;
      var parts = [];
      for (var i = 0; i < arguments.length; i++) {
        var a = arguments[i];
        if (typeof a === 'string') { parts.push(a); continue; }
        if (a instanceof Error) { parts.push(a.stack ? a.name + ': ' + a.message + '\n' + a.stack : String(a)); continue; }
        try { parts.push(JSON.stringify(a)); } catch (e) { parts.push(String(a)); }
      }
      // A line is bounded as the count is: one logged string must not become a copy per
      // line held by the host's log (a 300 KB string logged 1000 times).
      var message = parts.join(' ');
      if (message.length > maxLogLineLength) {
        message = message.slice(0, maxLogLineLength) + '… (' + (message.length - maxLogLineLength) + ' more characters)';
      }
      addLine(id, inv, { level: level, message: message });
    };
  }
  global.console = { log: log('info'), info: log('info'), warn: log('warning'), error: log('error'), debug: log('debug') };
  global.process = { env: {} };
  // Each file is a CommonJS module, as in Node: its top-level names are its own (two files
  // may each say `const AV = require('leanengine')`), and `require('./other')` returns
  // another file's `module.exports`.
  var modules = Object.create(null);
  function sdk(name) { return name === 'leanengine' || name === 'leancloud-storage' || name === 'avoscloud-sdk'; }
  function resolve(from, name) {
    var parts = from.split('/').slice(0, -1);
    name.split('/').forEach(function (part) {
      if (part === '..') parts.pop(); else if (part !== '.' && part !== '') parts.push(part);
    });
    var path = parts.join('/');
    var candidates = [path, path + '.js', path + '/index.js'];
    for (var i = 0; i < candidates.length; i++) if (modules[candidates[i]]) return candidates[i];
    return null;
  }
  function requireFrom(from) {
    return function (name) {
      if (sdk(name)) return AV;
      if (typeof name === 'string' && (name.indexOf('./') === 0 || name.indexOf('../') === 0)) {
        var path = resolve(from, name);
        if (path) return global.__fhRequireModule(path);
      }
      throw new Error("Cannot find module '" + name + "': only the host's AV SDK and the app's own files can be required");
    };
  }
  global.require = requireFrom('');
  global.__fhDefineModule = function (path, body) {
    modules[path] = { body: body, module: null };
  };
  global.__fhRequireModule = function (path) {
    var entry = modules[path];
    if (entry.module) return entry.module.exports;
    var module = entry.module = { exports: {}, id: path, filename: path, loaded: false };
    var directory = path.split('/').slice(0, -1).join('/');
    entry.body.call(module.exports, module.exports, requireFrom(path), module, path, directory);
    module.loaded = true;
    return module.exports;
  };

  // The answer. The invocation stays live for what it started (its background work) when
  // the host keeps it; its later console lines go with the background work's end.
  function settle(id, ok, value) {
    var inv = live.get(id);
    if (!inv || inv.answered) return;
    inv.answered = true;
    var outcome;
    if (ok) {
      try {
        var encoded = inv.rpc && AV._encode ? AV._encode(value, true) : value;
        outcome = { ok: true, value: encoded === undefined ? null : encoded };
      } catch (e) { outcome = { ok: false, error: describe(e) }; }
    } else {
      outcome = { ok: false, error: describe(value) };
    }
    outcome.logs = inv.logs;
    // The host checks that the function that ran is the one it asked for.
    outcome.ran = inv.name;
    var text;
    try { text = JSON.stringify(outcome); } catch (e) {
      text = JSON.stringify({ ok: false, error: describe(e), logs: inv.logs, ran: inv.name });
    }
    if (text.length > config.maxResultBytes) {
      text = JSON.stringify({ ok: false, logs: inv.logs, ran: inv.name, error: { code: 141, status: 500, user: false,
        message: 'The result is ' + text.length + ' bytes long, more than the ' + config.maxResultBytes + ' allowed' } });
    }
    inv.logs = [];
    if (!native.settle(id, text, inv.pending)) forget(id);
  }

  // Entry points: one per kind of step.
  global.__fhConfigure = function (text) {
    var settings = JSON.parse(text);
    config.maxResultBytes = settings.maxResultBytes;
    global.process.env = Object.freeze(settings.env || {});
    operations = Object.freeze(settings.operations || {});
    knownOperations = Object.create(null);
    Object.keys(operations).forEach(function (name) { knownOperations[operations[name]] = true; });
    AV._operations = operations;
  };
  global.__fhNames = function () {
    return Object.keys(functions).map(function (name) {
      var options = functions[name].options;
      return { name: name, internal: !!options.internal, fetchUser: options.fetchUser !== false,
        hook: options.hook || null, className: options.className || null };
    });
  };

  // A hook's request as the SDK's objects, and its answer back as JSON.
  function objectFrom(className, json) {
    if (!json) return null;
    if (!AV._decode) return json;
    var typed = { __type: 'Object', className: className };
    // A field named like the typed form's own keys would change what the object is.
    for (var key in json) if (key !== '__type' && key !== 'className') typed[key] = json[key];
    return AV._decode(typed);
  }
  function fieldsOf(object) {
    if (!object || !AV._encode) return object;
    var json = AV._encode(object, true);
    delete json.__type; delete json.className;
    return json;
  }
  function hookRequest(request) {
    var kind = request.kind, className = request.className;
    // The body's user is the hook's request.user and request.currentUser, one AV.User, as
    // LeanEngine's SDK sets both; set on the object, it is saved as a Pointer to it.
    if (request.user) request.user = request.currentUser = AV.User && AV.User._fromServer ? AV.User._fromServer(request.user) : request.user;
    if (kind === 'beforeFind' || kind === 'afterFind' || kind === 'beforeSubscribe') {
      var parameters = { className: className };
      for (var key in request.object) parameters[key] = request.object[key];
      request.query = AV.Query && AV.Query.fromJSON ? AV.Query.fromJSON(parameters) : parameters;
      if (kind === 'afterFind') request.objects = (request.results || []).map(function (json) { return objectFrom(className, json); });
    } else if (/File$/.test(kind)) {
      request.file = request.object;
    } else if (kind === 'onAuthData') {
      // LeanEngine's shape: request.authData, and the hook returns the providers to use.
      request.authData = request.object ? request.object.authData : null;
    } else {
      // onVerified's "class" is its channel (sms, email); its object is the user.
      request.object = objectFrom(kind === 'onVerified' ? '_User' : className, request.object);
      request.original = objectFrom(className, request.original);
      // A user hook's user is its object, as LeanEngine gives it.
      if ((kind === 'onVerified' || kind === 'onLogin') && !request.user) request.user = request.currentUser = request.object;
      // A LiveQuery event's operation (create, update, enter, leave, delete, login), as Parse names it.
      if (kind === 'afterLiveQueryEvent') request.event = request.context ? request.context.op : undefined;
      if (request.object) {
        request.object.updatedKeys = request.updatedKeys || [];
        // Saving the object a hook was given runs no hook again: no loop by accident.
        if (request.object.disableBeforeHook) { request.object.disableBeforeHook(); request.object.disableAfterHook(); }
      }
    }
    delete request.results;
    return request;
  }
  function hookAnswer(request, value) {
    var kind = request.kind;
    if (kind === 'onAuthData') {
      return { object: { authData: value !== undefined && value !== null ? value : request.authData }, context: request.context };
    }
    if (kind === 'beforeFind' || kind === 'beforeSubscribe') {
      var query = request.query;
      return { object: query && typeof query.toJSON === 'function' ? query.toJSON() : query, context: request.context };
    }
    if (kind === 'afterFind') return { results: (request.objects || []).map(fieldsOf), context: request.context };
    if (/File$/.test(kind)) return { object: request.file, context: request.context };
    // Which keys the hook set or unset, so a key it left alone keeps the client's operation
    // even where its value can't show the difference (a relation's).
    var object = request.object;
    var changed = object && typeof object.dirtyKeys === 'function'
      ? object.dirtyKeys().map(function (key) { return String(key).split('.')[0]; }) : undefined;
    return { object: fieldsOf(object), changed: changed, context: request.context };
  }
  // mode: 'function' (plain JSON), 'rpc' (typed values both ways), 'hook' or
  // 'hookWithoutAnswer' (an after-hook's: the host doesn't read what it leaves).
  global.__fhInvoke = function (id, name, requestText, mode) {
    sweep();
    current = id;
    var request = JSON.parse(requestText);
    var inv = { logs: [], rpc: mode === 'rpc', meta: request.meta || {}, name: name, answered: false, pending: 0 };
    live.set(id, inv);
    var hook = mode === 'hook' || mode === 'hookWithoutAnswer';
    try {
      if (hook) {
        request = hookRequest(request);
      } else {
        if (mode === 'rpc' && AV._decode) request.params = AV._decode(request.params);
        if (request.currentUser && AV.User && AV.User._fromServer) request.currentUser = AV.User._fromServer(request.currentUser);
        // LeanEngine's request carries the caller's user twice: user and currentUser.
        request.user = request.currentUser;
      }
      var out = invokeLocal(name, request);
      var done = mode === 'hook' ? function (v) { settle(id, true, hookAnswer(request, v)); }
        : hook ? function () { settle(id, true, null); } : function (v) { settle(id, true, v); };
      if (out && typeof out.then === 'function') {
        out.then(done, function (e) { settle(id, false, e); });
      } else {
        done(out);
      }
    } catch (e) {
      settle(id, false, e);
    }
  };
  // `id` is the live invocation the step is charged to: the one the call went through, or,
  // once that one has answered, one started before that on this worker and still live.
  global.__fhResolve = function (id, callId, ok, text) {
    sweep();
    current = id;
    var call = calls.get(callId);
    if (!call) return;
    calls.delete(callId);
    finished(call.inv);
    var value = JSON.parse(text);
    if (ok) return call.resolve(value);
    var error = AV.Error ? new AV.Error(value.code, value.message) : new CloudError(value.message, { code: value.code });
    if (value.status) error.status = value.status;
    call.reject(error);
  };
  global.__fhFire = function (id, timerId) {
    sweep();
    current = id;
    var timer = timers.get(timerId);
    if (!timer) return;
    // An interval runs on (pending) while its invocation lives: past the answer, until the
    // background bound ends it.
    if (timer.repeat && live.has(timer.inv)) {
      native.timer(timer.inv, timerId, timer.ms);
    } else {
      timers.delete(timerId);
      finished(timer.inv);
    }
    if (timer.repeat && !live.has(timer.inv)) return;
    timer.fn.apply(null, timer.args);
  };
  // The host stopped an invocation: the console lines it logged since its answer.
  global.__fhAbort = function (id) {
    var inv = live.get(id);
    forget(id);
    return inv && inv.answered ? inv.logs : undefined;
  };
  // After a step where an invocation the host counts as settled logged since its answer: the
  // answered invocations with nothing pending any more, and their lines.
  global.__fhSettled = function () {
    var settled = [];
    live.forEach(function (inv, id) {
      if (inv.answered && inv.pending <= 0) settled.push({ id: id, logs: inv.logs });
    });
    for (var i = 0; i < settled.length; i++) live.delete(settled[i].id);
    forgetIfIdle();
    return settled.length ? settled : undefined;
  };
})(this);
