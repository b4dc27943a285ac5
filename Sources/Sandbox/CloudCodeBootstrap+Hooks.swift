extension CloudCodeBootstrap {
    /// The second half of the bootstrap's function body: a hook's request as the SDK's objects
    /// and its answer back as JSON, then the entry points the host calls for each step.
    static let hooksAndEntryPoints = #"""
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
        if (kind === 'beforeFind' || kind === 'afterFind') {
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
        if (kind === 'beforeFind') {
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
      // mode: 'function' (plain JSON), 'rpc' (typed values both ways) or 'hook'.
      global.__fhInvoke = function (id, name, requestText, mode) {
        current = id;
        var request = JSON.parse(requestText);
        var inv = live[id] = { logs: [], rpc: mode === 'rpc', meta: request.meta || {}, name: name, answered: false, pending: 0 };
        try {
          if (mode === 'hook') {
            request = hookRequest(request);
          } else {
            if (mode === 'rpc' && AV._decode) request.params = AV._decode(request.params);
            if (request.currentUser && AV.User && AV.User._fromServer) request.currentUser = AV.User._fromServer(request.currentUser);
            // LeanEngine's request carries the caller's user twice: user and currentUser.
            request.user = request.currentUser;
          }
          var out = invokeLocal(name, request);
          var done = mode === 'hook' ? function (v) { settle(id, true, hookAnswer(request, v)); } : function (v) { settle(id, true, v); };
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
        current = id;
        var call = calls[callId];
        if (!call) return;
        delete calls[callId];
        finished(call.inv);
        var value = JSON.parse(text);
        if (ok) return call.resolve(value);
        var error = AV.Error ? new AV.Error(value.code, value.message) : new CloudError(value.message, { code: value.code });
        if (value.status) error.status = value.status;
        call.reject(error);
      };
      global.__fhFire = function (id, timerId) {
        current = id;
        var timer = timers[timerId];
        if (!timer) return;
        // An interval runs on (pending) while its invocation lives: past the answer, until the
        // background bound ends it.
        if (timer.repeat && live[timer.inv]) {
          native.timer(timer.inv, timerId, timer.ms);
        } else {
          delete timers[timerId];
          finished(timer.inv);
        }
        if (timer.repeat && !live[timer.inv]) return;
        timer.fn.apply(null, timer.args);
      };
      // The host stopped an invocation: the console lines it logged since its answer.
      global.__fhAbort = function (id) {
        var inv = live[id];
        forget(id);
        return inv && inv.answered ? inv.logs : undefined;
      };
      // After each step: the answered invocations with nothing pending any more, and their lines.
      global.__fhSettled = function () {
        var settled = [];
        for (var id in live) {
          var inv = live[id];
          if (inv.answered && inv.pending <= 0) settled.push({ id: Number(id), logs: inv.logs });
        }
        for (var i = 0; i < settled.length; i++) delete live[settled[i].id];
        forgetIfIdle();
        return settled.length ? settled : undefined;
      };
    })(this);
    """#
}
