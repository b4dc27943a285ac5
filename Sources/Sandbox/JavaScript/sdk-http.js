// Outbound HTTP for cloud code: the standard fetch (the subset server code uses) and
// LeanEngine's older AV.Cloud.httpRequest, both over the host's http.request, which
// enforces the environment's allow-list, the call's deadline and a response-size limit.
(function (global) {
  'use strict';
  var AV = global.AV;

  function Headers(init) {
    var map = this._map = Object.create(null);
    if (init) Object.keys(init).forEach(function (name) { map[name.toLowerCase()] = String(init[name]); });
  }
  Headers.prototype.get = function (name) {
    var value = this._map[String(name).toLowerCase()];
    return value === undefined ? null : value;
  };
  Headers.prototype.has = function (name) { return String(name).toLowerCase() in this._map; };
  Headers.prototype.set = function (name, value) { this._map[String(name).toLowerCase()] = String(value); };
  Headers.prototype.forEach = function (fn) {
    var map = this._map;
    Object.keys(map).forEach(function (name) { fn(map[name], name); });
  };
  Headers.prototype.toObject = function () { return Object.assign({}, this._map); };

  function Response(url, answer) {
    this.url = url;
    this.status = answer.status;
    this.ok = answer.status >= 200 && answer.status < 300;
    this.statusText = String(answer.status);
    this.headers = new Headers(answer.headers || {});
    this._text = answer.text || '';
  }
  Response.prototype.text = function () { return Promise.resolve(this._text); };
  Response.prototype.json = function () {
    var text = this._text;
    return new Promise(function (resolve) { resolve(JSON.parse(text)); });
  };

  function send(url, method, headers, body) {
    return global.__fhCall(AV._operations.httpRequest, { url: String(url), method: (method || 'GET').toUpperCase(),
      headers: headers, body: body === undefined || body === null ? null : String(body) });
  }

  global.Headers = Headers;
  global.fetch = function (url, init) {
    init = init || {};
    var headers = init.headers instanceof Headers ? init.headers.toObject() : Object.assign({}, init.headers || {});
    return send(url, init.method, headers, init.body).then(function (answer) { return new Response(String(url), answer); });
  };

  function formEncode(object) {
    return Object.keys(object).map(function (key) {
      return encodeURIComponent(key) + '=' + encodeURIComponent(object[key]);
    }).join('&');
  }

  // LeanEngine's AV.Cloud.httpRequest({url, method, params, headers, body, success, error}).
  AV.Cloud.httpRequest = function (options) {
    options = options || {};
    var url = String(options.url || '');
    if (options.params) {
      var query = typeof options.params === 'string' ? options.params : formEncode(options.params);
      if (query) url += (url.indexOf('?') < 0 ? '?' : '&') + query;
    }
    var headers = Object.assign({}, options.headers || {});
    var type = '';
    Object.keys(headers).forEach(function (name) { if (name.toLowerCase() === 'content-type') type = headers[name]; });
    var body = options.body;
    if (body !== undefined && body !== null && typeof body === 'object') {
      if (type.indexOf('json') >= 0) body = JSON.stringify(body);
      else {
        if (!type) headers['Content-Type'] = 'application/x-www-form-urlencoded';
        body = formEncode(body);
      }
    }
    var promise = send(url, options.method, headers, body).then(function (answer) {
      var response = { status: answer.status, headers: answer.headers || {}, text: answer.text || '', data: undefined };
      try { response.data = JSON.parse(response.text); } catch (e) { response.data = undefined; }
      if (answer.status < 200 || answer.status >= 300) throw response;
      return response;
    });
    if (typeof options.success === 'function' || typeof options.error === 'function') {
      promise.then(options.success || function () {}, options.error || function () {});
    }
    return promise;
  };
})(this);
