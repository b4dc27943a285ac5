/// The JavaScript that gives cloud code its `AV` object: `AV.Cloud.define`, `AV.Cloud.Error`,
/// `AV.Cloud.run`, `console`, `require('leanengine')`; and the entry points the host calls.
enum CloudCodeBootstrap {
    static let source = #"""
    (function (global) {
      'use strict';
      var functions = Object.create(null);
      var results = Object.create(null);
      var logs = [];
      var nextId = 0;

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
          return { code: error.code, status: 400, message: error.message, user: true };
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

      var AV = {
        Cloud: {
          define: function (name, options, fn) {
            if (typeof options === 'function') { fn = options; options = {}; }
            if (typeof name !== 'string' || typeof fn !== 'function') throw new TypeError('AV.Cloud.define(name, [options], fn)');
            if (functions[name]) throw new Error("Cloud function '" + name + "' is defined twice");
            functions[name] = { fn: fn, options: options || {} };
          },
          run: function (name, params, options) {
            try {
              return Promise.resolve(invokeLocal(name, { params: params || {}, meta: {}, currentUser: null,
                sessionToken: options && options.sessionToken }));
            } catch (e) { return Promise.reject(e); }
          },
          Error: CloudError
        }
      };

      function log(level) {
        return function () {
          var parts = [];
          for (var i = 0; i < arguments.length; i++) {
            var a = arguments[i];
            parts.push(typeof a === 'string' ? a : (function () { try { return JSON.stringify(a); } catch (e) { return String(a); } })());
          }
          logs.push({ level: level, message: parts.join(' ') });
        };
      }

      global.AV = AV;
      global.console = { log: log('info'), info: log('info'), warn: log('warning'), error: log('error'), debug: log('debug') };
      global.require = function (name) {
        if (name === 'leanengine' || name === 'leancloud-storage' || name === 'avoscloud-sdk') return AV;
        throw new Error("Cannot find module '" + name + "': only the host's AV SDK can be required");
      };

      global.__fhNames = function () {
        return Object.keys(functions).map(function (name) {
          return { name: name, internal: !!functions[name].options.internal };
        });
      };
      global.__fhInvoke = function (name, requestText) {
        var id = ++nextId;
        var request = JSON.parse(requestText);
        function settle(ok, value) {
          results[id] = ok ? { ok: true, value: value === undefined ? null : value } : { ok: false, error: describe(value) };
        }
        try {
          var out = invokeLocal(name, request);
          if (out && typeof out.then === 'function') {
            out.then(function (v) { settle(true, v); }, function (e) { settle(false, e); });
          } else {
            settle(true, out);
          }
        } catch (e) {
          settle(false, e);
        }
        return id;
      };
      global.__fhTake = function (id) {
        var result = results[id];
        delete results[id];
        var taken = logs;
        logs = [];
        if (result === undefined) result = { ok: false, error: { code: 141, status: 500, user: false,
          message: 'The function did not settle: it awaited something that never completed' } };
        result.logs = taken;
        return result;
      };
    })(this);
    """#
}
