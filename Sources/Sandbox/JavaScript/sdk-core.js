// AV.Error and its codes, AV.Cloud.useMasterKey, and the request helper that turns __fhCall
// rejections into AV.Errors.
(function (global) {
  'use strict';
  var AV = global.AV;

  // AV.Error: an Error that carries LeanCloud's numeric code, so `error.code === 101` works and
  // the host's error description keeps the code when a function rethrows it.
  function AVError(code, message) {
    var error = new Error(message === undefined || message === null ? '' : String(message));
    Object.setPrototypeOf(error, AVError.prototype);
    error.code = code;
    return error;
  }
  AVError.prototype = Object.create(Error.prototype, {
    constructor: { value: AVError, writable: true, configurable: true }
  });
  AVError.prototype.name = 'AVError';
  AVError.prototype.toString = function () {
    return this.name + ' ' + this.code + ': ' + this.message;
  };
  var codes = {
    OTHER_CAUSE: -1, INTERNAL_SERVER_ERROR: 1, CONNECTION_FAILED: 100, OBJECT_NOT_FOUND: 101,
    INVALID_QUERY: 102, INVALID_CLASS_NAME: 103, MISSING_OBJECT_ID: 104, INVALID_KEY_NAME: 105,
    INVALID_POINTER: 106, INVALID_JSON: 107, COMMAND_UNAVAILABLE: 108, NOT_INITIALIZED: 109,
    INCORRECT_TYPE: 111, INVALID_CHANNEL_NAME: 112, PUSH_MISCONFIGURED: 115, OBJECT_TOO_LARGE: 116,
    OPERATION_FORBIDDEN: 119, CACHE_MISS: 120, INVALID_NESTED_KEY: 121, INVALID_FILE_NAME: 122,
    INVALID_ACL: 123, TIMEOUT: 124, INVALID_EMAIL_ADDRESS: 125, MISSING_CONTENT_TYPE: 126,
    MISSING_CONTENT_LENGTH: 127, INVALID_CONTENT_LENGTH: 128, FILE_TOO_LARGE: 129,
    FILE_SAVE_ERROR: 130, FILE_DELETE_ERROR: 153, DUPLICATE_VALUE: 137, INVALID_ROLE_NAME: 139,
    EXCEEDED_QUOTA: 140, SCRIPT_FAILED: 141, VALIDATION_ERROR: 142, UNSAVED_FILE_ERROR: 151,
    USERNAME_MISSING: 200, PASSWORD_MISSING: 201, USERNAME_TAKEN: 202, EMAIL_TAKEN: 203,
    EMAIL_MISSING: 204, EMAIL_NOT_FOUND: 205, SESSION_MISSING: 206,
    MUST_CREATE_USER_THROUGH_SIGNUP: 207, ACCOUNT_ALREADY_LINKED: 208, LINKED_ID_MISSING: 250,
    INVALID_LINKED_SESSION: 251, UNSUPPORTED_SERVICE: 252, X_DOMAIN_REQUEST: 602
  };
  Object.keys(codes).forEach(function (name) { AVError[name] = codes[name]; });
  AV.Error = AVError;


  AV._isPlainObject = function (value) {
    if (value === null || typeof value !== 'object') return false;
    var proto = Object.getPrototypeOf(value);
    return proto === Object.prototype || proto === null;
  };

  AV._ensureArray = function (value) {
    if (value === undefined || value === null) return [];
    return Array.isArray(value) ? value : [value];
  };

  // Key lists given as arguments, arrays or comma lists: include('a', ['b', 'c,d']).
  AV._keyList = function (args) {
    var keys = [];
    Array.prototype.forEach.call(args, function (arg) {
      AV._ensureArray(arg).forEach(function (item) {
        String(item).split(',').forEach(function (part) {
          part = part.trim();
          if (part) keys.push(part);
        });
      });
    });
    return keys;
  };

  AV._parseDate = function (value) {
    if (value instanceof Date) return value;
    if (value && typeof value === 'object' && value.__type === 'Date') value = value.iso;
    if (typeof value !== 'string') return null;
    var date = new Date(value);
    return isNaN(date.getTime()) ? null : date;
  };

  // What the host needs to know about who is asking: the master key or a user's session.
  AV._requestOptions = function (options) {
    options = options || {};
    var token = null;
    if (typeof options.sessionToken === 'string' && options.sessionToken) {
      token = options.sessionToken;
    } else if (options.user) {
      token = typeof options.user.getSessionToken === 'function' ? options.user.getSessionToken() : null;
      if (!token) throw new AVError(AVError.SESSION_MISSING, 'options.user has no session token: it is not a logged-in user.');
    }
    // Without an explicit choice the bootstrap applies AV.Cloud.useMasterKey()'s.
    var master = typeof options.useMasterKey === 'boolean' ? options.useMasterKey : null;
    return { useMasterKey: master, sessionToken: token };
  };

  AV._toError = function (error) {
    if (error instanceof AVError) return error;
    if (error && typeof error.code === 'number') return new AVError(error.code, error.message);
    return new AVError(AVError.INTERNAL_SERVER_ERROR, error && error.message ? error.message : String(error));
  };

  // One host data operation; rejections always surface as AV.Error with the host's code.
  AV._request = function (operation, args, options) {
    return new Promise(function (resolve) {
      var call = global.__fhCall;
      if (typeof call !== 'function') {
        throw new AVError(AVError.INTERNAL_SERVER_ERROR, 'The host offers no data operations here.');
      }
      var payload = Object.assign({}, args, { options: AV._requestOptions(options) });
      resolve(call(operation, payload));
    }).catch(function (error) { throw AV._toError(error); });
  };

  AV._unavailable = function (what) {
    return function () {
      return Promise.reject(new AVError(AVError.COMMAND_UNAVAILABLE,
        what + " isn't available in FunctionHost cloud code yet."));
    };
  };
})(this);
